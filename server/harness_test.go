package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"kycd/seal"
	"kycd/server"
	"kycd/store"
	"kycd/store/storetest"
)

// contract is the OpenAPI description every response of these tests is
// checked against.
var contract = sync.OnceValues(func() (routers.Router, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(server.OpenAPIYAML)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	doc.Servers = nil // match whatever port httptest picked
	return gorillamux.NewRouter(doc)
})

// apiEnv is a running server on a fresh database with two organizations,
// A and B, whose keys are unlimited unless a test makes its own.
type apiEnv struct {
	t     *testing.T
	store *store.Store
	srv   *httptest.Server
	clock *storetest.Clock
	A, B  storetest.Org
	opts  server.Options
}

func newAPIEnv(t *testing.T, mod ...func(*server.Options)) *apiEnv {
	t.Helper()
	return newAPIEnvOn(t, storetest.DefaultEngine(), mod...)
}

// newAPIEnvOn is newAPIEnv on the named engine, for tests that run on both.
func newAPIEnvOn(t *testing.T, engine string, mod ...func(*server.Options)) *apiEnv {
	t.Helper()
	st := storetest.OpenOn(t, engine)
	clock := &storetest.Clock{}
	st.Now = clock.Now
	unlimited := 0
	e := &apiEnv{t: t, store: st, clock: clock,
		A: storetest.MustOrg(t, st, "alpha", &unlimited), B: storetest.MustOrg(t, st, "beta", &unlimited)}
	box, err := seal.New(bytes.Repeat([]byte{7}, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	e.opts = server.Options{Store: st, Now: clock.Now, Version: "test", Secrets: box}
	for _, m := range mod {
		m(&e.opts)
	}
	e.start()
	return e
}

// allowPrivateWebhooks is kycd serve --allow-private-webhooks: the tests'
// receivers listen on loopback, and tests must not need DNS.
func allowPrivateWebhooks(o *server.Options) { o.AllowPrivateWebhooks = true }

func (e *apiEnv) start() {
	e.t.Helper()
	srv, err := server.New(e.opts)
	if err != nil {
		e.t.Fatalf("server.New: %v", err)
	}
	e.srv = httptest.NewServer(srv.Handler())
	e.t.Cleanup(e.srv.Close)
}

// response is what a call returned.
type response struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the body into a map.
func (r *response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// errCode returns error.code of an error response.
func (r *response) errCode(t *testing.T) string {
	t.Helper()
	e, _ := r.json(t)["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// call sends a request and checks its response against the OpenAPI
// description: status documented for the operation, headers and body
// valid. Unknown routes must still answer with the error envelope.
func (e *apiEnv) call(method, path, key, body string, headers ...string) *response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	r := &response{status: res.StatusCode, header: res.Header, body: b}
	checkContract(e.t, req, r)
	return r
}

func checkContract(t *testing.T, req *http.Request, r *response) {
	t.Helper()
	if r.header.Get("X-Request-Id") == "" {
		t.Errorf("%s %s: no X-Request-Id header", req.Method, req.URL.Path)
	}
	if r.status >= 400 {
		checkEnvelope(t, req, r)
	}
	router, err := contract()
	if err != nil {
		t.Fatalf("load OpenAPI description: %v", err)
	}
	route, params, err := router.FindRoute(req)
	if err != nil {
		// Not an operation of the API: only 404/405 may come back.
		if r.status != http.StatusNotFound && r.status != http.StatusMethodNotAllowed {
			t.Errorf("%s %s: undocumented route answered %d", req.Method, req.URL.Path, r.status)
		}
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 r.status,
		Header:                 r.header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(r.body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s → %d does not match the OpenAPI description: %v\nbody: %s", req.Method, req.URL.Path, r.status, err, r.body)
	}
}

// checkEnvelope holds every error to spec §7.1, documented route or not.
func checkEnvelope(t *testing.T, req *http.Request, r *response) {
	t.Helper()
	var env struct {
		Error *struct {
			Type    *string `json:"type"`
			Message *string `json:"message"`
			Code    *string `json:"code"`
			Details []struct {
				Field   *string `json:"field"`
				Message *string `json:"message"`
			} `json:"details"`
		} `json:"error"`
	}
	d := json.NewDecoder(bytes.NewReader(r.body))
	if err := d.Decode(&env); err != nil || env.Error == nil || env.Error.Type == nil || env.Error.Message == nil || env.Error.Code == nil || env.Error.Details == nil {
		t.Errorf("%s %s → %d: not the error envelope: %s", req.Method, req.URL.Path, r.status, r.body)
		return
	}
	for _, d := range env.Error.Details {
		if d.Field == nil || d.Message == nil {
			t.Errorf("%s %s: detail without field or message: %s", req.Method, req.URL.Path, r.body)
		}
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: error Content-Type %q", req.Method, req.URL.Path, ct)
	}
}
