package server_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"kycd/jobs"
	"kycd/webhook"
)

// TestDeliveriesReplayBatch: POST /v1/webhook-deliveries/replay replays
// the delivered or failed deliveries its filters select (status, event
// type, endpoint, time), once: asked again while their new attempts are
// pending, it replays nothing; an Idempotency-Key replays the answer;
// disabled endpoints' deliveries are skipped with the reason; bad filters
// are field errors. GET filters by time the same way.
func TestDeliveriesReplayBatch(t *testing.T) {
	e := newAPIEnv(t, allowPrivateWebhooks)
	var status atomic.Int32
	status.Store(500)
	var hits atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(int(status.Load()))
	}))
	defer rc.Close()
	runner := jobs.New(jobs.Options{Store: e.store, Now: e.clock.Now})
	(&webhook.Dispatcher{Store: e.store, Box: e.opts.Secrets, Sender: webhook.NewSender(true), Now: e.clock.Now}).Register(runner)
	runAll := func() {
		t.Helper()
		for i := 0; i < 20; i++ {
			n, err := runner.RunOnce(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
		}
	}
	key := e.A.SandboxKey
	ep := e.call("POST", "/v1/webhook-endpoints", key, `{"url":"`+rc.URL+`"}`).json(t)
	epPath := "/v1/webhook-endpoints/" + ep["id"].(string)
	// Three test events: the first two an hour before the third.
	start := e.clock.Now()
	e.call("POST", epPath+"/test", key, "")
	e.call("POST", epPath+"/test", key, "")
	e.clock.Advance(time.Hour)
	mid := e.clock.Now()
	e.call("POST", epPath+"/test", key, "")
	// Each fails through its six attempts.
	for i := 0; i < 12; i++ {
		runAll()
		e.clock.Advance(time.Hour)
	}
	list := func(q string) float64 {
		t.Helper()
		r := e.call("GET", "/v1/webhook-deliveries"+q, key, "")
		if r.status != 200 {
			t.Fatalf("list %s: %d %s", q, r.status, r.body)
		}
		return r.json(t)["pagination"].(map[string]any)["totalItems"].(float64)
	}
	if n := list("?status=failed"); n != 3 {
		t.Fatalf("%v failed deliveries, want 3", n)
	}
	if n := list("?createdTo=" + mid.Format(time.RFC3339Nano)); n != 2 {
		t.Errorf("createdTo: %v, want 2", n)
	}
	if n := list("?createdFrom=" + mid.Format(time.RFC3339Nano)); n != 1 {
		t.Errorf("createdFrom: %v, want 1", n)
	}

	// Disabled after its failures: every match is skipped, with why.
	r := e.call("POST", "/v1/webhook-deliveries/replay", key, `{"status":"failed"}`)
	if got := r.json(t); r.status != 202 || got["replayed"] != 0.0 || len(got["skipped"].([]any)) != 3 {
		t.Fatalf("replay to a disabled endpoint: %d %s", r.status, r.body)
	}
	e.call("PATCH", epPath, key, `{"enabled":true}`)
	status.Store(200)

	// The first two (before mid), with a key.
	body := `{"status":"failed","createdFrom":"` + start.Format(time.RFC3339Nano) + `","createdTo":"` + mid.Format(time.RFC3339Nano) + `"}`
	r = e.call("POST", "/v1/webhook-deliveries/replay", key, body, "Idempotency-Key", "batch-1")
	got := r.json(t)
	if r.status != 202 || got["replayed"] != 2.0 || len(got["data"].([]any)) != 2 || got["data"].([]any)[0].(map[string]any)["status"] != "pending" {
		t.Fatalf("batch replay: %d %s", r.status, r.body)
	}
	if again := e.call("POST", "/v1/webhook-deliveries/replay", key, body, "Idempotency-Key", "batch-1"); again.header.Get("Idempotent-Replayed") != "true" ||
		string(again.body) != string(r.body) {
		t.Errorf("keyed repeat: %v %s", again.header, again.body)
	}
	// Without the key, while pending: the window has no delivered or
	// failed delivery left to replay.
	if again := e.call("POST", "/v1/webhook-deliveries/replay", key, body).json(t); again["replayed"] != 0.0 {
		t.Errorf("repeat while pending replayed %v", again["replayed"])
	}
	before := hits.Load()
	runAll()
	if sent := hits.Load() - before; sent != 2 {
		t.Errorf("%d attempts sent, want 2", sent)
	}
	if n := list("?status=delivered"); n != 2 {
		t.Errorf("%v delivered after the replay, want 2", n)
	}
	// The rest: the remaining failed one, limited by eventType and endpoint.
	r = e.call("POST", "/v1/webhook-deliveries/replay", key, `{"status":"failed","eventType":"svc.webhook.test","endpointId":"`+ep["id"].(string)+`","limit":10}`)
	if got := r.json(t); got["replayed"] != 1.0 {
		t.Errorf("the rest: %s", r.body)
	}
	// Other environments and organizations see none of these.
	if got := e.call("POST", "/v1/webhook-deliveries/replay", e.B.SandboxKey, `{}`).json(t); got["replayed"] != 0.0 || len(got["skipped"].([]any)) != 0 {
		t.Errorf("other organization: %v", got)
	}

	for _, tt := range []struct{ body, field string }{
		{`{"status":"sent"}`, "status"},
		{`{"status":"pending"}`, "status"},
		{`{"eventType":"nope"}`, "eventType"},
		{`{"createdFrom":"yesterday"}`, "createdFrom"},
		{`{"createdFrom":"2026-01-02T00:00:00Z","createdTo":"2026-01-01T00:00:00Z"}`, "createdTo"},
		{`{"limit":0}`, "limit"},
		{`{"limit":501}`, "limit"},
		{`{"all":true}`, "all"},
	} {
		r := e.call("POST", "/v1/webhook-deliveries/replay", key, tt.body)
		if r.status != 400 || r.errCode(t) != "VALIDATION_ERROR" || !hasField(r.json(t), tt.field) {
			t.Errorf("%s: %d %s, want a field error on %s", tt.body, r.status, r.body, tt.field)
		}
	}
}

func hasField(body map[string]any, field string) bool {
	for _, d := range body["error"].(map[string]any)["details"].([]any) {
		if d.(map[string]any)["field"] == field {
			return true
		}
	}
	return false
}
