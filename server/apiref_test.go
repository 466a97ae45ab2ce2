package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/oasdiff/yaml"

	"kycd/server"
)

// TestAPIReferenceFresh fails when the committed API reference page was
// built from another description than server/openapi/openapi.yaml: Redoc
// keeps the description it rendered in the page, so the page's copy must
// equal the file. (CI also rebuilds the page and compares bytes:
// tools/apidocs/build -check.) It needs no npm.
func TestAPIReferenceFresh(t *testing.T) {
	page, err := os.ReadFile("apidocs/index.html")
	if err != nil {
		t.Fatal(err)
	}
	const marker = "const __redoc_definition = "
	i := bytes.Index(page, []byte(marker))
	if i < 0 {
		t.Fatalf("apidocs/index.html has no %q: not a page tools/apidocs/build made", marker)
	}
	var inPage any
	if err := json.NewDecoder(bytes.NewReader(page[i+len(marker):])).Decode(&inPage); err != nil {
		t.Fatalf("the page's description: %v", err)
	}
	j, err := yaml.YAMLToJSON(server.OpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	var inFile any
	if err := json.Unmarshal(j, &inFile); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(inPage, inFile) {
		t.Fatal("server/apidocs/index.html is stale: it renders another description than server/openapi/openapi.yaml; run tools/apidocs/build and commit the page")
	}
}

// TestAPIReferenceServed: GET /docs and /docs/ answer the embedded page
// with no API key, with a CSP whose script hashes cover every inline
// script of the page; other paths under /docs/ are the API's 404.
func TestAPIReferenceServed(t *testing.T) {
	e := newAPIEnv(t)
	page, err := os.ReadFile("apidocs/index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/docs", "/docs/"} {
		res, err := http.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !bytes.Equal(body, page) {
			t.Fatalf("GET %s: %d %s, %d bytes (the page has %d)", path, res.StatusCode, res.Header.Get("Content-Type"), len(body), len(page))
		}
		csp := res.Header.Get("Content-Security-Policy")
		// Redoc escapes "</script>" inside its scripts, so each real
		// closing tag ends one inline script element.
		scripts := strings.Count(string(page), "</script>")
		if n := strings.Count(csp, "'sha256-"); scripts == 0 || n != scripts {
			t.Errorf("GET %s: the CSP names %d script hashes, the page has %d inline scripts: %s", path, n, scripts, csp)
		}
		for _, bad := range []string{"'unsafe-eval'", "script-src 'self'", "script-src 'unsafe-inline'", "*"} {
			if strings.Contains(csp, bad) {
				t.Errorf("GET %s: the CSP allows %s: %s", path, bad, csp)
			}
		}
		if res.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: the page may be framed", path)
		}
	}
	res, err := http.Get(e.srv.URL + "/docs/other")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 404 || !strings.Contains(string(body), `"NOT_FOUND"`) {
		t.Errorf("GET /docs/other: %d %s", res.StatusCode, body)
	}
}
