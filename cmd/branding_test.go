package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kycd/store"
)

// TestOrgsBranding sets, shows and clears an organization's branding from
// the command line; every change is an audit row; invalid values and
// hostile logos are refused or cleaned before anything is written.
func TestOrgsBranding(t *testing.T) {
	dir := t.TempDir()
	db := initDB(t, filepath.Join(dir, "kyc.db"))
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme Ltd")
	org := strings.TrimSpace(out)
	svg := filepath.Join(dir, "logo.svg")
	if err := os.WriteFile(svg, []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 40" onload="alert(1)">
<script>alert(2)</script><rect width="120" height="40" fill="#e30613"/></svg>`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "orgs", "update", org, "--db", db, "--display-name", " Acme Bank ", "--support-email", "help@acme.example",
		"--privacy-url", "https://acme.example/privacy", "--brand-color", "#E30", "--default-locale", "de", "--logo", svg)
	if code != 0 {
		t.Fatalf("update: %d %q", code, errOut)
	}
	for _, want := range []string{org + ": display name Acme Bank\n", org + ": support e-mail help@acme.example\n",
		org + ": privacy policy https://acme.example/privacy\n", org + ": brand colour #ee3300\n", org + ": default locale de\n",
		org + ": logo image/svg+xml 120x40 sha256:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "event handler onload") || !strings.Contains(errOut, "element <script>") {
		t.Errorf("the operator is not told what was removed: %q", errOut)
	}
	jpeg := filepath.Join(dir, "logo.jpg")
	if err := os.WriteFile(jpeg, []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Refused values change nothing.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--brand-color", "red"}, "--brand-color must be a colour"},
		{[]string{"--privacy-url", "http://acme.example/privacy"}, "--privacy-url must be an https URL"},
		{[]string{"--support-email", "not an address"}, "--support-email must be an e-mail address"},
		{[]string{"--default-locale", "ja"}, "--default-locale must be one of"},
		{[]string{"--display-name", "Acme\u202eknaB"}, "--display-name must not contain"},
		{[]string{"--logo", filepath.Join(dir, "missing.png")}, "--logo"},
		{[]string{"--logo", jpeg}, "must be a PNG or an SVG"},
	} {
		code, _, errOut := run(t, append([]string{"orgs", "update", org, "--db", db}, tt.args...)...)
		if code != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d %q, want 1 and %q", tt.args, code, errOut, tt.want)
		}
	}
	// Clearing.
	code, out, errOut = run(t, "orgs", "update", org, "--db", db, "--display-name", "", "--logo", "none", "--brand-color", "")
	if code != 0 || !strings.Contains(out, "display name (the name: Acme Ltd)") || !strings.Contains(out, "logo (none)") ||
		!strings.Contains(out, "brand colour (the portal's own)") || !strings.Contains(out, "support e-mail help@acme.example") {
		t.Fatalf("clear: %d %q %q", code, out, errOut)
	}
	// Two changes, two audit rows, naming the values.
	s, err := store.Open(t.Context(), db, store.Options{CheckpointEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	all, err := s.FindAudit(t.Context(), org)
	var rows []store.AuditEntry // the organization's creation is audited too
	for _, r := range all {
		if r.Action == "organization.branding_updated" {
			rows = append(rows, r)
		}
	}
	if err != nil || len(rows) != 2 {
		t.Fatalf("audit rows %d %v", len(rows), err)
	}
	if r := rows[0]; r.Action != "organization.branding_updated" || r.ActorType != "operator" || r.ActorID == nil ||
		!strings.HasPrefix(*r.ActorID, "cli") || !strings.Contains(*r.Reason, "displayName=Acme Bank") || !strings.Contains(*r.Reason, "logo=image/svg+xml") {
		t.Errorf("first audit row %+v %s", r, *r.Reason)
	}
	if r := rows[1]; !strings.Contains(*r.Reason, "displayName=(none)") || !strings.Contains(*r.Reason, "logo=(none)") || strings.Contains(*r.Reason, "supportEmail") {
		t.Errorf("second audit row %s", *r.Reason)
	}
}
