package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"kycd/server"
)

// TestRootPage is issue 23 item 15: GET / answered a JSON 404. It is now
// a small HTML page with the console's security headers and CSP, linking
// the back office, the API description (and the Swagger UI in dev mode)
// and the docs; other unknown paths still get the JSON 404.
func TestRootPage(t *testing.T) {
	get := func(t *testing.T, e *apiEnv, path string) (*http.Response, string) {
		t.Helper()
		res, err := http.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	for _, dev := range []bool{false, true} {
		e := newAPIEnv(t, func(o *server.Options) { o.Dev = dev })
		res, body := get(t, e, "/")
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("dev=%v: GET / = %d %s", dev, res.StatusCode, res.Header.Get("Content-Type"))
		}
		login, _ := get(t, e, "/console/login")
		for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy",
			"Permissions-Policy", "Cross-Origin-Opener-Policy", "Cache-Control"} {
			if res.Header.Get(h) == "" || res.Header.Get(h) != login.Header.Get(h) {
				t.Errorf("dev=%v: %s is %q on / and %q on the console", dev, h, res.Header.Get(h), login.Header.Get(h))
			}
		}
		for _, link := range []string{`href="/console/"`, `href="/v3/api-docs"`, "<code>docs/</code>", "kycd users create"} {
			if !strings.Contains(body, link) {
				t.Errorf("dev=%v: the page lacks %s", dev, link)
			}
		}
		if swagger := strings.Contains(body, `href="/swagger-ui/index.html"`); swagger != dev {
			t.Errorf("dev=%v: Swagger UI linked: %v", dev, swagger)
		}
		if res, body := get(t, e, "/nothing-here"); res.StatusCode != 404 || !strings.Contains(body, `"NOT_FOUND"`) {
			t.Errorf("an unknown path: %d %s", res.StatusCode, body)
		}
	}
}
