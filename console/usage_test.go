package console_test

import (
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// TestUsagePage: the month's live totals, a bar per metered day in the
// chart with its numbers in the table, other months and sandbox empty,
// and a bad month refused.
func TestUsagePage(t *testing.T) {
	e := newEnv(t)
	meter := func(env kyc.Environment, m kyc.UsageMetric, id string) {
		t.Helper()
		if err := e.st.InTx(t.Context(), func(tx *store.Tx) error { return tx.Meter(e.org.ID, env, m, id) }); err != nil {
			t.Fatal(err)
		}
	}
	meter(kyc.Live, kyc.UsageKYCSubmitted, "kyc_1")
	meter(kyc.Live, kyc.UsageAMLChecks, "aml_1")
	meter(kyc.Sandbox, kyc.UsageAMLChecks, "aml_2")
	e.clock.Advance(3 * 24 * time.Hour)
	meter(kyc.Live, kyc.UsageMonitoringRescreens, "ams_1")
	meter(kyc.Live, kyc.UsageMonitoringRescreens, "ams_2")

	b := e.browser()
	b.login(e.mustUser("viewer@acme.example", "Vera Viewer", kyc.RoleViewer))
	pg := b.get("/console/usage")
	text := pg.text()
	if pg.status != 200 || !strings.Contains(text, "Usage in 2026-01") ||
		!strings.Contains(text, "KYC requests submitted 1") || !strings.Contains(text, "AML checks created 1") ||
		!strings.Contains(text, "Monitoring re-screens 2") || !strings.Contains(text, "Manual re-screens 0") {
		t.Fatalf("usage page: %d %s", pg.status, text)
	}
	if n := strings.Count(pg.body, "<rect "); n != 3 {
		t.Errorf("%d bars, want 3 (two kinds on the 2nd, one on the 5th)", n)
	}
	if !strings.Contains(text, "2026-01-02 1 1 0 0 2") || !strings.Contains(text, "2026-01-05 0 0 2 0 2") {
		t.Errorf("day table: %s", text)
	}
	if !strings.Contains(pg.body, "4 in all, at most 2 on one day") {
		t.Errorf("chart summary missing: %s", text)
	}
	if pg := b.get("/console/usage?month=2025-12"); pg.status != 200 || strings.Count(pg.body, "<rect ") != 0 ||
		!strings.Contains(pg.text(), "No billable events in 2025-12") {
		t.Errorf("December: %d %s", pg.status, pg.text())
	}
	if pg := b.get("/console/usage?month=2026-1"); pg.status != 400 {
		t.Errorf("bad month: %d %s", pg.status, pg.text())
	}
}
