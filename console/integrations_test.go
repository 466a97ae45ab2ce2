package console_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/server"
	"kycd/store"
)

var (
	secretRE = regexp.MustCompile(`whsec_[0-9A-Za-z]+`)
	keyRE    = regexp.MustCompile(`svc_test_[0-9A-Z]{26}\.[0-9A-Za-z]{43}`)
)

// TestIntegrationsPages: an admin manages a sandbox webhook endpoint
// (secret shown once, edit, test event, disable and re-enable, rotate,
// delete) and API keys (shown once, last use and 24 h count, revoke) in
// the console; each change is audited with the user as actor, and the
// API sees the same endpoint and key.
func TestIntegrationsPages(t *testing.T) {
	e := newEnv(t, func(_ *env, o *server.Options) { o.AllowPrivateWebhooks = true })
	admin := e.mustUser("admin@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := e.browser()
	b.login(admin)

	// Create: the secret is on the answer, and nowhere after.
	pg := b.post("/console/sandbox/webhooks", "url", "http://127.0.0.1:9/hook", "description", "CRM", "events", "svc.kyc.request.approved",
		"events", "svc.webhook.test")
	secret := secretRE.FindString(pg.body)
	if pg.status != 200 || secret == "" || pg.header.Get("Cache-Control") != "no-store" || !strings.Contains(pg.text(), "shown this once") {
		t.Fatalf("create: %d %q %s", pg.status, pg.header.Get("Cache-Control"), pg.text())
	}
	eps := e.api(e.org.SandboxKey, "GET", "/v1/webhook-endpoints", nil, 200)["data"].([]any)
	if len(eps) != 1 {
		t.Fatalf("API sees %d endpoints", len(eps))
	}
	ep := eps[0].(map[string]any)
	id := ep["id"].(string)
	if ep["description"] != "CRM" || len(ep["eventTypes"].([]any)) != 2 {
		t.Errorf("endpoint via API: %v", ep)
	}
	path := "/console/sandbox/webhooks/" + id
	if pg := b.get(path); secretRE.MatchString(pg.body) || !strings.Contains(pg.body, "http://127.0.0.1:9/hook") {
		t.Errorf("the endpoint page shows a secret or not the URL: %s", pg.text())
	}
	// Bad input comes back at the field, keeping what was typed.
	if pg := b.post("/console/sandbox/webhooks", "url", "ftp://x", "description", "typed"); pg.status != 400 ||
		!strings.Contains(pg.body, `value="typed"`) || !strings.Contains(pg.body, "field-error") {
		t.Errorf("bad URL: %d %s", pg.status, pg.text())
	}
	// Edit: every event (none ticked).
	if pg := b.post(path, "url", "http://127.0.0.1:9/hook2", "description", "CRM 2"); pg.status != http.StatusSeeOther {
		t.Fatalf("edit: %d %s", pg.status, pg.text())
	}
	got := e.api(e.org.SandboxKey, "GET", "/v1/webhook-endpoints/"+id, nil, 200)
	if got["url"] != "http://127.0.0.1:9/hook2" || len(got["eventTypes"].([]any)) != 0 {
		t.Errorf("after edit: %v", got)
	}
	// Send test event: to the delivery's page.
	pg = b.post(path + "/test")
	loc := pg.header.Get("Location")
	if pg.status != http.StatusSeeOther || !strings.HasPrefix(loc, "/console/sandbox/deliveries/whd_") {
		t.Fatalf("test event: %d %s", pg.status, loc)
	}
	if pg := b.get(loc); pg.status != 200 || !strings.Contains(pg.text(), "svc.webhook.test") || !strings.Contains(pg.text(), "Being attempted") {
		t.Errorf("delivery page: %d %s", pg.status, pg.text())
	}
	if pg := b.get(path + "?status=pending"); !strings.Contains(pg.text(), "1 delivery match") {
		t.Errorf("filtered log: %s", pg.text())
	}
	if pg := b.get(path + "?status=failed&since=24h"); !strings.Contains(pg.text(), "0 deliveries match") {
		t.Errorf("filtered log (failed): %s", pg.text())
	}
	if pg := b.get(path + "?since=yesterday"); pg.status != 400 {
		t.Errorf("bad filter: %d", pg.status)
	}
	// Disable, then the page says so and offers re-enabling.
	b.post(path+"/enabled", "enabled", "false")
	if pg := b.get(path); !strings.Contains(pg.text(), "disabled") || !strings.Contains(pg.text(), "Re-enable") {
		t.Errorf("disabled page: %s", pg.text())
	}
	b.post(path+"/enabled", "enabled", "true")
	if got := e.api(e.org.SandboxKey, "GET", "/v1/webhook-endpoints/"+id, nil, 200); got["enabled"] != true {
		t.Errorf("re-enabled: %v", got)
	}
	// Rotate: a new secret, shown once.
	pg = b.post(path+"/rotate", "overlap", "2")
	if s2 := secretRE.FindString(pg.body); pg.status != 200 || s2 == "" || s2 == secret {
		t.Errorf("rotate: %d new secret %q", pg.status, s2)
	}
	if pg := b.post(path+"/rotate", "overlap", "999"); pg.status != 400 {
		t.Errorf("overlap 999: %d", pg.status)
	}

	// Keys: create (shown once), used through the API, revoked.
	pg = b.post("/console/sandbox/keys", "name", "billing service")
	token := keyRE.FindString(pg.body)
	if pg.status != 200 || token == "" {
		t.Fatalf("key create: %d %s", pg.status, pg.text())
	}
	for i := 0; i < 3; i++ {
		e.api(token, "GET", "/v1/applicants", nil, 200)
	}
	if err := e.server.FlushKeyUse(t.Context()); err != nil {
		t.Fatal(err)
	}
	pg = b.get("/console/sandbox/keys")
	if keyRE.MatchString(pg.body) || !regexp.MustCompile(`billing service free 2026-01-02 03:04 UTC from 127\.0\.0\.1 3 `).MatchString(pg.text()) {
		t.Errorf("keys page: %s", pg.text())
	}
	keyID := strings.TrimPrefix(strings.SplitN(token, ".", 2)[0], "svc_test_")
	if pg := b.post("/console/live/keys/" + keyID + "/revoke"); pg.status != 404 {
		t.Errorf("revoke through the other environment: %d", pg.status)
	}
	if pg := b.post("/console/sandbox/keys/" + keyID + "/revoke"); pg.status != http.StatusSeeOther {
		t.Fatalf("revoke: %d %s", pg.status, pg.text())
	}
	e.api(token, "GET", "/v1/applicants", nil, 401)

	// Delete the endpoint.
	if pg := b.post(path + "/delete"); pg.status != http.StatusSeeOther {
		t.Fatalf("delete: %d", pg.status)
	}
	e.api(e.org.SandboxKey, "GET", "/v1/webhook-endpoints/"+id, nil, 404)

	// Every change is in the audit log with the user as its actor.
	for _, res := range []string{id, keyID} {
		rows, err := e.st.FindAudit(t.Context(), res)
		if err != nil || len(rows) < 2 {
			t.Fatalf("audit of %s: %v %v", res, rows, err)
		}
		for _, a := range rows {
			if a.ActorType != kyc.ActorUser || a.ActorID == nil || *a.ActorID != admin.User.ID {
				t.Errorf("audit %s %s by %s %v, want the user", res, a.Action, a.ActorType, a.ActorID)
			}
		}
	}
}

// TestCallbackSecretAndDualSign: an admin makes and rotates the callback
// secret of an environment (shown once; the API's GET tells when it was
// rotated, never the secret) and asks for dual signatures on an
// endpoint's rotation; both are audited with the user.
func TestCallbackSecretAndDualSign(t *testing.T) {
	e := newEnv(t, func(_ *env, o *server.Options) { o.AllowPrivateWebhooks = true })
	admin := e.mustUser("admin@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := e.browser()
	b.login(admin)
	if pg := b.get("/console/live/webhooks"); !strings.Contains(pg.text(), "There is none yet") {
		t.Fatalf("webhooks page before any callback secret: %s", pg.text())
	}
	if pg := b.post("/console/live/callback-secret/rotate", "overlap", "500"); pg.status != http.StatusBadRequest || !strings.Contains(pg.text(), "from 0 to 168 hours") {
		t.Errorf("overlap 500: %d %s", pg.status, pg.text())
	}
	first := b.post("/console/live/callback-secret/rotate", "overlap", "24")
	s1 := secretRE.FindString(first.body)
	if first.status != http.StatusOK || s1 == "" || first.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("make: %d %s", first.status, first.text())
	}
	second := b.post("/console/live/callback-secret/rotate", "overlap", "12", "dualSign", "true")
	s2 := secretRE.FindString(second.body)
	if s2 == "" || s2 == s1 || !strings.Contains(second.text(), "The previous secret stays valid until") {
		t.Fatalf("rotate: %s", second.text())
	}
	pg := b.get("/console/live/webhooks")
	if secretRE.MatchString(pg.body) || !strings.Contains(pg.text(), "last rotated") || !strings.Contains(pg.text(), "with a second sig=") {
		t.Errorf("webhooks page after rotation: %s", pg.text())
	}
	got := e.api(e.org.LiveKey, "GET", "/v1/callback-secret", nil, 200)
	if got["rotatedAt"] == nil || got["dualSignDuringOverlap"] != true {
		t.Errorf("API after rotation: %v", got)
	}
	// The sandbox has its own, untouched.
	e.api(e.org.SandboxKey, "GET", "/v1/callback-secret", nil, 404)

	pg = b.post("/console/sandbox/webhooks", "url", "http://127.0.0.1:9/hook")
	id := regexp.MustCompile(`we_[0-9A-Z]{26}`).FindString(pg.body)
	if pg := b.post("/console/sandbox/webhooks/"+id+"/rotate", "overlap", "24", "dualSign", "true"); pg.status != http.StatusOK {
		t.Fatalf("endpoint rotate: %d %s", pg.status, pg.text())
	}
	if ep := e.api(e.org.SandboxKey, "GET", "/v1/webhook-endpoints/"+id, nil, 200); ep["dualSignDuringOverlap"] != true {
		t.Errorf("endpoint after a dual-sign rotation: %v", ep)
	}
	rows, err := e.st.FindAuditRows(t.Context(), store.AuditFilter{OrganizationID: e.org.ID, Actor: admin.User.ID, Action: "callback_secret."}, 10)
	if err != nil || len(rows) != 2 {
		t.Errorf("callback secret audit rows by the admin: %d (%v)", len(rows), err)
	}
}
