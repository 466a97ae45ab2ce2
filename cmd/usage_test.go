package cmd_test

import (
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// TestUsageCommand: kycd usage prints the month's live counts per day as
// a table or CSV; bad months and unknown organizations are errors.
func TestUsageCommand(t *testing.T) {
	db := newDB(t)
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme Ltd", "--email", "kyc@acme.example")
	org := strings.TrimSpace(out)
	st := openDBWithKey(t, db)
	at := time.Date(2026, 3, 5, 10, 0, 0, 0, time.UTC)
	st.Now = func() time.Time { return at }
	for _, ev := range []struct {
		env kyc.Environment
		m   kyc.UsageMetric
		id  string
	}{
		{kyc.Live, kyc.UsageKYCSubmitted, "kyc_1"}, {kyc.Live, kyc.UsageKYCSubmitted, "kyc_2"},
		{kyc.Live, kyc.UsageAMLChecks, "aml_1"}, {kyc.Sandbox, kyc.UsageAMLChecks, "aml_2"},
	} {
		if err := st.InTx(t.Context(), func(tx *store.Tx) error { return tx.Meter(org, ev.env, ev.m, ev.id) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := run(t, "usage", "--db", db, "--org", org, "--month", "2026-03", "--csv")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 1+31+1 {
		t.Fatalf("usage --csv: %d %q %q", code, out, errOut)
	}
	if lines[0] != "date,kyc_requests_submitted,aml_checks_created,monitoring_rescreens,manual_rescreens" ||
		lines[5] != "2026-03-05,2,1,0,0" || lines[1] != "2026-03-01,0,0,0,0" || lines[32] != "total,2,1,0,0" {
		t.Errorf("usage --csv:\n%s", out)
	}
	code, out, _ = run(t, "usage", "--db", db, "--org", org, "--month", "2026-03")
	if code != 0 || !strings.Contains(out, "2026-03-05") || strings.Contains(out, "2026-03-06") || !strings.Contains(out, "total") {
		t.Errorf("usage table: %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"--org", org, "--month", "2026-3"},
		{"--org", "org_01KE0000000000000000000000", "--month", "2026-03"},
	} {
		if code, _, errOut := run(t, append([]string{"usage", "--db", db}, args...)...); code != 1 || errOut == "" {
			t.Errorf("usage %v: exit %d %q", args, code, errOut)
		}
	}
}
