package cmd_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"kycd/cmd"
	"kycd/seal"
	"kycd/store"
	"kycd/webhook"

	"kycd/internal/testtools"
)

// TestMain lets the tests run this test binary as the kycd program
// (KYCD_TEST_EXEC=1), so that signals and kill -9 hit a real process.
func TestMain(m *testing.M) {
	if os.Getenv("KYCD_TEST_EXEC") == "1" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := cmd.Main(ctx, "test", os.Args[1:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(testtools.Report(os.Stdout, m.Run()))
}

// run runs kycd in-process and returns its exit code and output.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cmd.Main(t.Context(), "test", args, &out, &errOut)
	return code, out.String(), errOut.String()
}

var (
	orgLine = regexp.MustCompile(`^org_[0-7][0-9A-HJKMNP-TV-Z]{25}\n$`)
	keyLine = regexp.MustCompile(`^svc_(test|live)_([0-7][0-9A-HJKMNP-TV-Z]{25})\.[0-9A-Za-z]{43}\n$`)
)

func TestCLI(t *testing.T) {
	db := newDB(t)
	code, out, errOut := run(t, "orgs", "create", "--db", db, "--name", "Acme Ltd", "--email", "kyc@acme.example")
	if code != 0 || !orgLine.MatchString(out) {
		t.Fatalf("orgs create: %d %q %q", code, out, errOut)
	}
	org := strings.TrimSpace(out)

	code, out, _ = run(t, "keys", "create", "--db", db, "--org", org, "--env", "live", "--tier", "pro", "--name", "billing")
	m := keyLine.FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != "live" {
		t.Fatalf("keys create: %d %q", code, out)
	}
	liveKey, liveID := strings.TrimSpace(out), m[2]

	// Every flag can come from the environment.
	t.Setenv("KYCD_DB", db)
	t.Setenv("KYCD_RPM", "0")
	code, out, _ = run(t, "keys", "create", "--org", org, "--env", "sandbox")
	if code != 0 || !keyLine.MatchString(out) || !strings.HasPrefix(out, "svc_test_") {
		t.Fatalf("keys create from env: %d %q", code, out)
	}
	os.Unsetenv("KYCD_RPM")

	code, out, _ = run(t, "keys", "list", "--org", org)
	secret := liveKey[strings.Index(liveKey, ".")+1:]
	if code != 0 || !strings.Contains(out, liveID) || !strings.Contains(out, "unlimited") || !strings.Contains(out, "1000") || strings.Contains(out, secret) {
		t.Fatalf("keys list: %d\n%s", code, out)
	}
	if code, out, _ = run(t, "orgs", "list"); code != 0 || !strings.Contains(out, "Acme Ltd") {
		t.Fatalf("orgs list: %d %s", code, out)
	}

	// Revoking accepts the id, the prefix or the whole key, and never echoes a secret.
	code, out, _ = run(t, "keys", "revoke", liveKey)
	if code != 0 || !strings.Contains(out, "revoked "+liveID) || strings.Contains(out, secret) {
		t.Fatalf("keys revoke: %d %q", code, out)
	}
	if _, out, _ = run(t, "keys", "list"); !strings.Contains(out, "revoked") && !regexp.MustCompile(`\d{4}-\d\d-\d\dT.*Z\s*\n`).MatchString(out) {
		t.Errorf("revocation not listed:\n%s", out)
	}

	for _, tt := range []struct {
		args    []string
		code    int
		wantErr string
	}{
		{[]string{"keys", "create", "--org", "org_01JCXW6Y0Q4H3T2V5N7M8K9P0R", "--env", "live"}, 1, "not found"},
		{[]string{"keys", "create", "--org", org, "--env", "sandbox", "--tier", "pro"}, 1, "live keys only"},
		{[]string{"keys", "create", "--org", org, "--env", "staging"}, 2, "staging"},
		{[]string{"keys", "create", "--org", org, "--env", "live", "--rpm=-5"}, 1, "0 (unlimited) or more"},
		// The limit is capped (issue #9): 2000000000 crashed the server and
		// 99999999999999 made every request of the key a 500.
		{[]string{"keys", "create", "--org", org, "--env", "live", "--rpm", "2000000000"}, 1, "above the maximum of 1000000"},
		{[]string{"keys", "create", "--org", org, "--env", "live", "--rpm", "99999999999999"}, 1, "use --rpm 0 for no limit"},
		{[]string{"keys", "revoke", "01JCXW6Y0Q4H3T2V5N7M8K9P0R"}, 1, "not found"},
		{[]string{"keys", "revoke", "nonsense"}, 1, "not a key id"},
		{[]string{"orgs", "create", "--name", " "}, 1, "must not be empty"},
		{[]string{"frobnicate"}, 2, "unexpected argument"},
	} {
		code, _, errOut := run(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, errOut, tt.code, tt.wantErr)
		}
	}
	if code, out, _ := run(t, "version"); code != 0 || !strings.HasPrefix(out, "kycd test (commit ") ||
		!strings.HasSuffix(out, fmt.Sprintf("; schema %d)\n", store.SchemaVersion())) {
		t.Errorf("version: %d %q", code, out)
	}
	if code, out, _ := run(t, "--help"); code != 0 || !strings.Contains(out, "serve") {
		t.Errorf("--help: %d %q", code, out)
	}
}

