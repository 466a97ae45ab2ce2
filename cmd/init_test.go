package cmd_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	initOrg  = regexp.MustCompile(`(?m)^organization (org_[0-9A-Z]{26})$`)
	initKey  = regexp.MustCompile(`(?m)^sandbox-key (svc_test_\S+)$`)
	initLink = regexp.MustCompile(`(?m)^admin-link (http://kyc\.example\.com/console/set-password\?token=\S+)$`)
)

// TestInit is issue 23 item 16: a script creates a database without
// serving (every other command refuses a missing file), with the first
// organization's name and contact address, a sandbox key and the first
// admin; a second run changes nothing; the result serves.
func TestInit(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kyc.db")
	code, out, errOut := run(t, "init", "--db", db, "--name", "Acme Ltd", "--contact-email", "compliance@acme.example",
		"--admin-email", "ada@acme.example", "--admin-name", "Ada Admin", "--base-url", "http://kyc.example.com")
	if code != 0 {
		t.Fatalf("init: %d %q", code, errOut)
	}
	org, key, link := initOrg.FindStringSubmatch(out), initKey.FindStringSubmatch(out), initLink.FindStringSubmatch(out)
	if org == nil || key == nil || link == nil {
		t.Fatalf("init printed %q, want organization, sandbox-key and admin-link lines", out)
	}
	for _, f := range []string{db, db + ".master-key", db + ".secret-key"} {
		fi, err := os.Stat(f)
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v, want a 0600 file", f, fi, err)
		}
	}
	if strings.Contains(errOut, "only on this machine") || strings.Contains(errOut, "works only") {
		t.Errorf("warned about a public base URL: %q", errOut)
	}
	// The other commands accept the database.
	if code, out, errOut := run(t, "orgs", "list", "--db", db); code != 0 || !strings.Contains(out, org[1]) ||
		!strings.Contains(out, "Acme Ltd") || !strings.Contains(out, "compliance@acme.example") {
		t.Errorf("orgs list: %d %q %q", code, out, errOut)
	}
	if code, out, errOut := run(t, "users", "list", "--db", db, "--org", org[1]); code != 0 || !strings.Contains(out, "admin+installation") ||
		!strings.Contains(out, "invited") {
		t.Errorf("users list: %d %q %q", code, out, errOut)
	}
	// A second run, even with other values, refuses and changes nothing.
	code, out2, errOut := run(t, "init", "--db", db, "--name", "Other", "--contact-email", "x@other.example")
	if code != 1 || !strings.Contains(errOut, "already set up") || out2 != "" {
		t.Errorf("second init: %d %q %q", code, out2, errOut)
	}
	if _, out, _ := run(t, "orgs", "list", "--db", db); strings.Contains(out, "Other") {
		t.Errorf("the second init wrote: %s", out)
	}
	// serve starts on it without printing another key, and the key works.
	p := startServe(t, db)
	if strings.Contains(p.log(), "svc_test_") {
		t.Errorf("serve made another key: %s", p.log())
	}
	if status, a := post(t, p.addr, key[1], "/v1/applicants", `{"firstName":"Ada","lastName":"Lovelace"}`); status != 201 {
		t.Errorf("POST /v1/applicants with init's key: %d %v", status, a)
	}
}

// TestInitRefuses: what init must not accept, each with a message saying
// why, and nothing made.
func TestInitRefuses(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "kyc.db")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--name", "Acme", "--contact-email", "not an address"}, "--contact-email"},
		{[]string{"--name", "Acme", "--contact-email", "Ops <ops@acme.example>"}, "--contact-email"},
		{[]string{"--name", " ", "--contact-email", "ops@acme.example"}, "--name"},
		{[]string{"--name", "Acme", "--contact-email", "ops@acme.example", "--admin-email", "ada"}, "--admin-email"},
		{[]string{"--name", "Acme"}, "--contact-email"},
	} {
		code, out, errOut := run(t, append([]string{"init", "--db", db}, tt.args...)...)
		if code == 0 || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("%v: %d %q %q, want refused naming %s", tt.args, code, out, errOut, tt.want)
		}
		if _, err := os.Stat(db); err == nil {
			t.Fatalf("%v left a database behind", tt.args)
		}
	}
	// A database that has no organization yet (only migrated) is filled.
	empty := initDB(t, filepath.Join(dir, "empty.db"))
	if code, out, errOut := run(t, "init", "--db", empty, "--name", "Acme", "--contact-email", "ops@acme.example", "--no-sandbox-key"); code != 0 ||
		!initOrg.MatchString(out) || initKey.MatchString(out) || !strings.Contains(errOut, "kycd users create") {
		t.Errorf("init of an empty database: %d %q %q", code, out, errOut)
	}
}

