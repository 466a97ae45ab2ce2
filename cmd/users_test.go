package cmd_test

import (
	"regexp"
	"strings"
	"testing"
)

var linkLine = regexp.MustCompile(`^https://kyc\.example\.com/console/set-password\?token=[0-9A-Za-z]{32,}\n$`)

// TestUsersCLI: users create prints the one-time link (and queues the
// e-mail); a duplicate address and a bad role are refused; list shows the
// user invited; disable and enable work; the last admin cannot be disabled.
func TestUsersCLI(t *testing.T) {
	db := newDB(t)
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme Ltd")
	org := strings.TrimSpace(out)
	code, out, errOut := run(t, "users", "create", "--db", db, "--org", org, "--email", "ada@acme.example", "--name", "Ada Admin",
		"--role", "admin", "--base-url", "https://kyc.example.com/")
	if code != 0 || !linkLine.MatchString(out) || !strings.Contains(errOut, "usr_") {
		t.Fatalf("users create: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run(t, "users", "create", "--db", db, "--org", org, "--email", "ADA@acme.example", "--role", "viewer"); code != 1 ||
		!strings.Contains(errOut, "already exists") {
		t.Errorf("duplicate e-mail: %d %q", code, errOut)
	}
	if code, _, _ := run(t, "users", "create", "--db", db, "--org", org, "--email", "x@acme.example", "--role", "boss"); code != 2 {
		t.Errorf("bad role: %d, want a usage error", code)
	}
	if code, _, errOut := run(t, "users", "create", "--db", db, "--org", org, "--email", "not-an-address", "--role", "viewer"); code != 1 ||
		!strings.Contains(errOut, "--email") {
		t.Errorf("bad e-mail: %d %q", code, errOut)
	}
	code, out, _ = run(t, "users", "list", "--db", db, "--org", org)
	if code != 0 || !strings.Contains(out, "ada@acme.example") || !strings.Contains(out, "invited") {
		t.Fatalf("users list: %d %q", code, out)
	}
	id := regexp.MustCompile(`usr_[0-9A-Z]{26}`).FindString(out)
	if code, _, errOut := run(t, "users", "disable", "--db", db, "--org", org, id); code != 1 || !strings.Contains(errOut, "at least one enabled admin") {
		t.Errorf("disable the only admin: %d %q", code, errOut)
	}
	if code, out, _ := run(t, "users", "link", "--db", db, "--org", org, "--base-url", "https://kyc.example.com", id); code != 0 || !linkLine.MatchString(out) {
		t.Errorf("users link: %d %q", code, out)
	}
}