func TestWebhooksVerify(t *testing.T) {
	body := []byte(`{"eventId":"kev_01JCXW6Y0Q4H3T2V5N7M8K9P0R"}`)
	f := filepath.Join(t.TempDir(), "body.json")
	if err := os.WriteFile(f, body, 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Unix(1767323045, 0)
	header := webhook.Sign("whsec_test", at, body)
	if code, out, errOut := run(t, "webhooks", "verify", "--secret", "whsec_test", "--header", header, "--body-file", f, "--now", "1767323045"); code != 0 || out != "valid\n" {
		t.Fatalf("good signature: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run(t, "webhooks", "verify", "--secret", "whsec_wrong", "--header", header, "--body-file", f, "--now", "1767323045"); code != 1 || !strings.Contains(errOut, "does not match") {
		t.Fatalf("wrong secret: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "webhooks", "verify", "--secret", "whsec_test", "--header", header, "--body-file", f); code != 1 || !strings.Contains(errOut, "in the past") {
		t.Fatalf("old delivery: %d %q", code, errOut)
	}
}

// newDB makes a database as serve's first start does, without serving:
// the schema, a data key, and the master key in <db>.master-key, which
// the CLI commands find there. It returns the database's path.
func newDB(t *testing.T) string {
	t.Helper()
	return initDB(t, filepath.Join(t.TempDir(), "kyc.db"))
}

// initDB is newDB at a path of the caller's choosing.
func initDB(t *testing.T, path string) string {
	t.Helper()
	key := make([]byte, seal.KeySize)
	_, _ = rand.Read(key)
	if err := os.WriteFile(path+".master-key", []byte(base64.StdEncoding.EncodeToString(key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), path, withKey(key))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// openDBWithKey opens a database made by newDB (or serve) with the key in
// <db>.master-key.
func openDBWithKey(t *testing.T, path string) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), path, withKey(readKeyFile(t, path+".master-key")))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestCommandsRefuseMissingDatabase: every command but serve fails on a
// database file that does not exist, saying so, and creates nothing: no
// empty database (issue #9: kycd orgs list --db typo.db made one), no key
// file beside it.
func TestCommandsRefuseMissingDatabase(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.db")
	list := writeFile(t, "list.csv", "name\nIvan Petrov\n")
	key := filepath.Join(dir, "new.key")
	if err := os.WriteFile(key, []byte(strings.Repeat("ab", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	const org, ulid = "org_01JCXW6Y0Q4H3T2V5N7M8K9P0R", "01JCXW6Y0Q4H3T2V5N7M8K9P0R"
	for _, args := range [][]string{
		{"orgs", "list"},
		{"orgs", "create", "--name", "Acme"},
		{"orgs", "update", org, "--four-eyes", "on"},
		{"keys", "list"},
		{"keys", "create", "--org", org, "--env", "sandbox"},
		{"keys", "revoke", ulid},
		{"lists", "list"},
		{"lists", "import", "--source", "s", "--kind", "sanctions", "--format", "csv", list},
		{"lists", "update", "--ofac-base-url", "http://127.0.0.1:1", "--un-url", "http://127.0.0.1:1/un.xml"},
		{"webhooks", "list"},
		{"webhooks", "add", "--org", org, "--env", "sandbox", "--url", "http://93.184.216.34/h"},
		{"orgs", "callback-secret", "rotate", "--org", org, "--env", "live"},
		{"webhooks", "disable", "we_" + ulid},
		{"webhooks", "enable", "we_" + ulid},
		{"webhooks", "test", "we_" + ulid},
		{"audit", "verify"},
		{"audit", "export"},
		{"usage", "--org", org, "--month", "2026-01"},
		{"master-key", "rotate", "--new-key-file", key},
		{"backup", "--out", filepath.Join(dir, "backup.db")},
		{"users", "create", "--org", org, "--email", "ada@acme.example", "--role", "admin"},
		{"users", "list", "--org", org},
		{"users", "disable", "--org", org, "usr_" + ulid},
		{"users", "enable", "--org", org, "usr_" + ulid},
		{"users", "link", "--org", org, "usr_" + ulid},
		{"users", "installation-admin", "--org", org, "usr_" + ulid},
		{"users", "installation-admin", "--org", org, "--revoke", "usr_" + ulid},
		{"applicants", "show", "--org", org, "--env", "sandbox", "app_" + ulid},
		{"applicants", "erase", "--org", org, "--env", "sandbox", "--reason", "r", "app_" + ulid},
		{"applicants", "hold", "--org", org, "--env", "sandbox", "--reason", "r", "app_" + ulid},
		{"applicants", "release-hold", "--org", org, "--env", "sandbox", "--reason", "r", "app_" + ulid},
		{"applicants", "export", "--org", org, "--env", "sandbox", "--out", filepath.Join(dir, "x.zip"), "app_" + ulid},
	} {
		code, _, errOut := run(t, append(args, "--db", typo)...)
		if code != 1 || !strings.Contains(errOut, "no database at "+typo) && !strings.Contains(errOut, "no such file") {
			t.Errorf("%v: exit %d, %q; want 1 and no database", args, code, errOut)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if n := e.Name(); n != "new.key" {
				t.Errorf("%v left %s behind", args, n)
				os.RemoveAll(filepath.Join(dir, n))
			}
		}
	}
}
