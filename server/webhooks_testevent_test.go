package server_test

import "testing"

// TestWebhookTestEventIgnoresSubscription: "Send test event" tests the
// endpoint (spec §6.2), so an endpoint that subscribes only to other
// types gets it too; it used to answer 500 ("test event made 0
// deliveries").
func TestWebhookTestEventIgnoresSubscription(t *testing.T) {
	e := newAPIEnv(t)
	ep := e.call("POST", "/v1/webhook-endpoints", e.A.SandboxKey,
		`{"url":"https://93.184.216.34/kyc","eventTypes":["svc.kyc.request.approved","svc.kyc.request.rejected"]}`).json(t)
	r := e.call("POST", "/v1/webhook-endpoints/"+ep["id"].(string)+"/test", e.A.SandboxKey, "")
	if r.status != 202 {
		t.Fatalf("test event to an endpoint subscribed to other types: %d %s", r.status, r.body)
	}
	d := e.call("GET", "/v1/webhook-deliveries/"+r.json(t)["deliveryId"].(string), e.A.SandboxKey, "").json(t)
	if d["endpointId"] != ep["id"] || d["eventType"] != "svc.webhook.test" {
		t.Errorf("delivery %v", d)
	}
}
