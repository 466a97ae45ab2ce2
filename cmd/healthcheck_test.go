package cmd_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthcheck: exit 0 only for a 200 with status ok; a wildcard
// listen address is asked on loopback; nothing listening is 1.
func TestHealthcheck(t *testing.T) {
	answer := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/healthz" {
				http.NotFound(w, r)
				return
			}
			w.WriteHeader(status)
			w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return srv.Listener.Addr().String()
	}
	ok := answer(200, `{"status":"ok","version":"test"}`)
	_, port, _ := net.SplitHostPort(ok)
	closed := httptest.NewServer(http.NotFoundHandler())
	closedAddr := closed.Listener.Addr().String()
	closed.Close()
	for _, tt := range []struct {
		name, addr string
		code       int
		out        string
	}{
		{"up", ok, 0, "ok: kycd test at http://" + ok + "/healthz"},
		{"wildcard host", "0.0.0.0:" + port, 0, "ok: kycd test"},
		{"empty host", ":" + port, 0, "ok: kycd test"},
		{"503", answer(503, `{"status":"ok"}`), 1, "answered 503"},
		{"not ok", answer(200, `{"status":"starting"}`), 1, "unhealthy"},
		{"not JSON", answer(200, `<html>`), 1, "unhealthy"},
		{"nothing listening", closedAddr, 1, "unhealthy"},
		{"bad address", "nonsense", 1, "--addr"},
	} {
		code, out, errOut := run(t, "healthcheck", "--addr", tt.addr, "--timeout", "2s")
		if code != tt.code || !strings.Contains(out+errOut, tt.out) {
			t.Errorf("%s: exit %d, %q %q; want %d and %q", tt.name, code, out, errOut, tt.code, tt.out)
		}
	}
}
