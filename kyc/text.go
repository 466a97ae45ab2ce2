package kyc

import (
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"
)

// StorableText reports whether s is text both database engines store and
// compare alike: valid UTF-8 without NUL. PostgreSQL refuses either in a
// text parameter (an error, where SQLite just finds nothing), so requests
// are checked with it before any value reaches a query.
func StorableText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// TextProblem is what a client is told about a value that is not
// StorableText.
const TextProblem = "must be UTF-8 text without NUL characters"

// CheckPathAndQuery checks a request's decoded path and its query's names
// and values with StorableText. A bad path means nothing can be there
// (ENotFound); a bad query parameter is EValidation naming it.
func CheckPathAndQuery(path string, q url.Values) error {
	if !StorableText(path) {
		return Errorf(ENotFound, "Nothing is at this path: it holds a NUL character or bytes that are not UTF-8.")
	}
	var errs []FieldError
	for name, vs := range q {
		field := name
		if !StorableText(name) {
			field = strings.ToValidUTF8(strings.ReplaceAll(name, "\x00", ""), "") // the detail must be valid JSON text
			errs = append(errs, FieldError{Field: field, Message: "is a query parameter name that " + TextProblem})
			continue
		}
		for _, v := range vs {
			if !StorableText(v) {
				errs = append(errs, FieldError{Field: field, Message: TextProblem})
				break
			}
		}
	}
	if len(errs) > 0 {
		sort.Slice(errs, func(i, j int) bool { return errs[i].Field < errs[j].Field })
		return Invalid(errs...)
	}
	return nil
}
