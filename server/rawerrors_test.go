package server_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kycd/server"
)

// TestMalformedRequestsEnvelope sends, over raw TCP, requests net/http
// refuses before any handler runs, and one it lets through to kycd's own
// check: each answer is the §7.1 envelope with an X-Request-Id (issue 23
// items 5 and 23: they were text/plain without one), and normal requests
// through the wrapped listener are untouched.
func TestMalformedRequestsEnvelope(t *testing.T) {
	e := newAPIEnv(t)
	srv, err := server.New(e.opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.MaxHeaderBytes = 64 << 10 // as kycd serve
	hs.Listener = srv.Listener(hs.Listener)
	hs.Start()
	t.Cleanup(hs.Close)
	big := strings.Repeat("a", 200<<10)
	for _, tt := range []struct {
		name, raw string
		status    int
		message   string // a part of error.message
	}{
		{"bad Content-Length", "POST /v1/applicants HTTP/1.1\r\nHost: kyc\r\nContent-Length: abc\r\n\r\n", 400, "malformed"},
		{"two Content-Lengths", "POST /v1/applicants HTTP/1.1\r\nHost: kyc\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400, "malformed"},
		{"no Host", "GET /healthz HTTP/1.1\r\n\r\n", 400, "missing required Host header"},
		{"NUL in Idempotency-Key", "POST /v1/applicants HTTP/1.1\r\nHost: kyc\r\nAuthorization: Bearer " + e.A.SandboxKey +
			"\r\nIdempotency-Key: a\x00b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", 400, "malformed"},
		{"headers over the limit", "GET /healthz HTTP/1.1\r\nHost: kyc\r\nX-Big: " + big + "\r\n\r\n", 431, "headers are larger"},
		{"unsupported Transfer-Encoding", "POST /v1/applicants HTTP/1.1\r\nHost: kyc\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "Transfer-Encoding"},
		{"bad escape in the path", "GET /v1/applicants/%zz HTTP/1.1\r\nHost: kyc\r\n\r\n", 400, "malformed"},
		{"no request line", "GARBAGE\r\n\r\n", 400, "malformed"},
		{"bad protocol version", "GET /healthz HTTP/3.0\r\nHost: kyc\r\n\r\n", 505, "unsupported protocol version"},
		// Let through by net/http (bytes over 0x7f are allowed in header
		// values), refused by kycd in its own envelope.
		{"Idempotency-Key not ASCII", "POST /v1/applicants HTTP/1.1\r\nHost: kyc\r\nAuthorization: Bearer " + e.A.SandboxKey +
			"\r\nIdempotency-Key: a\xffb\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", 400, "request has an invalid field"},
		{"normal 404", "GET /nowhere HTTP/1.1\r\nHost: kyc\r\nConnection: close\r\n\r\n", 404, "No route"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, body := rawRequest(t, hs.Listener.Addr().String(), tt.raw)
			r := &response{status: res.StatusCode, header: res.Header, body: body}
			req := httptest.NewRequest("GET", "/raw", nil)
			if r.status != tt.status || r.header.Get("X-Request-Id") == "" {
				t.Fatalf("%d X-Request-Id %q, want %d: %s", r.status, r.header.Get("X-Request-Id"), tt.status, body)
			}
			checkEnvelope(t, req, r)
			if msg, _ := r.json(t)["error"].(map[string]any)["message"].(string); !strings.Contains(msg, tt.message) {
				t.Errorf("message %q, want it to say %q", msg, tt.message)
			}
		})
	}
	// A healthy request on a kept-alive connection is untouched.
	res, body := rawRequest(t, hs.Listener.Addr().String(), "GET /healthz HTTP/1.1\r\nHost: kyc\r\nConnection: close\r\n\r\n")
	if res.StatusCode != 200 || !strings.Contains(string(body), `"ok"`) {
		t.Fatalf("healthz: %d %s", res.StatusCode, body)
	}
	// A large body (the description, 100s of KB) passes whole.
	res, body = rawRequest(t, hs.Listener.Addr().String(), "GET /v3/api-docs HTTP/1.1\r\nHost: kyc\r\nConnection: close\r\n\r\n")
	if res.StatusCode != 200 || len(body) < 100<<10 || !json.Valid(body) {
		t.Fatalf("api-docs: %d, %d bytes", res.StatusCode, len(body))
	}
}

// rawRequest writes raw bytes on a new connection and reads one response.
func rawRequest(t *testing.T, addr, raw string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = io.WriteString(c, raw) }() // the server may answer before reading it all
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}
