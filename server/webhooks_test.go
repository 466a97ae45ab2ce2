package server_test

import (
	"strings"
	"testing"

	"kycd/kyc"
)

func TestWebhookEndpoints(t *testing.T) {
	e := newAPIEnv(t, allowPrivateWebhooks)
	r := e.call("POST", "/v1/webhook-endpoints", e.A.SandboxKey, `{"url":"http://127.0.0.1:9/hook","description":"dev","eventTypes":["svc.kyc.request.approved","svc.webhook.test"]}`)
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	ep := r.json(t)
	secret, _ := ep["secret"].(string)
	id := ep["id"].(string)
	if !strings.HasPrefix(secret, "whsec_") || ep["enabled"] != true || len(ep["eventTypes"].([]any)) != 2 {
		t.Fatalf("created: %s", r.body)
	}
	// The secret is never shown again.
	for _, path := range []string{"/v1/webhook-endpoints/" + id, "/v1/webhook-endpoints"} {
		if r := e.call("GET", path, e.A.SandboxKey, ""); r.status != 200 || strings.Contains(string(r.body), "whsec_") {
			t.Errorf("GET %s: %d %s", path, r.status, r.body)
		}
	}
	for _, tt := range []struct {
		name, key, body string
		fields          []string
	}{
		{"missing url", e.A.SandboxKey, `{}`, []string{"url"}},
		{"relative url", e.A.SandboxKey, `{"url":"/hook"}`, []string{"url"}},
		{"credentials in url", e.A.SandboxKey, `{"url":"https://u:p@example.com/"}`, []string{"url"}},
		{"http in live", e.A.LiveKey, `{"url":"http://93.184.216.34/hook"}`, []string{"url"}},
		{"unknown event type", e.A.SandboxKey, `{"url":"http://x.example/","eventTypes":["svc.webhook.test","svc.kyc.nope"]}`, []string{"eventTypes[1]"}},
		{"event types not an array", e.A.SandboxKey, `{"url":"http://x.example/","eventTypes":"all"}`, []string{"eventTypes"}},
		{"unknown field", e.A.SandboxKey, `{"url":"http://x.example/","secret":"mine"}`, []string{"secret"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.call("POST", "/v1/webhook-endpoints", tt.key, tt.body)
			if r.status != 400 || r.errCode(t) != "VALIDATION_ERROR" {
				t.Fatalf("%d %s", r.status, r.body)
			}
			details := r.json(t)["error"].(map[string]any)["details"].([]any)
			if len(details) != len(tt.fields) || details[0].(map[string]any)["field"] != tt.fields[0] {
				t.Errorf("details %v, want fields %v", details, tt.fields)
			}
		})
	}
	if r := e.call("POST", "/v1/webhook-endpoints", e.A.LiveKey, `{"url":"https://93.184.216.34/hook"}`); r.status != 201 || r.json(t)["environment"] != "live" {
		t.Errorf("live endpoint with a public address: %d %s", r.status, r.body)
	}

	// Update, disable, enable.
	path := "/v1/webhook-endpoints/" + id
	if r := e.call("PATCH", path, e.A.SandboxKey, `{"enabled":false,"eventTypes":[]}`); r.status != 200 || r.json(t)["enabled"] != false ||
		r.json(t)["disabledReason"] != "disabled through the API" || len(r.json(t)["eventTypes"].([]any)) != 0 {
		t.Fatalf("disable: %d %s", r.status, r.body)
	}
	if r := e.call("POST", path+"/test", e.A.SandboxKey, ""); r.status != 422 {
		t.Errorf("test to a disabled endpoint: %d %s", r.status, r.body)
	}
	if r := e.call("PATCH", path, e.A.SandboxKey, `{"enabled":true,"description":null}`); r.status != 200 || r.json(t)["enabled"] != true ||
		r.json(t)["disabledReason"] != nil || r.json(t)["description"] != "dev" {
		t.Fatalf("enable: %d %s", r.status, r.body)
	}

	// Test event: one event, one delivery, to this endpoint only.
	r = e.call("POST", path+"/test", e.A.SandboxKey, "")
	if r.status != 202 || !strings.HasPrefix(r.json(t)["deliveryId"].(string), "whd_") {
		t.Fatalf("test: %d %s", r.status, r.body)
	}
	if status, _, err := e.store.DeliveryStatus(t.Context(), r.json(t)["deliveryId"].(string)); err != nil || status != "pending" {
		t.Errorf("test delivery: %s %v", status, err)
	}

	// Rotation: a new secret, shown once; the overlap is bounded.
	r = e.call("POST", path+"/rotate-secret", e.A.SandboxKey, `{"overlapHours":2}`)
	if r.status != 200 || r.json(t)["secret"] == secret || !strings.HasPrefix(r.json(t)["secret"].(string), "whsec_") {
		t.Fatalf("rotate: %d %s", r.status, r.body)
	}
	if r := e.call("POST", path+"/rotate-secret", e.A.SandboxKey, `{"overlapHours":500}`); r.status != 400 {
		t.Errorf("overlap 500 h: %d", r.status)
	}
	if r := e.call("POST", path+"/rotate-secret", e.A.SandboxKey, `{"overlapHours":"2"}`); r.status != 400 {
		t.Errorf("overlap as a string: %d", r.status)
	}

	// Isolation: other organization 404, other environment 403.
	for _, op := range []struct{ method, suffix, body string }{
		{"GET", "", ""}, {"PATCH", "", `{"description":"x"}`}, {"DELETE", "", ""},
		{"POST", "/rotate-secret", ""}, {"POST", "/test", ""},
	} {
		if r := e.call(op.method, path+op.suffix, e.B.SandboxKey, op.body); r.status != 404 {
			t.Errorf("other org %s %s: %d", op.method, op.suffix, r.status)
		}
		if r := e.call(op.method, path+op.suffix, e.A.LiveKey, op.body); r.status != 403 || r.errCode(t) != kyc.EWrongEnvironment {
			t.Errorf("other environment %s %s: %d", op.method, op.suffix, r.status)
		}
	}
	if r := e.call("GET", "/v1/webhook-endpoints", e.A.LiveKey, ""); r.json(t)["pagination"].(map[string]any)["totalItems"] != float64(1) {
		t.Errorf("live list: %s", r.body)
	}

	// Delete: 204, then gone.
	if r := e.call("DELETE", path, e.A.SandboxKey, ""); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if r := e.call("GET", path, e.A.SandboxKey, ""); r.status != 404 {
		t.Errorf("after delete: %d", r.status)
	}
}

