package cmd_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOrgsContactEmail is issue 23 item 22: kycd orgs update sets,
// validates and clears an organization's contact address (serve's first
// start makes one without), and orgs create refuses an invalid one.
func TestOrgsContactEmail(t *testing.T) {
	db := initDB(t, filepath.Join(t.TempDir(), "kyc.db"))
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme Ltd")
	org := strings.TrimSpace(out)
	code, out, errOut := run(t, "orgs", "update", org, "--db", db, "--contact-email", " compliance@acme.example ")
	if code != 0 || !strings.Contains(out, org+": contact e-mail compliance@acme.example\n") {
		t.Fatalf("update: %d %q %q", code, out, errOut)
	}
	if _, out, _ := run(t, "orgs", "list", "--db", db); !strings.Contains(out, "compliance@acme.example") {
		t.Errorf("orgs list does not show it: %s", out)
	}
	for _, bad := range []string{"not an address", "Ops <ops@acme.example>", "ops@localhost", "a@b.example,c@d.example"} {
		code, _, errOut := run(t, "orgs", "update", org, "--db", db, "--contact-email", bad)
		if code != 1 || !strings.Contains(errOut, "--contact-email") {
			t.Errorf("%q: exit %d %q, want refused", bad, code, errOut)
		}
		if code, _, _ := run(t, "orgs", "create", "--db", db, "--name", "Bad", "--email", bad); code != 1 {
			t.Errorf("orgs create --email %q: exit %d, want refused", bad, code)
		}
	}
	if _, out, _ := run(t, "orgs", "list", "--db", db); !strings.Contains(out, "compliance@acme.example") || strings.Contains(out, "Bad") {
		t.Errorf("a refused change was written: %s", out)
	}
	if code, out, errOut := run(t, "orgs", "update", org, "--db", db, "--contact-email", ""); code != 0 || !strings.Contains(out, "contact e-mail (none)") {
		t.Errorf("clear: %d %q %q", code, out, errOut)
	}
	if code, rows, errOut := run(t, "audit", "export", "--db", db); code != 0 || !strings.Contains(rows, "organization.contact_email_changed") {
		t.Errorf("no audit row for the change: %d %q", code, errOut)
	}
}
