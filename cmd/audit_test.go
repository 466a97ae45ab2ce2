package cmd_test

import (
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	path := newDB(t)
	s := openDBWithKey(t, path)
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

var verifyOK = regexp.MustCompile(`^ok: (\d+) rows, chain head (\d+):([0-9a-f]{64})\n`)

// rawDB opens the file as anyone with access to it could, and drops the
// triggers that refuse updates and deletes.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	for _, q := range []string{`DROP TRIGGER audit_log_no_update`, `DROP TRIGGER audit_log_no_delete`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}

func TestAuditVerify(t *testing.T) {
	db := auditDB(t, 4)
	code, out, errOut := run(t, "audit", "verify", "--db", db)
	m := verifyOK.FindStringSubmatch(out)
	if code != 0 || m == nil || m[1] != "4" || m[2] != "4" || !strings.Contains(out, "--expect-head") {
		t.Fatalf("audit verify: %d %q %q", code, out, errOut)
	}
	head := m[2] + ":" + m[3]
	if code, out, _ := run(t, "audit", "verify", "--db", auditDB(t, 0)); code != 0 || !strings.HasPrefix(out, "ok: 0 rows, chain head 0:"+strings.Repeat("0", 64)+"\n") {
		t.Errorf("empty log: %d %q", code, out)
	}
	if code, out, errOut := run(t, "audit", "verify", "--db", db, "--expect-head", head); code != 0 || !verifyOK.MatchString(out) {
		t.Errorf("--expect-head with the current head: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run(t, "audit", "verify", "--db", db, "--expect-head", "4:abc"); code != 1 || !strings.Contains(errOut, "ROWS:HASH") {
		t.Errorf("malformed --expect-head: %d %q", code, errOut)
	}

	// Someone with the file drops the trigger and edits row 2.
	raw := rawDB(t, db)
	if _, err := raw.Exec(`UPDATE audit_log SET reason = 'nothing to see' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KYCD_DB", db)
	code, out, errOut = run(t, "audit", "verify")
	broken := regexp.MustCompile(`^broken at row 2: content_changed: .+\n  content_hash expected [0-9a-f]{64}\n  content_hash stored   [0-9a-f]{64}\n$`)
	if code != 1 || !broken.MatchString(out) || !strings.Contains(errOut, "broken at row 2") {
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

// TestAuditVerifyTruncationAndRewrite: the attacks of issue #9, each of
// which kycd audit verify reported as ok: deleting the newest rows,
// deleting every row, and rewriting the rows with every hash recomputed.
func TestAuditVerifyTruncationAndRewrite(t *testing.T) {
	for _, tt := range []struct {
		name   string
		tamper func(t *testing.T, raw *sql.DB)
		want   string
	}{
		{"delete the newest rows", func(t *testing.T, raw *sql.DB) {
			mustRaw(t, raw, `DELETE FROM audit_log WHERE id > 2`)
		}, "broken at row 3: truncated: the log ends at row 2 but its signed head"},
		{"delete every row", func(t *testing.T, raw *sql.DB) {
			mustRaw(t, raw, `DELETE FROM audit_log`)
		}, "broken at row 1: truncated"},
		{"rewrite and recompute every hash", func(t *testing.T, raw *sql.DB) {
			rows, err := raw.Query(`SELECT id, created_at, organization_id, environment, resource_type, resource_id, action, actor_type,
				actor_id, from_status, to_status, reason FROM audit_log ORDER BY id`)
			if err != nil {
				t.Fatal(err)
			}
			type row struct {
				id                                    int64
				at, org, env, typ, res, action, actor string
				actorID, from, to, reason             sql.NullString
			}
			var all []row
			for rows.Next() {
				var r row
				if err := rows.Scan(&r.id, &r.at, &r.org, &r.env, &r.typ, &r.res, &r.action, &r.actor, &r.actorID, &r.from, &r.to, &r.reason); err != nil {
					t.Fatal(err)
				}
				all = append(all, r)
			}
			rows.Close()
			prev := strings.Repeat("0", 64)
			for _, r := range all {
				reason := "rewritten"
				h := sha256Row(r.id, r.at, r.org, r.env, r.typ, r.res, r.action, r.actor, nullPtr(r.actorID), nullPtr(r.from), nullPtr(r.to), &reason, prev)
				mustRaw(t, raw, fmt.Sprintf(`UPDATE audit_log SET reason = 'rewritten', prev_hash = '%s', content_hash = '%s' WHERE id = %d`, prev, h, r.id))
				prev = h
			}
		}, "broken at row 1: content_changed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := auditDB(t, 4)
			tt.tamper(t, rawDB(t, db))
			code, out, errOut := run(t, "audit", "verify", "--db", db)
			if code != 1 || !strings.HasPrefix(out, tt.want) {
				t.Fatalf("verify: %d %q %q, want exit 1 and %q", code, out, errOut, tt.want)
			}
		})
	}
	// A rollback with an old copy of the head passes the signed head, not
	// the head the operator kept.
	db := auditDB(t, 2)
	raw := rawDB(t, db)
	var saved [5]string
	if err := raw.QueryRow(`SELECT row_count, head_hash, signed_since, signed_at, mac FROM audit_head`).
		Scan(&saved[0], &saved[1], &saved[2], &saved[3], &saved[4]); err != nil {
		t.Fatal(err)
	}
	st := openDBWithKey(t, db)
	to := "approved"
	if err := st.InTx(t.Context(), func(tx *store.Tx) error {
		return tx.AppendAudit(store.AuditEntry{OrganizationID: "org_1", Environment: kyc.Live, ResourceType: "kyc_request",
			ResourceID: "kyc_x", Action: "svc.kyc.request.approved", ActorType: kyc.ActorReviewer, ToStatus: &to})
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	_, out, _ := run(t, "audit", "verify", "--db", db)
	m := verifyOK.FindStringSubmatch(out)
	if m == nil || m[1] != "3" {
		t.Fatalf("verify: %q", out)
	}
	mustRaw(t, raw, `DELETE FROM audit_log WHERE id = 3`, fmt.Sprintf(`UPDATE audit_head SET row_count = %s, head_hash = '%s',
		signed_since = '%s', signed_at = '%s', mac = '%s'`, saved[0], saved[1], saved[2], saved[3], saved[4]))
	if code, out, _ := run(t, "audit", "verify", "--db", db); code != 0 {
		t.Fatalf("rolled back with its old head: %d %q (the signed head alone cannot see this)", code, out)
	}
	code, out, errOut := run(t, "audit", "verify", "--db", db, "--expect-head", m[2]+":"+m[3])
	if code != 1 || !strings.HasPrefix(out, "broken at row 3: truncated") || !strings.Contains(out, "the head you kept") {
		t.Fatalf("--expect-head after a rollback: %d %q %q", code, out, errOut)
	}
}

func mustRaw(t *testing.T, raw *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func nullPtr(ns sql.NullString) *string {
	if !ns.Valid {
		return nil
	}
	return &ns.String
}

// sha256Row is the SHA-256 (pre-MAC) content hash of a row, as store/audit.go
// documents it: what an attacker without the key can compute.
func sha256Row(id int64, items ...any) string {
	tag, ids := "kycd.audit.v1", strconv.FormatInt(id, 10)
	var b []byte
	put := func(s *string) {
		if s == nil {
			b = append(b, 0)
			return
		}
		b = append(b, 1)
		b = binary.BigEndian.AppendUint32(b, uint32(len(*s)))
		b = append(b, *s...)
	}
	put(&tag)
	put(&ids)
	for _, it := range items {
		switch v := it.(type) {
		case string:
			put(&v)
		case *string:
			put(v)
		}
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestAuditExport(t *testing.T) {
	db := auditDB(t, 4)
	_, out, _ := run(t, "audit", "verify", "--db", db)
	head := verifyOK.FindStringSubmatch(out)[3]

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

// TestOperatorActionsAudited: what an operator changes from the CLI is in
// the audit log with who did it, and the log still verifies (after a
// master-key rotation, with the new key).
func TestOperatorActionsAudited(t *testing.T) {
	db := newDB(t)
	must := func(args ...string) string {
		t.Helper()
		code, out, errOut := run(t, append(args, "--db", db)...)
		if code != 0 {
			t.Fatalf("%v: %d %q", args, code, errOut)
		}
		return strings.TrimSpace(out)
	}
	org := must("orgs", "create", "--name", "Acme")
	policy := writeFile(t, "policy.json", `{"version":"strict-1","minimumAge":21}`)
	must("orgs", "update", org, "--four-eyes", "on", "--aml-threshold", "0.9", "--policy", policy)
	key := must("keys", "create", "--org", org, "--env", "live", "--tier", "pro")
	keyID := keyLine.FindStringSubmatch(key + "\n")[2]
	must("keys", "revoke", keyID)
	ep := strings.Fields(must("webhooks", "add", "--org", org, "--env", "sandbox", "--url", "http://127.0.0.1:9/hooks", "--allow-private-webhooks"))[0]
	must("orgs", "callback-secret", "rotate", "--org", org, "--env", "live") // the first makes it
	must("orgs", "callback-secret", "rotate", "--org", org, "--env", "live")
	must("webhooks", "disable", ep)
	must("webhooks", "enable", ep)
	must("lists", "import", "--source", "house", "--kind", "sanctions", "--format", "csv", writeFile(t, "l.csv", "name\nIvan Petrov\n"))
	newKey := filepath.Join(t.TempDir(), "new.key")
	if err := os.WriteFile(newKey, []byte(strings.Repeat("cd", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	must("master-key", "rotate", "--new-key-file", newKey)

	rows := map[string]map[string]any{}
	for line := range strings.Lines(must("audit", "export")) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		rows[m["action"].(string)] = m
	}
	for action, resource := range map[string]string{
		"organization.created": org, "organization.four_eyes_changed": org, "organization.aml_threshold_changed": org,
		"organization.decision_policy_changed": org, "api_key.created": keyID, "api_key.revoked": keyID,
		"webhook_endpoint.created": ep, "webhook_endpoint.disabled": ep, "webhook_endpoint.enabled": ep,
		"watch_list.imported": "", "master_key.rotated": "data_keys",
		"callback_secret.created": "callback_secret/" + org + "/live", "callback_secret.rotated": "callback_secret/" + org + "/live",
	} {
		r := rows[action]
		if r == nil {
			t.Errorf("no %s row", action)
			continue
		}
		if r["actorType"] != "operator" || !strings.HasPrefix(fmt.Sprint(r["actorId"]), "cli:") || (resource != "" && r["resourceId"] != resource) {
			t.Errorf("%s: %v", action, r)
		}
	}
	if r := rows["organization.decision_policy_changed"]; r != nil && !strings.Contains(fmt.Sprint(r["reason"]), `"version":"strict-1"`) {
		t.Errorf("the policy row does not keep the policy: %v", r)
	}
	if r := rows["api_key.created"]; r != nil && strings.Contains(fmt.Sprint(r), key[strings.Index(key, ".")+1:]) {
		t.Errorf("the audit row holds the key's secret: %v", r)
	}
	if code, out, errOut := run(t, "audit", "verify", "--db", db, "--master-key-file", newKey); code != 0 || !verifyOK.MatchString(out) {
		t.Fatalf("verify with the new key: %d %q %q", code, out, errOut)
	}
}