// TestWebhookEndpointChangesAudited: creating an endpoint, changing its
// URL, rotating its secret and deleting it are audit rows naming the key
// that did it; no secret is in them.
func TestWebhookEndpointChangesAudited(t *testing.T) {
	e := newAPIEnv(t, allowPrivateWebhooks)
	r := e.call("POST", "/v1/webhook-endpoints", e.A.SandboxKey, `{"url":"http://127.0.0.1:9/hook"}`)
	id, secret := r.json(t)["id"].(string), r.json(t)["secret"].(string)
	path := "/v1/webhook-endpoints/" + id
	e.call("PATCH", path, e.A.SandboxKey, `{"url":"http://127.0.0.1:9/other","description":"x"}`)
	e.call("PATCH", path, e.A.SandboxKey, `{"description":"only the label"}`)
	rotated := e.call("POST", path+"/rotate-secret", e.A.SandboxKey, `{"overlapHours":0}`).json(t)["secret"].(string)
	if r := e.call("DELETE", path, e.A.SandboxKey, ""); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	rows, err := e.store.FindAudit(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, a := range rows {
		actions = append(actions, a.Action)
		if a.ActorType != kyc.ActorAPIKey || a.ActorID == nil || *a.ActorID != "key_"+e.A.SandboxID || a.OrganizationID != e.A.ID {
			t.Errorf("%s: actor %s %v, org %s", a.Action, a.ActorType, a.ActorID, a.OrganizationID)
		}
		if a.Reason != nil && (strings.Contains(*a.Reason, secret) || strings.Contains(*a.Reason, rotated)) {
			t.Errorf("%s: the reason holds a secret", a.Action)
		}
	}
	want := "webhook_endpoint.created webhook_endpoint.updated webhook_endpoint.updated webhook_endpoint.secret_rotated webhook_endpoint.deleted"
	if got := strings.Join(actions, " "); got != want {
		t.Errorf("audit actions %q, want %q", got, want)
	}
	if len(rows) > 1 && (rows[1].Reason == nil || !strings.Contains(*rows[1].Reason, "http://127.0.0.1:9/hook → http://127.0.0.1:9/other")) {
		t.Errorf("URL change not described: %v", rows[1].Reason)
	}
	if v, err := e.store.VerifyAudit(t.Context(), nil); err != nil || !v.OK() {
		t.Errorf("verify: %+v %v", v.Broken, err)
	}
}

// TestWebhookTargetsMustBePublic: issue #9 — a sandbox endpoint could
// point at the internal network, and `…/test` then posted there. Without
// --allow-private-webhooks, internal targets are refused at creation in
// both environments, for endpoints (create and PATCH) and for a KYC
// request's callbackUrl, including the IPv6 forms that embed IPv4.
func TestWebhookTargetsMustBePublic(t *testing.T) {
	e := newAPIEnv(t)
	internal := []string{
		"http://127.0.0.1:8080/hook", "http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/",
		"http://10.0.0.1:2375/containers/json", "http://[::7f00:1]/", "http://[::127.0.0.1]/", "http://[2002:7f00:1::]/",
		"http://[::ffff:0:127.0.0.1]/", "http://[64:ff9b::7f00:1]/", "http://[64:ff9b:1::1]/", "http://localhost/",
	}
	public := `{"url":"http://93.184.216.34/hook"}`
	ep := e.call("POST", "/v1/webhook-endpoints", e.A.SandboxKey, public)
	if ep.status != 201 {
		t.Fatalf("public endpoint: %d %s", ep.status, ep.body)
	}
	patch := "/v1/webhook-endpoints/" + ep.json(t)["id"].(string)
	for _, u := range internal {
		for _, key := range []string{e.A.SandboxKey, e.A.LiveKey} {
			if key == e.A.LiveKey {
				u = "https" + strings.TrimPrefix(u, "http")
			}
			if r := e.call("POST", "/v1/webhook-endpoints", key, `{"url":"`+u+`"}`); r.status != 400 || !strings.Contains(string(r.body), "private or internal") ||
				!strings.Contains(string(r.body), "--allow-private-webhooks") {
				t.Errorf("create %s: %d %s, want the refusal saying how to allow it", u, r.status, r.body)
			}
			if r := e.call("POST", "/v1/kyc-requests", key, `{"applicant":{"firstName":"A","lastName":"B"},"callbackUrl":"`+u+`"}`); r.status != 400 ||
				!strings.Contains(string(r.body), `"field":"callbackUrl"`) {
				t.Errorf("callbackUrl %s: %d %s", u, r.status, r.body)
			}
		}
		if r := e.call("PATCH", patch, e.A.SandboxKey, `{"url":"`+u+`"}`); r.status != 400 {
			t.Errorf("PATCH to %s: %d %s", u, r.status, r.body)
		}
	}
	// The operator's switch lets them through (on-prem networks).
	allowed := newAPIEnv(t, allowPrivateWebhooks)
	if r := allowed.call("POST", "/v1/webhook-endpoints", allowed.A.SandboxKey, `{"url":"http://10.0.0.1:2375/"}`); r.status != 201 {
		t.Errorf("with --allow-private-webhooks: %d %s", r.status, r.body)
	}
}

// TestWebhookDualSignSetting: dualSignDuringOverlap is off unless asked
// for, at creation, by PATCH or with a rotation, and the rotation's
// overlap is shown.
func TestWebhookDualSignSetting(t *testing.T) {
	e := newAPIEnv(t, allowPrivateWebhooks)
	ep := e.call("POST", "/v1/webhook-endpoints", e.A.SandboxKey, `{"url":"http://127.0.0.1:9/"}`).json(t)
	path := "/v1/webhook-endpoints/" + ep["id"].(string)
	if ep["dualSignDuringOverlap"] != false || ep["previousSecretExpiresAt"] != nil {
		t.Errorf("default: %v", ep)
	}
	r := e.call("POST", path+"/rotate-secret", e.A.SandboxKey, `{"overlapHours":2}`).json(t)
	if r["dualSignDuringOverlap"] != false || r["previousSecretExpiresAt"] != "2026-01-02T05:04:05.000Z" {
		t.Errorf("rotated: %v", r)
	}
	r = e.call("POST", path+"/rotate-secret", e.A.SandboxKey, `{"dualSignDuringOverlap":true}`).json(t)
	if r["dualSignDuringOverlap"] != true || r["previousSecretExpiresAt"] != "2026-01-03T03:04:05.000Z" {
		t.Errorf("rotated with dual signing: %v", r)
	}
	if r := e.call("PATCH", path, e.A.SandboxKey, `{"dualSignDuringOverlap":false}`).json(t); r["dualSignDuringOverlap"] != false {
		t.Errorf("PATCH: %v", r)
	}
	created := e.call("POST", "/v1/webhook-endpoints", e.A.SandboxKey, `{"url":"http://127.0.0.1:9/","dualSignDuringOverlap":true}`).json(t)
	if created["dualSignDuringOverlap"] != true {
		t.Errorf("created with dual signing: %v", created)
	}
	if r := e.call("POST", "/v1/webhook-endpoints", e.A.SandboxKey, `{"url":"http://127.0.0.1:9/","dualSignDuringOverlap":"yes"}`); r.status != 400 {
		t.Errorf("dualSignDuringOverlap as a string: %d", r.status)
	}
}
