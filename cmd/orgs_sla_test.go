package cmd_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOrgsReviewSLA: kycd orgs update sets, validates and removes the
// review due time per environment, and audits each change.
func TestOrgsReviewSLA(t *testing.T) {
	db := initDB(t, filepath.Join(t.TempDir(), "kyc.db"))
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme Ltd")
	org := strings.TrimSpace(out)
	code, out, errOut := run(t, "orgs", "update", org, "--db", db, "--review-sla-live", "24", "--review-sla-sandbox", "none")
	if code != 0 || out != org+": live review due time 24 h after submission\n"+org+": sandbox review due time none\n" {
		t.Fatalf("update: %d %q %q", code, out, errOut)
	}
	for _, bad := range []string{"0", "8761", "1.5", "day"} {
		if code, _, errOut := run(t, "orgs", "update", org, "--db", db, "--review-sla-live", bad); code != 1 || !strings.Contains(errOut, "--review-sla-live") {
			t.Errorf("%q: exit %d %q, want refused", bad, code, errOut)
		}
	}
	if code, rows, errOut := run(t, "audit", "export", "--db", db); code != 0 || !strings.Contains(rows, "review SLA: 24 h") || !strings.Contains(rows, "review SLA: none") {
		t.Errorf("no audit rows for the changes: %d %q\n%s", code, errOut, rows)
	}
}
