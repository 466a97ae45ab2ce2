package server

import (
	"net/http"
	"strconv"

	"kycd/kyc"
)

// Paging of every list endpoint: page is 1-based, size defaults to 20 and
// is at most 100. Lists are newest first.
const (
	defaultPageSize = 20
	maxPageSize     = 100
	// maxPage keeps OFFSET far from overflow; 100 million items deep is
	// beyond any list a person pages through.
	maxPage = 1_000_000
)

// page is the paging envelope shared by every list endpoint.
type page[T any] struct {
	Data       []T        `json:"data"`
	Pagination pagination `json:"pagination"`
}

type pagination struct {
	Page       int  `json:"page"`
	Size       int  `json:"size"`
	TotalItems int  `json:"totalItems"`
	TotalPages int  `json:"totalPages"`
	HasMore    bool `json:"hasMore"`
}

// mapAll converts every item of a list for its JSON form.
func mapAll[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

func newPage[T any](data []T, p, size, total int) page[T] {
	pages := (total + size - 1) / size
	return page[T]{Data: data, Pagination: pagination{Page: p, Size: size, TotalItems: total, TotalPages: pages, HasMore: p < pages}}
}

// query reads query parameters, collecting every problem, and refuses
// parameters the endpoint does not know (a typo such as ?pgae=2 would
// otherwise be silently ignored).
type query struct {
	r     *http.Request
	known map[string]bool
	errs  []kyc.FieldError
}

func newQuery(r *http.Request) *query { return &query{r: r, known: map[string]bool{}} }

func (q *query) intParam(name string, def, min, max int) int {
	q.known[name] = true
	v := q.r.URL.Query().Get(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		msg := "must be an integer from " + strconv.Itoa(min) + " to " + strconv.Itoa(max)
		q.errs = append(q.errs, kyc.FieldError{Field: name, Message: msg})
		return def
	}
	return n
}

func (q *query) boolParam(name string) bool {
	q.known[name] = true
	switch v := q.r.URL.Query().Get(name); v {
	case "", "false":
		return false
	case "true":
		return true
	default:
		q.errs = append(q.errs, kyc.FieldError{Field: name, Message: "must be true or false"})
		return false
	}
}

// str reads a string parameter ("" when absent).
func (q *query) str(name string) string {
	q.known[name] = true
	return q.r.URL.Query().Get(name)
}

// paging reads page and size.
func (q *query) paging() (p, size int) {
	return q.intParam("page", 1, 1, maxPage), q.intParam("size", defaultPageSize, 1, maxPageSize)
}

func (q *query) check() error {
	for name := range q.r.URL.Query() {
		if !q.known[name] {
			q.errs = append(q.errs, kyc.FieldError{Field: name, Message: "is not a known query parameter"})
		}
	}
	if len(q.errs) == 0 {
		return nil
	}
	return kyc.Invalid(q.errs...)
}
