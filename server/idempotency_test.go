package server_test

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"kycd/server"
	"kycd/store"
	"kycd/store/storetest"
)

func TestIdempotencyReplay(t *testing.T) {
	e := newAPIEnv(t)
	first := e.call("POST", "/v1/applicants", e.A.SandboxKey, ada, "Idempotency-Key", "k-1")
	if first.status != 201 || first.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %v", first.status, first.header)
	}
	// Same object, other spacing and key order: the same request.
	respaced := `{ "lastName":"Lovelace", "firstName":"Ada","email":"ada@example.com","phone":"+447700900123","dob":"1990-12-10","country":"GB","externalRef":"c-42","metadata":{"n":12345678901234567890,"plan":"gold"} }`
	e.clock.Advance(23 * time.Hour)
	for _, body := range []string{ada, respaced} {
		r := e.call("POST", "/v1/applicants", e.A.SandboxKey, body, "Idempotency-Key", "k-1")
		if r.status != 201 || !bytes.Equal(r.body, first.body) || r.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("replay: %d %q\n%s\nwant\n%s", r.status, r.header.Get("Idempotent-Replayed"), r.body, first.body)
		}
	}
	for _, tt := range []struct{ name, method, path, body string }{
		{"other body", "POST", "/v1/applicants", `{"firstName":"Eve","lastName":"X"}`},
		{"other path", "POST", "/v1/applicants/" + first.json(t)["id"].(string) + "/archive", ""},
	} {
		r := e.call(tt.method, tt.path, e.A.SandboxKey, tt.body, "Idempotency-Key", "k-1")
		if r.status != 422 || r.errCode(t) != "UNPROCESSABLE" {
			t.Errorf("%s: %d %s", tt.name, r.status, r.body)
		}
	}
	// Scoped per organization and environment: the same key elsewhere is new.
	for _, key := range []string{e.A.LiveKey, e.B.SandboxKey} {
		if r := e.call("POST", "/v1/applicants", key, ada, "Idempotency-Key", "k-1"); r.status != 201 || r.header.Get("Idempotent-Replayed") != "" {
			t.Errorf("other scope: %d %v", r.status, r.header.Get("Idempotent-Replayed"))
		}
	}
	// After 24 hours the key is forgotten.
	e.clock.Advance(time.Hour + time.Millisecond)
	r := e.call("POST", "/v1/applicants", e.A.SandboxKey, `{"firstName":"New","lastName":"Day"}`, "Idempotency-Key", "k-1")
	if r.status != 201 || r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("after expiry: %d %s", r.status, r.body)
	}
	if n := e.count(e.A.SandboxKey); n != 2 {
		t.Errorf("%d applicants, want 2", n)
	}
}

func (e *apiEnv) count(key string) int {
	e.t.Helper()
	r := e.call("GET", "/v1/applicants?includeArchived=true", key, "")
	return int(r.json(e.t)["pagination"].(map[string]any)["totalItems"].(float64))
}

func TestIdempotencyErrorsAreNotCached(t *testing.T) {
	e := newAPIEnv(t)
	if r := e.call("POST", "/v1/applicants", e.A.SandboxKey, `{"firstName":"A"}`, "Idempotency-Key", "retry-me"); r.status != 400 {
		t.Fatalf("invalid: %d", r.status)
	}
	e.mustCreate(e.A.SandboxKey, `{"firstName":"A","lastName":"B","externalRef":"dup"}`)
	if r := e.call("POST", "/v1/applicants", e.A.SandboxKey, `{"firstName":"A","lastName":"B","externalRef":"dup"}`, "Idempotency-Key", "retry-me"); r.status != 409 {
		t.Fatalf("conflict: %d", r.status)
	}
	if r := e.call("POST", "/v1/applicants", e.A.SandboxKey, `{"firstName":"A","lastName":"B"}`, "Idempotency-Key", "retry-me"); r.status != 201 {
		t.Fatalf("fixed request with the same key: %d %s", r.status, r.body)
	}
	for _, bad := range []string{strings.Repeat("k", 256), "tab\there", "ünï"} {
		r := e.call("POST", "/v1/applicants", e.A.SandboxKey, `{"firstName":"A","lastName":"B"}`, "Idempotency-Key", bad)
		if r.status != 400 || !strings.Contains(string(r.body), `"field":"Idempotency-Key"`) {
			t.Errorf("key %q: %d %s", bad, r.status, r.body)
		}
	}
}

