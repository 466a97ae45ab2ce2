package server_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// rawCall writes a raw HTTP/1.1 request (for bodies net/http will not
// send) and reads the answer; closeWrite ends the client's side after the
// request, as a client that gives up mid-body does.
func (e *apiEnv) rawCall(raw string, closeWrite bool) *response {
	e.t.Helper()
	u, _ := url.Parse(e.srv.URL)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		e.t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, raw); err != nil {
		e.t.Fatal(err)
	}
	if closeWrite {
		c.(*net.TCPConn).CloseWrite()
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		e.t.Fatalf("read response: %v", err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return &response{status: res.StatusCode, header: res.Header, body: b}
}

// TestBadChunkedBody: a malformed or truncated chunked body is the client's
// fault, answered 400 in the envelope (it was a plain-text 500).
func TestBadChunkedBody(t *testing.T) {
	e := newAPIEnv(t)
	head := "POST /v1/applicants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + e.A.SandboxKey +
		"\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
	for _, tt := range []struct {
		name       string
		raw        string
		closeWrite bool
	}{
		{"malformed chunk size", head + "\r\nzz\r\n{}\r\n0\r\n\r\n", false},
		{"chunk longer than sent", head + "\r\n40\r\n{\"firstName\":\"Ada\"", true},
		{"no terminating chunk", head + "\r\n4\r\n{\"fi\r\n", true},
		{"with Idempotency-Key", head + "Idempotency-Key: k-1\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.rawCall(tt.raw, tt.closeWrite)
			if r.status != http.StatusBadRequest || r.errCode(t) != "VALIDATION_ERROR" {
				t.Fatalf("%d %s, want 400 VALIDATION_ERROR", r.status, r.body)
			}
			checkEnvelope(t, &http.Request{Method: "POST", URL: &url.URL{Path: "/v1/applicants"}}, r)
			if !strings.Contains(string(r.body), `"field":"body"`) {
				t.Errorf("details do not name the body: %s", r.body)
			}
		})
	}
	if r := e.call("GET", "/v1/applicants", e.A.SandboxKey, ""); r.json(t)["pagination"].(map[string]any)["totalItems"] != float64(0) {
		t.Errorf("a cut-short body created something: %s", r.body)
	}
}

// TestDuplicateJSONKeys: a key given twice is refused, at any depth, naming
// the field (encoding/json kept the last one silently).
func TestDuplicateJSONKeys(t *testing.T) {
	e := newAPIEnv(t)
	for _, tt := range []struct {
		name, path, body, field string
		headers                 []string
	}{
		{"top level", "/v1/applicants", `{"firstName":"Ada","lastName":"Lovelace","lastName":"Byron"}`, "lastName", nil},
		{"escaped spelling", "/v1/applicants", `{"firstName":"Ada","lastName":"L","last\u004eame":"B"}`, "lastName", nil},
		{"in metadata", "/v1/applicants", `{"firstName":"Ada","lastName":"L","metadata":{"a":1,"b":2,"a":3}}`, "metadata.a", nil},
		{"inline applicant", "/v1/kyc-requests", `{"applicant":{"firstName":"Ada","lastName":"L","firstName":"Eve"}}`, "applicant.firstName", nil},
		{"AML check", "/v1/aml-checks", `{"firstName":"Ada","lastName":"L","monitoring":true,"monitoring":false}`, "monitoring", nil},
		{"with Idempotency-Key", "/v1/applicants", `{"firstName":"Ada","firstName":"Eve","lastName":"L"}`, "firstName", []string{"Idempotency-Key", "dup-1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call("POST", tt.path, e.A.SandboxKey, tt.body, tt.headers...)
			if r.status != http.StatusBadRequest || r.errCode(t) != "VALIDATION_ERROR" {
				t.Fatalf("%d %s, want 400", r.status, r.body)
			}
			if want := fmt.Sprintf(`{"field":%q,"message":"appears more than once in the object"}`, tt.field); !strings.Contains(string(r.body), want) {
				t.Errorf("details %s, want %s", r.body, want)
			}
		})
	}
	// The same key in two different objects is fine.
	if r := e.call("POST", "/v1/applicants", e.A.SandboxKey, `{"firstName":"Ada","lastName":"L","metadata":{"firstName":"x"}}`); r.status != 201 {
		t.Errorf("same name in a nested object: %d %s", r.status, r.body)
	}
	// A stored response is not replayed for a body that repeats a key.
	e.call("POST", "/v1/applicants", e.A.SandboxKey, `{"firstName":"Ada","lastName":"L"}`, "Idempotency-Key", "dup-2")
	if r := e.call("POST", "/v1/applicants", e.A.SandboxKey, `{"firstName":"Ada","lastName":"X","lastName":"L"}`, "Idempotency-Key", "dup-2"); r.status != 400 {
		t.Errorf("duplicate keys replayed: %d %s", r.status, r.body)
	}
}

