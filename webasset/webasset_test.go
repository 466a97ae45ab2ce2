package webasset_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"kycd/webasset"
)

// TestServe: the versioned URL serves the file with its type and a year's
// caching; a stale hash or unknown name is 404; the ETag answers 304.
func TestServe(t *testing.T) {
	s := webasset.MustLoad(fstest.MapFS{"static/a.css": {Data: []byte("body{}")}}, "static", "/x/assets")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /x/assets/{hash}/{name}", func(w http.ResponseWriter, r *http.Request) {
		if err := s.Serve(w, r); err != nil {
			t.Error(err)
		}
	})
	u := s.URL("a.css")
	if !strings.HasPrefix(u, "/x/assets/") || !strings.HasSuffix(u, "/a.css") {
		t.Fatalf("URL %q", u)
	}
	get := func(path, etag string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", path, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, req)
		return w
	}
	w := get(u, "")
	if w.Code != 200 || w.Body.String() != "body{}" || w.Header().Get("Content-Type") != "text/css; charset=utf-8" ||
		!strings.Contains(w.Header().Get("Cache-Control"), "immutable") {
		t.Errorf("GET %s: %d %q %v", u, w.Code, w.Body, w.Header())
	}
	if w := get(u, w.Header().Get("ETag")); w.Code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", w.Code)
	}
	if w := get("/x/assets/000000000000/a.css", ""); w.Code != 404 {
		t.Errorf("stale hash: %d", w.Code)
	}
	if w := get(strings.TrimSuffix(u, "a.css")+"b.css", ""); w.Code != 404 {
		t.Errorf("unknown name: %d", w.Code)
	}
}

func TestUnknownTypeRefused(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("a file without a known content type was loaded")
		}
	}()
	webasset.MustLoad(fstest.MapFS{"static/a.exe": {Data: []byte("MZ")}}, "static", "/x")
}
