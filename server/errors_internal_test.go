package server

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kycd/store/storetest"
)

// TestInternalErrorsAreHidden: a panic or an unexpected error becomes a 500
// in the envelope; the cause (a stack, SQL) stays in the log.
func TestInternalErrorsAreHidden(t *testing.T) {
	s, err := New(Options{Store: storetest.Open(t)})
	if err != nil {
		t.Fatal(err)
	}
	s.handlePublic("GET /test/panic", func(w http.ResponseWriter, r *http.Request) error { panic("secret stack detail") })
	s.handlePublic("GET /test/error", func(w http.ResponseWriter, r *http.Request) error {
		return errors.New("SELECT * FROM api_keys: disk I/O error")
	})
	for _, path := range []string{"/test/panic", "/test/error"} {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		body := rec.Body.String()
		if rec.Code != 500 || !strings.Contains(body, `"code":"INTERNAL_ERROR"`) || !strings.Contains(body, `"type":"internal"`) {
			t.Errorf("%s: %d %s", path, rec.Code, body)
		}
		if strings.Contains(body, "secret") || strings.Contains(body, "SELECT") || strings.Contains(body, "goroutine") {
			t.Errorf("%s: the cause leaked: %s", path, body)
		}
		if rec.Header().Get("X-Request-Id") == "" {
			t.Errorf("%s: no X-Request-Id", path)
		}
	}
}