// TestUsersCreateWarnsOfLocalLink is issue 23 item 15: without
// --base-url the set-password link points to 127.0.0.1:8080, which opens
// only on this machine; standard error says so and how to fix it, and
// standard output stays the link alone.
func TestUsersCreateWarnsOfLocalLink(t *testing.T) {
	db := filepath.Join(t.TempDir(), "kyc.db")
	_, out, _ := run(t, "init", "--db", db, "--name", "Acme", "--contact-email", "ops@acme.example", "--no-sandbox-key")
	org := initOrg.FindStringSubmatch(out)[1]
	code, out, errOut := run(t, "users", "create", "--db", db, "--org", org, "--email", "jane@acme.example", "--role", "reviewer")
	if code != 0 || !strings.HasPrefix(out, "http://127.0.0.1:8080/console/set-password?token=") || strings.Count(out, "\n") != 1 {
		t.Fatalf("users create: %d %q %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "works only in a browser on this machine") || !strings.Contains(errOut, "--base-url") {
		t.Errorf("no warning about the local link: %q", errOut)
	}
	code, out, errOut = run(t, "users", "create", "--db", db, "--org", org, "--email", "joe@acme.example", "--role", "viewer",
		"--base-url", "https://kyc.example.com")
	if code != 0 || !strings.HasPrefix(out, "https://kyc.example.com/console/") || strings.Contains(errOut, "warning") {
		t.Errorf("with a public --base-url: %d %q %q", code, out, errOut)
	}
}

// TestFirstStartNamesBackOffice is issue 23 item 15: serve's first start
// printed a sandbox key but never mentioned the back office. It now
// prints the console's address and the command that makes its first
// admin, ready to paste, and the command works.
func TestFirstStartNamesBackOffice(t *testing.T) {
	db := filepath.Join(t.TempDir(), "kyc.db")
	p := startServe(t, db)
	log := p.log()
	console := "http://" + p.addr + "/console/"
	cmdLine := regexp.MustCompile(`kycd users create --db (\S+) --org (org_[0-9A-Z]{26}) --email you@example.com --name "Your Name" --role admin --installation-admin --base-url (\S+)`).
		FindStringSubmatch(log)
	if !strings.Contains(log, "The back office is at "+console) || cmdLine == nil || cmdLine[1] != db || cmdLine[3] != "http://"+p.addr {
		t.Fatalf("the first start does not name the back office and its first admin's command:\n%s", log)
	}
	code, out, errOut := run(t, "users", "create", "--db", db, "--org", cmdLine[2], "--email", "ada@acme.example", "--role", "admin",
		"--installation-admin", "--base-url", cmdLine[3])
	if code != 0 || !strings.HasPrefix(out, console+"set-password?token=") {
		t.Errorf("the printed command: %d %q %q", code, out, errOut)
	}
}

// TestInitNamesKeyStore: kycd init tells the operator that <db>.keys was
// made, that it must be backed up as well as the database, and what losing
// it means; kycd backup says its copy holds no per-applicant keys.
func TestInitNamesKeyStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "kyc.db")
	code, _, errOut := run(t, "init", "--db", db, "--name", "Acme Ltd", "--contact-email", "compliance@acme.example")
	if code != 0 {
		t.Fatalf("init: %d %q", code, errOut)
	}
	if fi, err := os.Stat(db + ".keys"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s.keys: %v %v", db, fi, err)
	}
	flat := strings.Join(strings.Fields(errOut), " ")
	for _, want := range []string{"created " + db + ".keys, the per-applicant key store", "Back up " + db + ".keys as well as the database",
		"If it is lost, every applicant's images and document details in the database and in all its backups are lost for good",
		"kycd serve refuses to start", "keep copies only as long as you must"} {
		if !strings.Contains(flat, want) {
			t.Errorf("init output lacks %q:\n%s", want, errOut)
		}
	}
	code, _, errOut = run(t, "backup", "--db", db, "--out", filepath.Join(t.TempDir(), "b.db"))
	flat = strings.Join(strings.Fields(errOut), " ")
	if code != 0 || !strings.Contains(flat, "the copy holds no per-applicant keys: without a copy of "+db+".keys") ||
		!strings.Contains(flat, "Back up "+db+".keys too") {
		t.Errorf("backup: %d %q", code, errOut)
	}
}