// TestIdempotencyConcurrent sends 50 identical requests at once: exactly
// one applicant is created; every other answer is its replay or a 409.
func TestIdempotencyConcurrent(t *testing.T) {
	e := newAPIEnv(t)
	const n = 50
	var wg sync.WaitGroup
	results := make([]*response, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			results[i] = e.call("POST", "/v1/applicants", e.A.SandboxKey, ada, "Idempotency-Key", "same")
		})
	}
	close(start)
	wg.Wait()
	var created []byte
	counts := map[int]int{}
	for _, r := range results {
		counts[r.status]++
		if r.status == 201 {
			if created == nil {
				created = r.body
			} else if !bytes.Equal(created, r.body) {
				t.Errorf("two different 201 bodies:\n%s\n%s", created, r.body)
			}
		} else if r.status != 409 {
			t.Errorf("unexpected %d %s", r.status, r.body)
		}
	}
	if counts[201] == 0 {
		t.Fatalf("no request succeeded: %v", counts)
	}
	if got := e.count(e.A.SandboxKey); got != 1 {
		t.Fatalf("%d applicants created, want 1 (statuses %v)", got, counts)
	}
	t.Logf("statuses: %v", counts)
}

// TestIdempotencyAfterRestart replays a response stored before the server
// and its database were closed.
func TestIdempotencyAfterRestart(t *testing.T) {
	e := newAPIEnv(t)
	first := e.call("POST", "/v1/applicants", e.A.SandboxKey, ada, "Idempotency-Key", "survives")
	if first.status != 201 {
		t.Fatal(first.status)
	}
	e.srv.Close()
	path := storetest.Reopen(e.store)
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), path, store.Options{MasterKey: storetest.MasterKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	st.Now = e.clock.Now
	e.store = st
	e.opts.Store = st
	e.start()
	r := e.call("POST", "/v1/applicants", e.A.SandboxKey, ada, "Idempotency-Key", "survives")
	if r.status != 201 || r.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(r.body, first.body) {
		t.Fatalf("after restart: %d %q %s", r.status, r.header.Get("Idempotent-Replayed"), r.body)
	}
	if n := e.count(e.A.SandboxKey); n != 1 {
		t.Errorf("%d applicants, want 1", n)
	}
}

func TestIdempotentActions(t *testing.T) {
	e := newAPIEnv(t)
	a := e.mustCreate(e.A.SandboxKey, ada)
	path := "/v1/applicants/" + a["id"].(string) + "/archive"
	first := e.call("POST", path, e.A.SandboxKey, "", "Idempotency-Key", "arch")
	e.clock.Advance(time.Minute)
	again := e.call("POST", path, e.A.SandboxKey, "", "Idempotency-Key", "arch")
	if first.status != 200 || again.header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(first.body, again.body) {
		t.Errorf("archive replay: %d %s / %s", first.status, first.body, again.body)
	}
}

func TestSwaggerUIInDevMode(t *testing.T) {
	e := newAPIEnv(t, func(o *server.Options) { o.Dev = true })
	for path, want := range map[string]string{
		"/swagger-ui/index.html":             "swagger-ui",
		"/swagger-ui/swagger-initializer.js": `url: "/v3/api-docs"`,
		"/swagger-ui/swagger-ui.css":         ".swagger-ui",
	} {
		res, err := http.Get(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		buf.ReadFrom(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(buf.String(), want) {
			t.Errorf("%s: %d, %d bytes", path, res.StatusCode, buf.Len())
		}
	}
	r := e.call("GET", "/v3/api-docs", "", "")
	if r.status != 200 || r.json(t)["openapi"] != "3.1.0" {
		t.Errorf("api-docs: %d", r.status)
	}
	if r := e.call("GET", "/healthz", "", ""); r.status != 200 {
		t.Errorf("healthz: %d", r.status)
	}
}
