package console_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/server"
	"kycd/store"
	"kycd/webhook"
)

// TestBrowserAdmin is an admin's part-2 day in Chromium: the usage page
// and its chart, a webhook endpoint created (secret shown once) and sent a
// test event, its delivery with the attempt, an API key created, the
// audit log verified. Every page is checked at 1280 and 390 px (no CSP
// violation, no serious or critical axe-core violation, no horizontal
// scrolling) and kept as a screenshot.
func TestBrowserAdmin(t *testing.T) {
	e := newEnv(t, func(_ *env, o *server.Options) { o.AllowPrivateWebhooks = true })
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"received":true}`)) }))
	defer rc.Close()
	runner := jobs.New(jobs.Options{Store: e.st, Now: e.clock.Now})
	(&webhook.Dispatcher{Store: e.st, Box: e.box, Sender: webhook.NewSender(true), Now: e.clock.Now}).Register(runner)
	// Some billed usage this month, on a few days.
	for i, m := range []kyc.UsageMetric{kyc.UsageKYCSubmitted, kyc.UsageAMLChecks, kyc.UsageAMLChecks, kyc.UsageMonitoringRescreens, kyc.UsageKYCSubmitted} {
		id := string(m) + string(rune('a'+i))
		if err := e.st.InTx(t.Context(), func(tx *store.Tx) error { return tx.Meter(e.org.ID, kyc.Live, m, id) }); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(26 * time.Hour)
	}
	admin := e.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	base := e.srv.URL
	b := newTab(t, 1280)
	b.signIn(base, admin)

	// kycd's front page (issue 23 item 15), with the console's headers.
	b.open(base, "/")
	b.check("front-page")

	b.open(base, "/console/usage")
	if n := eval[int](b, `document.querySelectorAll('#usage-chart rect').length`); n != 5 {
		t.Errorf("%d bars in the chart, want 5", n)
	}
	b.check("usage")

	b.open(base, "/console/sandbox/webhooks")
	b.check("webhooks-empty")
	b.typeInto("#new-url", rc.URL+"/hooks/kycd")
	b.typeInto("#new-desc", "CRM sync")
	b.click(`form[action="/console/sandbox/webhooks"] button[type=submit]`)
	if !strings.Contains(b.body(), "shown this once") || !strings.HasPrefix(eval[string](b, `document.getElementById('endpoint-secret').textContent`), "whsec_") {
		t.Fatalf("no secret shown: %s", b.body())
	}
	b.check("webhook-created")
	b.click(`form[action$="/test"] button`)
	deliveryPage := eval[string](b, `location.pathname`)
	if !strings.HasPrefix(deliveryPage, "/console/sandbox/deliveries/whd_") {
		t.Fatalf("test event went to %s", deliveryPage)
	}
	for i := 0; i < 5; i++ {
		if n, err := runner.RunOnce(t.Context()); err != nil || n == 0 {
			break
		}
	}
	b.open(base, deliveryPage)
	if !strings.Contains(b.body(), "Attempt 1") || !strings.Contains(b.body(), "HTTP 200") {
		t.Errorf("delivery page after the attempt: %s", b.body())
	}
	b.check("delivery")
	endpointPage := eval[string](b, `document.querySelector('a[href^="/console/sandbox/webhooks/we_"]').getAttribute('href')`)
	b.open(base, endpointPage)
	b.check("webhook")

	b.open(base, "/console/sandbox/keys")
	b.typeInto("#key-name", "billing service")
	b.submit()
	if !strings.HasPrefix(eval[string](b, `document.getElementById('new-key').textContent`), "svc_test_") {
		t.Fatalf("no key shown: %s", b.body())
	}
	b.check("keys")

	e.api(e.org.SandboxKey, "POST", "/v1/applicants", map[string]any{"firstName": "Grace", "lastName": "Hopper", "externalRef": "crm-000000000000000000001"}, 201)
	b.open(base, "/console/audit")
	b.click(`form[action^="/console/audit/verify"] button`)
	if !strings.Contains(b.body(), "The chain verifies") {
		t.Errorf("verify: %s", b.body())
	}
	b.check("audit")
	b.tableFits("audit")

	b.resize(390)
	for _, p := range []struct{ name, path string }{
		{"usage", "/console/usage"}, {"webhooks", "/console/sandbox/webhooks"}, {"webhook", endpointPage},
		{"keys", "/console/sandbox/keys"}, {"audit", "/console/audit"},
	} {
		b.open(base, p.path)
		b.check(p.name)
		if p.name == "audit" {
			b.tableFits("audit")
		}
	}
}

// tableFits fails when a table is wider than its scrolling box: its last
// columns would be out of sight (issue 23 item 13: the audit log's Change
// column was, at 1280 px).
func (b *tab) tableFits(id string) {
	b.t.Helper()
	got := eval[[]int64](b, `(function () { var t = document.getElementById('`+id+`'); var w = t.closest('.table-wrap');
  return [t.scrollWidth, w.clientWidth, t.querySelectorAll('tbody tr').length]; })()`)
	if got[2] == 0 || got[0] > got[1]+1 {
		b.fail(fmt.Errorf("table %s at %d px: %d px wide in a %d px box (%d rows)", id, b.width, got[0], got[1], got[2]))
	}
}
