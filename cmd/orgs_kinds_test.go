package cmd_test

import (
	"regexp"
	"strings"
	"testing"
)

// TestOrgsAMLKinds: kycd orgs update --aml-kinds sets which list kinds an
// organization screens (sanctions always), 'default' resets it, and
// orgs list shows it.
func TestOrgsAMLKinds(t *testing.T) {
	db := newDB(t)
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme")
	org := strings.TrimSpace(out)
	if _, out, _ := run(t, "orgs", "list", "--db", db); !strings.Contains(out, "AML KINDS") || !strings.Contains(out, "default (sanctions + every kind with a list)") {
		t.Fatalf("orgs list:\n%s", out)
	}
	if code, out, errOut := run(t, "orgs", "update", org, "--db", db, "--aml-kinds", "pep,sanctions"); code != 0 || out != org+": AML kinds sanctions,pep\n" {
		t.Fatalf("orgs update --aml-kinds: %d %q %q", code, out, errOut)
	}
	if _, out, _ := run(t, "orgs", "list", "--db", db); !regexp.MustCompile(`\ssanctions,pep\n`).MatchString(out) {
		t.Fatalf("orgs list after update:\n%s", out)
	}
	for _, tt := range []struct{ kinds, wantErr string }{
		{"pep", "leave out sanctions"},
		{"sanctions,media", `unknown AML kind "media"`},
	} {
		if code, _, errOut := run(t, "orgs", "update", org, "--db", db, "--aml-kinds", tt.kinds); code != 1 || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("--aml-kinds %s: %d %q", tt.kinds, code, errOut)
		}
	}
	if code, out, _ := run(t, "orgs", "update", org, "--db", db, "--aml-kinds", "default"); code != 0 || !strings.Contains(out, "AML kinds default") {
		t.Fatalf("reset: %d %q", code, out)
	}
}
