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

// TestUsersInstallationAdmin: the operator makes an admin an installation
// admin at creation or later, and revokes it; a reviewer is refused with a
// clear message; every change is in the audit chain.
func TestUsersInstallationAdmin(t *testing.T) {
	db := newDB(t)
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme Ltd")
	org := strings.TrimSpace(out)
	code, _, errOut := run(t, "users", "create", "--db", db, "--org", org, "--email", "ada@acme.example", "--role", "admin", "--installation-admin")
	if code != 0 || !strings.Contains(errOut, "admin, installation admin") {
		t.Fatalf("users create --installation-admin: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "users", "create", "--db", db, "--org", org, "--email", "rev@acme.example", "--role", "reviewer",
		"--installation-admin"); code != 1 || !strings.Contains(errOut, "for admins only") {
		t.Errorf("a reviewer created as installation admin: %d %q", code, errOut)
	}
	run(t, "users", "create", "--db", db, "--org", org, "--email", "rev@acme.example", "--role", "reviewer")
	run(t, "users", "create", "--db", db, "--org", org, "--email", "bob@acme.example", "--role", "admin")
	_, out, _ = run(t, "users", "list", "--db", db, "--org", org)
	id := func(email string) string {
		t.Helper()
		for line := range strings.Lines(out) {
			if strings.Contains(line, email) {
				return regexp.MustCompile(`usr_[0-9A-Z]{26}`).FindString(line)
			}
		}
		t.Fatalf("%s not in %q", email, out)
		return ""
	}
	if !regexp.MustCompile(`ada@acme\.example.*admin\+installation`).MatchString(out) || strings.Contains(out, "bob@acme.example  Bob  admin+") {
		t.Errorf("users list: %q", out)
	}
	ada, rev, bob := id("ada@acme.example"), id("rev@acme.example"), id("bob@acme.example")
	if code, _, errOut := run(t, "users", "installation-admin", "--db", db, "--org", org, rev); code != 1 ||
		!strings.Contains(errOut, "only an admin can be an installation admin") {
		t.Errorf("installation-admin for a reviewer: %d %q", code, errOut)
	}
	if code, out, _ := run(t, "users", "installation-admin", "--db", db, "--org", org, bob); code != 0 || !strings.Contains(out, "is an installation admin") {
		t.Errorf("grant: %d %q", code, out)
	}
	if code, out, _ := run(t, "users", "installation-admin", "--db", db, "--org", org, "--revoke", ada); code != 0 || !strings.Contains(out, "is not an installation admin") {
		t.Errorf("revoke: %d %q", code, out)
	}
	if code, _, errOut := run(t, "users", "installation-admin", "--db", db, "--org", "org_01JCXW6Y0Q4H3T2V5N7M8K9P0R", bob); code != 1 || !strings.Contains(errOut, "not found") {
		t.Errorf("another organization's user: %d %q", code, errOut)
	}
	_, out, _ = run(t, "audit", "export", "--db", db)
	var actions []string
	for line := range strings.Lines(out) {
		if m := regexp.MustCompile(`"action":"(user\.installation_admin_[a-z]+)"`).FindStringSubmatch(line); m != nil &&
			strings.Contains(line, `"actorType":"system"`) {
			actions = append(actions, m[1])
		}
	}
	if strings.Join(actions, " ") != "user.installation_admin_granted user.installation_admin_granted user.installation_admin_revoked" {
		t.Errorf("audited: %v", actions)
	}
}
