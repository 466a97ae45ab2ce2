package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"kycd/jobs"
	"kycd/server/contracttest"
	"kycd/webhook"
)

// callbackHit is one delivery that reached a callback URL.
type callbackHit struct {
	path, event, signature string
	body                   []byte
}

// TestKYCCallbackURL: issue #9 — callbackUrl was stored but never called.
// Every event of a request reaches its callbackUrl with the body and
// headers endpoints get, signed with the organization's callback secret,
// which the first request with a callbackUrl creates and shows once.
func TestKYCCallbackURL(t *testing.T) {
	e := newAPIEnv(t, allowPrivateWebhooks)
	var mu sync.Mutex
	var hits []callbackHit
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if err := contracttest.CheckEvent(r.Header, b); err != nil {
			t.Error(err)
		}
		mu.Lock()
		hits = append(hits, callbackHit{r.URL.RequestURI(), r.Header.Get("X-Svc-Event"), r.Header.Get("X-Svc-Signature"), b})
		mu.Unlock()
	}))
	defer rc.Close()
	runner := jobs.New(jobs.Options{Store: e.store, Now: e.clock.Now})
	(&webhook.Dispatcher{Store: e.store, Box: e.opts.Secrets, Sender: webhook.NewSender(true), Now: e.clock.Now}).Register(runner)
	run := func() {
		t.Helper()
		if _, err := runner.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	received := func() []callbackHit {
		mu.Lock()
		defer mu.Unlock()
		out := hits
		hits = nil
		return out
	}

	if r := e.call("GET", "/v1/callback-secret", e.A.SandboxKey, ""); r.status != 404 {
		t.Fatalf("callback secret before any: %d %s", r.status, r.body)
	}
	create := func(key, ref string) map[string]any {
		t.Helper()
		r := e.call("POST", "/v1/kyc-requests", key, `{"applicant":{"firstName":"Ada","lastName":"Lovelace"},"callbackUrl":"`+rc.URL+`/kyc?ref=`+ref+`"}`)
		if r.status != 201 {
			t.Fatalf("create: %d %s", r.status, r.body)
		}
		return r.json(t)
	}
	first := create(e.A.SandboxKey, "1")
	secret, _ := first["callbackSecret"].(string)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("the first request with a callbackUrl did not show the new callback secret: %v", first)
	}
	second := create(e.A.SandboxKey, "2")
	if _, shown := second["callbackSecret"]; shown {
		t.Errorf("the callback secret was shown again: %v", second)
	}
	if r := e.call("POST", "/v1/kyc-requests", e.A.SandboxKey, `{"applicant":{"firstName":"No","lastName":"Callback"}}`); r.status != 201 ||
		strings.Contains(string(r.body), "callbackSecret") {
		t.Errorf("request without a callbackUrl: %d %s", r.status, r.body)
	}
	run()
	got := received()
	if len(got) != 4 {
		t.Fatalf("%d callback deliveries, want created and portal_link_ready of both requests: %+v", len(got), got)
	}
	byRef := map[string][]string{}
	for _, h := range got {
		if err := webhook.Verify(secret, h.signature, h.body, e.clock.Now()); err != nil || strings.Count(h.signature, "sig=") != 1 {
			t.Errorf("delivery to %s: signature %q: %v", h.path, h.signature, err)
		}
		var body struct{ EventType, ResourceID string }
		if err := json.Unmarshal(h.body, &body); err != nil || body.EventType != h.event {
			t.Errorf("body %s", h.body)
		}
		byRef[h.path] = append(byRef[h.path], body.ResourceID)
		if (h.path == "/kyc?ref=1") != (body.ResourceID == first["id"]) {
			t.Errorf("%s got %s's event", h.path, body.ResourceID)
		}
	}
	if len(byRef["/kyc?ref=1"]) != 2 || len(byRef["/kyc?ref=2"]) != 2 {
		t.Errorf("deliveries per callback: %v", byRef)
	}

	// Listed among the deliveries, marked as going to the callback URL.
	list := e.call("GET", "/v1/webhook-deliveries?target=callback", e.A.SandboxKey, "").json(t)
	data := list["data"].([]any)
	if len(data) != 4 {
		t.Fatalf("callback deliveries listed: %v", list)
	}
	d := data[0].(map[string]any)
	if d["target"] != "callback" || d["endpointId"] != nil || !strings.HasPrefix(d["callbackUrl"].(string), rc.URL+"/kyc?ref=") ||
		d["status"] != "delivered" {
		t.Errorf("listed delivery: %v", d)
	}
	if r := e.call("GET", "/v1/webhook-deliveries?target=endpoint", e.A.SandboxKey, "").json(t); len(r["data"].([]any)) != 0 {
		t.Errorf("endpoint deliveries: %v", r)
	}
	if r := e.call("GET", "/v1/webhook-deliveries?target=elsewhere", e.A.SandboxKey, ""); r.status != 400 {
		t.Errorf("bad target filter: %d", r.status)
	}
	// Replayable like any delivery.
	if r := e.call("POST", "/v1/webhook-deliveries/"+d["id"].(string)+"/replay", e.A.SandboxKey, ""); r.status != 202 {
		t.Errorf("replay: %d %s", r.status, r.body)
	}
	run()
	if got := received(); len(got) != 1 || webhook.Verify(secret, got[0].signature, got[0].body, e.clock.Now()) != nil {
		t.Errorf("replayed: %+v", got)
	}

	// Rotation: a new secret shown once; the next events are signed with it alone.
	r := e.call("POST", "/v1/callback-secret/rotate", e.A.SandboxKey, "")
	rotated, _ := r.json(t)["secret"].(string)
	if r.status != 200 || !strings.HasPrefix(rotated, "whsec_") || rotated == secret {
		t.Fatalf("rotate: %d %s", r.status, r.body)
	}
	if r := e.call("GET", "/v1/callback-secret", e.A.SandboxKey, ""); r.status != 200 || strings.Contains(string(r.body), "whsec_") ||
		r.json(t)["rotatedAt"] == nil {
		t.Errorf("callback secret after rotation: %d %s", r.status, r.body)
	}
	if r := e.call("POST", "/v1/kyc-requests/"+first["id"].(string)+"/cancel", e.A.SandboxKey, `{"reason":"test"}`); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	run()
	got = received()
	if len(got) != 1 || got[0].event != "svc.kyc.request.cancelled" || got[0].path != "/kyc?ref=1" ||
		webhook.Verify(rotated, got[0].signature, got[0].body, e.clock.Now()) != nil || strings.Count(got[0].signature, "sig=") != 1 {
		t.Errorf("after rotation: %+v", got)
	}

	// Environments and organizations keep their own secrets.
	r = e.call("POST", "/v1/kyc-requests", e.A.LiveKey, `{"applicant":{"firstName":"Ada","lastName":"Lovelace"},"callbackUrl":"https://127.0.0.1:1/kyc"}`)
	if s, _ := r.json(t)["callbackSecret"].(string); r.status != 201 || !strings.HasPrefix(s, "whsec_") || s == rotated {
		t.Errorf("the first live request with a callbackUrl: %d %s", r.status, r.body)
	}
	if r := e.call("GET", "/v1/callback-secret", e.B.SandboxKey, ""); r.status != 404 {
		t.Errorf("other organization: %d %s", r.status, r.body)
	}
}
