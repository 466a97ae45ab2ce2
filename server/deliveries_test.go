package server_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"kycd/jobs"
	"kycd/server"
	"kycd/webhook"
)

// TestDeliveriesAPI follows a delivery through the API: six failed
// attempts, the endpoint disabled, replay refused, enabled again, replayed
// as a seventh attempt that succeeds.
func TestDeliveriesAPI(t *testing.T) {
	e := newAPIEnv(t, allowPrivateWebhooks)
	var status atomic.Int32
	status.Store(500)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(int(status.Load()))
		w.Write([]byte("nope"))
	}))
	defer rc.Close()
	runner := jobs.New(jobs.Options{Store: e.store, Now: e.clock.Now})
	(&webhook.Dispatcher{Store: e.store, Box: e.opts.Secrets, Sender: webhook.NewSender(true), Now: e.clock.Now}).Register(runner)
	run := func() {
		if _, err := runner.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
	}

	ep := e.call("POST", "/v1/webhook-endpoints", e.A.SandboxKey, `{"url":"`+rc.URL+`"}`).json(t)
	epPath := "/v1/webhook-endpoints/" + ep["id"].(string)
	test := e.call("POST", epPath+"/test", e.A.SandboxKey, "").json(t)
	path := "/v1/webhook-deliveries/" + test["deliveryId"].(string)

	for _, wait := range []time.Duration{0, time.Second, 16 * time.Second, 2 * time.Minute, 15 * time.Minute, 2 * time.Hour} {
		e.clock.Advance(wait)
		run()
	}
	r := e.call("GET", path, e.A.SandboxKey, "")
	d := r.json(t)
	attempts := d["attempts"].([]any)
	if d["status"] != "failed" || d["attemptCount"] != float64(6) || len(attempts) != 6 || d["lastStatusCode"] != float64(500) {
		t.Fatalf("after six failures: %s", r.body)
	}
	// The receiver is on loopback (allowed by the operator): its answer
	// is not kept, only its status (issue #9: the API showed what internal
	// services answered).
	first := attempts[0].(map[string]any)
	if first["responseBody"] != "" || first["responseBodyWithheld"] != true || first["responseStatus"] != float64(500) ||
		first["requestHeaders"].(map[string]any)["X-Svc-Event"] != "svc.webhook.test" ||
		d["payload"].(map[string]any)["eventId"] != test["eventId"] {
		t.Errorf("attempt record: %v, payload %v", first, d["payload"])
	}
	if r := e.call("GET", epPath, e.A.SandboxKey, ""); r.json(t)["enabled"] != false {
		t.Fatalf("endpoint not disabled: %s", r.body)
	}
	// The body sent is the TestEvent of the OpenAPI webhooks section.
	doc, err := openapi3.NewLoader().LoadFromData(server.OpenAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Components.Schemas["TestEvent"].Value.VisitJSON(d["payload"], openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("test event body does not match the TestEvent schema: %v", err)
	}

	// Replay to a disabled endpoint is refused; enabled again, it works.
	if r := e.call("POST", path+"/replay", e.A.SandboxKey, ""); r.status != 422 || r.errCode(t) != "UNPROCESSABLE" {
		t.Fatalf("replay to a disabled endpoint: %d %s", r.status, r.body)
	}
	e.call("PATCH", epPath, e.A.SandboxKey, `{"enabled":true}`)
	status.Store(200)
	if r := e.call("POST", path+"/replay", e.A.SandboxKey, ""); r.status != 202 || r.json(t)["status"] != "pending" {
		t.Fatalf("replay: %d %s", r.status, r.body)
	}
	if r := e.call("POST", path+"/replay", e.A.SandboxKey, ""); r.status != 409 {
		t.Errorf("replay while pending: %d %s", r.status, r.body)
	}
	run()
	r = e.call("GET", path, e.A.SandboxKey, "")
	d = r.json(t)
	if d["status"] != "delivered" || d["attemptCount"] != float64(7) || d["deliveredAt"] == nil {
		t.Fatalf("after replay: %s", r.body)
	}

	// Lists filter, validate, and stay in their environment and organization.
	for q, want := range map[string]float64{"": 1, "?status=delivered": 1, "?status=failed": 0,
		"?eventType=svc.webhook.test": 1, "?eventType=svc.kyc.request.created": 0, "?endpointId=" + ep["id"].(string): 1} {
		if r := e.call("GET", "/v1/webhook-deliveries"+q, e.A.SandboxKey, ""); r.status != 200 || r.json(t)["pagination"].(map[string]any)["totalItems"] != want {
			t.Errorf("list %s: %d %s", q, r.status, r.body)
		}
	}
	for _, q := range []string{"?status=lost", "?eventType=nope", "?sort=x"} {
		if r := e.call("GET", "/v1/webhook-deliveries"+q, e.A.SandboxKey, ""); r.status != 400 {
			t.Errorf("list %s: %d", q, r.status)
		}
	}
	if r := e.call("GET", "/v1/webhook-deliveries", e.A.LiveKey, ""); r.json(t)["pagination"].(map[string]any)["totalItems"] != float64(0) {
		t.Errorf("live sees sandbox deliveries: %s", r.body)
	}
	for _, p := range []string{path, path + "/replay"} {
		method := "GET"
		if p != path {
			method = "POST"
		}
		if r := e.call(method, p, e.B.SandboxKey, ""); r.status != 404 {
			t.Errorf("other org %s: %d", p, r.status)
		}
		if r := e.call(method, p, e.A.LiveKey, ""); r.status != 403 {
			t.Errorf("other environment %s: %d", p, r.status)
		}
	}
	// Deleting the endpoint keeps its deliveries listed, but they cannot be replayed.
	e.call("DELETE", epPath, e.A.SandboxKey, "")
	if r := e.call("GET", path, e.A.SandboxKey, ""); r.status != 200 {
		t.Errorf("delivery of a deleted endpoint: %d", r.status)
	}
	if r := e.call("POST", path+"/replay", e.A.SandboxKey, ""); r.status != 422 {
		t.Errorf("replay to a deleted endpoint: %d %s", r.status, r.body)
	}
}
