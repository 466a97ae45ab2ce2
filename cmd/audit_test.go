package cmd_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// auditDB writes n live audit rows, one hour apart from 2026-01-02T03:04:05Z,
// to a new database file and returns its path.
func auditDB(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kyc.db")
	s, err := store.Open(t.Context(), path, store.Options{CheckpointEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	clock := &storetest.Clock{}
	s.Now = clock.Now
	for i := range n {
		to, reason := "approved", fmt.Sprint("reason ", i)
		err := s.InTx(t.Context(), func(tx *store.Tx) error {
			return tx.AppendAudit(store.AuditEntry{OrganizationID: fmt.Sprint("org_", i%2), Environment: kyc.Live,
				ResourceType: "kyc_request", ResourceID: fmt.Sprint("kyc_", i), Action: "svc.kyc.request.approved",
				ActorType: kyc.ActorReviewer, ToStatus: &to, Reason: &reason})
		})
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
	}
	return path
}

var verifyOK = regexp.MustCompile(`^ok: (\d+) rows, chain head ([0-9a-f]{64})\n$`)

func TestAuditVerify(t *testing.T) {
	db := auditDB(t, 4)
	code, out, errOut := run(t, "audit", "verify", "--db", db)
	m := verifyOK.FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != "4" {
		t.Fatalf("audit verify: %d %q %q", code, out, errOut)
	}
	if code, out, _ := run(t, "audit", "verify", "--db", auditDB(t, 0)); code != 0 || out != "ok: 0 rows, chain head "+strings.Repeat("0", 64)+"\n" {
		t.Errorf("empty log: %d %q", code, out)
	}

	// Someone with the file drops the trigger and edits row 2.
	raw, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{`DROP TRIGGER audit_log_no_update`, `UPDATE audit_log SET reason = 'nothing to see' WHERE id = 2`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("KYCD_DB", db)
	code, out, errOut = run(t, "audit", "verify")
	broken := regexp.MustCompile(`^broken at row 2: content_changed: .+\n  content_hash expected [0-9a-f]{64}\n  content_hash stored   [0-9a-f]{64}\n$`)
	if code != 1 || !broken.MatchString(out) || !strings.Contains(errOut, "chain broken at row 2") {
		t.Fatalf("after tampering: %d %q %q", code, out, errOut)
	}

	// A mistyped path fails instead of creating an empty log that verifies.
	missing := filepath.Join(t.TempDir(), "typo.db")
	if code, _, errOut := run(t, "audit", "verify", "--db", missing); code != 1 || !strings.Contains(errOut, "no database at") {
		t.Errorf("missing file: %d %q", code, errOut)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("verify created %s", missing)
	}
}

func TestAuditExport(t *testing.T) {
	db := auditDB(t, 4)
	_, out, _ := run(t, "audit", "verify", "--db", db)
	head := verifyOK.FindStringSubmatch(out)[2]

	parse := func(out string) []map[string]any {
		t.Helper()
		var rows []map[string]any
		for line := range strings.Lines(out) {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			rows = append(rows, m)
		}
		return rows
	}
	code, out, errOut := run(t, "audit", "export", "--db", db)
	rows := parse(out)
	if code != 0 || len(rows) != 4 {
		t.Fatalf("audit export: %d %d rows %q", code, len(rows), errOut)
	}
	for _, k := range []string{"id", "createdAt", "organizationId", "environment", "resourceType", "resourceId", "action",
		"actorType", "actorId", "fromStatus", "toStatus", "reason", "prevHash", "contentHash"} {
		if _, ok := rows[0][k]; !ok {
			t.Errorf("exported rows have no %q: %v", k, rows[0])
		}
	}
	if rows[0]["prevHash"] != strings.Repeat("0", 64) || rows[3]["contentHash"] != head || rows[1]["prevHash"] != rows[0]["contentHash"] {
		t.Errorf("exported hashes do not chain to the head %s: %v", head, rows)
	}

	// Rows are at 03:04, 04:04, 05:04 and 06:04.
	code, out, _ = run(t, "audit", "export", "--db", db, "--since", "2026-01-02T05:00:00Z")
	if rows = parse(out); code != 0 || len(rows) != 2 || rows[0]["id"] != 3.0 {
		t.Fatalf("--since: %d %v", code, rows)
	}
	since := out
	// Row 3's exact time, written in another zone, includes row 3.
	if _, out, _ = run(t, "audit", "export", "--db", db, "--since", "2026-01-02T06:04:05+01:00"); len(parse(out)) != 2 {
		t.Errorf("--since with an offset: %q", out)
	}

	file := filepath.Join(t.TempDir(), "audit.jsonl")
	t.Setenv("KYCD_AUDIT_SINCE", "2026-01-02T05:00:00Z")
	code, out, errOut = run(t, "audit", "export", "--db", db, "--out", file)
	if code != 0 || out != "exported 2 rows to "+file+"\n" {
		t.Fatalf("--out: %d %q %q", code, out, errOut)
	}
	b, err := os.ReadFile(file)
	if err != nil || string(b) != since {
		t.Fatalf("file %q (%v), want the same lines as standard output", b, err)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("export file mode %v, want 0600", fi.Mode().Perm())
	}

	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"audit", "export", "--db", db, "--since", "yesterday"}, "RFC 3339"},
		{[]string{"audit", "export", "--db", db, "--since", "2026-01-02"}, "RFC 3339"},
		{[]string{"audit", "export", "--db", filepath.Join(t.TempDir(), "none.db")}, "no database at"},
	} {
		if code, _, errOut := run(t, tt.args...); code != 1 || !strings.Contains(errOut, tt.wantErr) {
			t.Errorf("%v: %d %q, want 1 and %q", tt.args, code, errOut, tt.wantErr)
		}
	}
}