// TestInvisibleNames: a name of zero-width or direction-override
// characters is refused, while joiners inside a word (Persian, Indic
// scripts) are real spelling and pass.
func TestInvisibleNames(t *testing.T) {
	e := newAPIEnv(t)
	for _, tt := range []struct {
		name, first string
		ok          bool
	}{
		{"zero-width space", "\u200b", false},
		{"right-to-left override", "\u202e", false},
		{"override and letters", "\u202eAda", false},
		{"zero-width space in a name", "A\u200bda", false},
		{"byte order mark", "\ufeffAda", false},
		{"Hangul filler", "\u3164", false},
		{"soft hyphen only", "\u00ad", false},
		{"joiner alone", "\u200c", false},
		{"joiner at the end", "Ada\u200d", false},
		{"Persian with ZWNJ", "فاطمه\u200cزهرا", true},
		{"Devanagari with ZWJ", "क्\u200dष", true},
		{"Japanese with a variation selector", "葛\U000E0100城", true},
		{"plain", "Ada", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := fmt.Sprintf(`{"firstName":%q,"lastName":"Lovelace"}`, tt.first)
			for _, path := range []string{"/v1/applicants", "/v1/aml-checks"} {
				r := e.call("POST", path, e.A.SandboxKey, body)
				if tt.ok {
					if r.status != http.StatusCreated {
						t.Errorf("%s: %d %s, want 201", path, r.status, r.body)
					}
					continue
				}
				if r.status != http.StatusBadRequest || !bytes.Contains(r.body, []byte(`"field":"firstName"`)) ||
					!bytes.Contains(r.body, []byte("invisible")) {
					t.Errorf("%s: %d %s, want 400 naming firstName", path, r.status, r.body)
				}
			}
		})
	}
}

// TestDiskFull: while the database cannot grow (a full disk, simulated by
// capping its page count on the writer connection, which makes SQLite
// fail exactly as on a full disk: SQLITE_FULL), writes answer 503 with
// Retry-After and /readyz says not ready; once there is room again both
// recover. It was a 500, and /readyz stayed ready.
func TestDiskFull(t *testing.T) {
	e := newAPIEnv(t)
	if e.store.Engine() != "sqlite" {
		t.Skip("a full disk is simulated with SQLite's max_page_count; on PostgreSQL disk_full (53100) takes the same path from store/error.go on")
	}
	if status, body := e.ready(); status != 200 {
		t.Fatalf("readyz before: %d %v", status, body)
	}
	if err := e.store.SetMaxPageCount(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 500)
	var full *response
	for i := range 200 {
		body := fmt.Sprintf(`{"firstName":"Ada","lastName":"Lovelace","metadata":{"a":%q,"b":%q,"c":%q,"n":%d}}`, big, big, big, i)
		r := e.call("POST", "/v1/applicants", e.A.SandboxKey, body, "Idempotency-Key", fmt.Sprintf("full-%d", i))
		if r.status == http.StatusCreated {
			continue // room left in a page
		}
		full = r
		break
	}
	if full == nil {
		t.Fatal("200 applicants fitted in a capped database")
	}
	if full.status != http.StatusServiceUnavailable || full.errCode(t) != "SERVICE_UNAVAILABLE" {
		t.Fatalf("write on a full disk: %d %s, want 503 SERVICE_UNAVAILABLE", full.status, full.body)
	}
	if ra := full.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("503 without Retry-After: %q", ra)
	}
	for range 2 { // and it stays not ready while writes fail
		if status, body := e.ready(); status != http.StatusServiceUnavailable || body["status"] != "not_ready" || check(t, body, "database")["ok"] != false {
			t.Fatalf("readyz while writes fail: %d %v", status, body)
		}
	}
	// Reads still work.
	if r := e.call("GET", "/v1/applicants?size=1", e.A.SandboxKey, ""); r.status != 200 {
		t.Errorf("read on a full disk: %d", r.status)
	}
	if err := e.store.SetMaxPageCount(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	if status, body := e.ready(); status != 200 {
		t.Fatalf("readyz once there is room: %d %v", status, body)
	}
	if r := e.call("POST", "/v1/applicants", e.A.SandboxKey, `{"firstName":"Ada","lastName":"Lovelace"}`); r.status != http.StatusCreated {
		t.Fatalf("write once there is room: %d %s", r.status, r.body)
	}
}
