package store_test

import (
	"bufio"
	"bytes"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// auditLine is one line of ExportAudit, read the way an outside auditor
// would.
type auditLine struct {
	ID             int64   `json:"id"`
	CreatedAt      string  `json:"createdAt"`
	OrganizationID string  `json:"organizationId"`
	Environment    string  `json:"environment"`
	ResourceType   string  `json:"resourceType"`
	ResourceID     string  `json:"resourceId"`
	Action         string  `json:"action"`
	ActorType      string  `json:"actorType"`
	ActorID        *string `json:"actorId"`
	FromStatus     *string `json:"fromStatus"`
	ToStatus       *string `json:"toStatus"`
	Reason         *string `json:"reason"`
	PrevHash       *string `json:"prevHash"`
	ContentHash    *string `json:"contentHash"`
}

// canonicalEncoding re-implements the encoding documented in
// store/audit.go from its description, so that the documentation and the
// code cannot drift apart unnoticed.
func canonicalEncoding(tag string, l auditLine, prev string) []byte {
	id := strconv.FormatInt(l.ID, 10)
	var b []byte
	for _, s := range []*string{&tag, &id, &l.CreatedAt, &l.OrganizationID, &l.Environment, &l.ResourceType,
		&l.ResourceID, &l.Action, &l.ActorType, l.ActorID, l.FromStatus, l.ToStatus, l.Reason, &prev} {
		if s == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.BigEndian.AppendUint32(b, uint32(len(*s)))
		b = append(b, *s...)
	}
	return b
}

// canonicalHash is a SHA-256 row's content hash (before the audit_head migration).
func canonicalHash(l auditLine, prev string) string {
	sum := sha256.Sum256(canonicalEncoding("kycd.audit.v1", l, prev))
	return hex.EncodeToString(sum[:])
}

// canonicalMAC is a keyed row's content hash.
func canonicalMAC(key []byte, l auditLine, prev string) string {
	m := hmac.New(sha256.New, key)
	m.Write(canonicalEncoding("kycd.audit.v2", l, prev))
	return hex.EncodeToString(m.Sum(nil))
}

// auditKey derives the audit MAC key the way store/audit.go documents it:
// HKDF-SHA256 of the first data key, unwrapped with the master key.
func auditKey(t *testing.T, path string) []byte {
	t.Helper()
	var wrapped []byte
	if err := fileDB(t, path).QueryRow(`SELECT wrapped FROM data_keys ORDER BY id LIMIT 1`).Scan(&wrapped); err != nil {
		t.Fatal(err)
	}
	master, _ := storetest.MasterKey(true)
	dek, err := master.Open(wrapped, []byte("kycd data key 1"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := hkdf.Key(sha256.New, dek, nil, "kycd audit chain v2", 32)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"

func ptr(s string) *string { return &s }

// testAuditEntry is the i-th row of a test log; it alternates between the
// organizations and leaves some optional fields NULL.
func testAuditEntry(orgs []string, i int) store.AuditEntry {
	a := store.AuditEntry{OrganizationID: orgs[i%len(orgs)], Environment: kyc.Live, ResourceType: "kyc_request",
		ResourceID: fmt.Sprintf("kyc_%026d", i/2), Action: "svc.kyc.request.processing", ActorType: kyc.ActorSystem,
		FromStatus: ptr("submitted"), ToStatus: ptr("processing")}
	if i%3 == 0 {
		a.ActorType, a.ActorID, a.Reason = kyc.ActorReviewer, ptr(fmt.Sprint("reviewer-", i)), ptr("document matches")
		a.FromStatus = nil
	}
	return a
}

func mustAppendAudit(t *testing.T, s *store.Store, entries ...store.AuditEntry) {
	t.Helper()
	for _, a := range entries {
		if err := s.InTx(t.Context(), func(tx *store.Tx) error { return tx.AppendAudit(a) }); err != nil {
			t.Fatalf("append audit: %v", err)
		}
	}
}

// chainedStore returns a store whose audit log has six rows from two
// organizations, one minute apart. (The organizations are only ids: made
// with MustOrg, their creation would be audited too.)
func chainedStore(t *testing.T) (*store.Store, *storetest.Clock) {
	t.Helper()
	s, clock := storetest.OpenOn(t, "sqlite"), &storetest.Clock{} // reads the SQLite file directly
	s.Now = clock.Now
	orgs := []string{"org_acme", "org_globex"}
	for i := range 6 {
		mustAppendAudit(t, s, testAuditEntry(orgs, i))
		clock.Advance(time.Minute)
	}
	return s, clock
}

// fileDB opens the database file on a connection of its own, as anyone
// with access to the file could, outside the store.
func fileDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func exportAudit(t *testing.T, s *store.Store, since time.Time) []auditLine {
	t.Helper()
	var buf bytes.Buffer
	if err := s.ExportAudit(t.Context(), since, &buf); err != nil {
		t.Fatalf("export: %v", err)
	}
	var out []auditLine
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		var l auditLine
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		out = append(out, l)
	}
	return out
}

func mustVerify(t *testing.T, s *store.Store) store.AuditVerification {
	t.Helper()
	v, err := s.VerifyAudit(t.Context(), nil)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	return v
}

func TestAuditChain(t *testing.T) {
	s, _ := chainedStore(t)
	v := mustVerify(t, s)
	if !v.OK() || v.Rows != 6 || v.PreChain != 0 {
		t.Fatalf("verify = %+v (broken %+v), want ok with 6 rows", v, v.Broken)
	}
	// The export carries everything needed to recompute the chain outside
	// kycd, given the audit key.
	lines := exportAudit(t, s, time.Time{})
	if len(lines) != 6 {
		t.Fatalf("exported %d rows, want 6", len(lines))
	}
	key := auditKey(t, s.Path())
	prev := zeros
	for i, l := range lines {
		if l.ID != int64(i+1) || l.PrevHash == nil || *l.PrevHash != prev || l.ContentHash == nil || *l.ContentHash != canonicalMAC(key, l, prev) {
			t.Fatalf("row %d does not chain: %+v", i+1, l)
		}
		prev = *l.ContentHash
	}
	if v.MACFrom != 1 || v.SignedAt.IsZero() || v.Since.IsZero() {
		t.Errorf("head: MAC from %d, signed %v since %v", v.MACFrom, v.SignedAt, v.Since)
	}
	if v.Head != prev {
		t.Errorf("head %s, want the last row's hash %s", v.Head, prev)
	}
	if lines[0].OrganizationID == lines[1].OrganizationID || lines[0].Reason == nil || lines[1].ActorID != nil {
		t.Errorf("rows do not span both organizations and NULLs: %+v %+v", lines[0], lines[1])
	}
	// FindAudit still reads a resource's rows.
	if got, err := s.FindAudit(t.Context(), lines[2].ResourceID); err != nil || len(got) != 2 {
		t.Errorf("FindAudit = %d rows, %v; want 2", len(got), err)
	}
	// Rows from 3 minutes on: created_at ≥ since, in id order.
	since, _ := time.Parse(time.RFC3339, lines[3].CreatedAt)
	if got := exportAudit(t, s, since); len(got) != 3 || got[0].ID != 4 {
		t.Errorf("export since %s: %+v", since, got)
	}
	if got := exportAudit(t, s, since.Add(time.Hour)); len(got) != 0 {
		t.Errorf("export since the future: %d rows", len(got))
	}
}

// TestAuditTamper changes the file the way an attacker with file access
// would: drop the triggers, then edit or delete rows. Each change is found
// at the row where it happened.
func TestAuditTamper(t *testing.T) {
	for _, tt := range []struct {
		name    string
		tamper  func(t *testing.T, db *sql.DB, lines []auditLine)
		id      int64
		problem store.AuditProblem
	}{
		{"Edit", func(t *testing.T, db *sql.DB, _ []auditLine) {
			mustExec(t, db, `UPDATE audit_log SET reason = 'x' WHERE id = 3`)
		}, 3, store.AuditContentChanged},
		{"EditFirst", func(t *testing.T, db *sql.DB, _ []auditLine) {
			mustExec(t, db, `UPDATE audit_log SET created_at = '2025-01-01T00:00:00.000Z' WHERE id = 1`)
		}, 1, store.AuditContentChanged},
		{"EditLast", func(t *testing.T, db *sql.DB, _ []auditLine) {
			mustExec(t, db, `UPDATE audit_log SET to_status = 'approved' WHERE id = 6`)
		}, 6, store.AuditContentChanged},
		// Without the key an edited row cannot be given a matching hash:
		// a recomputed SHA-256 is not the MAC.
		{"EditAndRehash", func(t *testing.T, db *sql.DB, lines []auditLine) {
			l := lines[2]
			l.Reason = ptr("x")
			mustExec(t, db, fmt.Sprintf(`UPDATE audit_log SET reason = 'x', content_hash = '%s' WHERE id = 3`, canonicalHash(l, *l.PrevHash)))
		}, 3, store.AuditContentChanged},
		// Issue #9: rewriting every row and recomputing every hash after it
		// verified. Now the first rewritten row fails.
		{"RewriteAllAndRehash", func(t *testing.T, db *sql.DB, lines []auditLine) {
			prev := zeros
			for _, l := range lines {
				l.Reason = ptr("rewritten")
				h := canonicalHash(l, prev)
				mustExec(t, db, fmt.Sprintf(`UPDATE audit_log SET reason = 'rewritten', prev_hash = '%s', content_hash = '%s' WHERE id = %d`, prev, h, l.ID))
				prev = h
			}
		}, 1, store.AuditContentChanged},
		// Issue #9: deleting the newest rows, or all of them, verified ok.
		{"TruncateNewest", func(t *testing.T, db *sql.DB, _ []auditLine) {
			mustExec(t, db, `DELETE FROM audit_log WHERE id > 4`)
		}, 5, store.AuditTruncated},
		{"TruncateAll", func(t *testing.T, db *sql.DB, _ []auditLine) {
			mustExec(t, db, `DELETE FROM audit_log`)
		}, 1, store.AuditTruncated},
		// Moving the head back to match a truncation needs the key.
		{"TruncateAndMoveHead", func(t *testing.T, db *sql.DB, lines []auditLine) {
			mustExec(t, db, `DELETE FROM audit_log WHERE id > 4`,
				fmt.Sprintf(`UPDATE audit_head SET row_count = 4, head_hash = '%s'`, *lines[3].ContentHash))
		}, 0, store.AuditHeadInvalid},
		{"DeleteHead", func(t *testing.T, db *sql.DB, _ []auditLine) {
			mustExec(t, db, `DROP TRIGGER audit_head_no_delete`, `DELETE FROM audit_head`)
		}, 0, store.AuditHeadInvalid},
		// Rows appended without the key come after the head.
		{"AppendWithoutKey", func(t *testing.T, db *sql.DB, lines []auditLine) {
			l := lines[5]
			l.ID, l.Reason = 7, ptr("forged")
			mustExec(t, db, fmt.Sprintf(`INSERT INTO audit_log (id, created_at, organization_id, environment, resource_type, resource_id, action,
				actor_type, reason, prev_hash, content_hash) VALUES (7, '%s', '%s', '%s', '%s', '%s', '%s', '%s', 'forged', '%s', '%s')`,
				l.CreatedAt, l.OrganizationID, l.Environment, l.ResourceType, l.ResourceID, l.Action, l.ActorType, *lines[5].ContentHash,
				canonicalHash(l, *lines[5].ContentHash)))
		}, 7, store.AuditContentChanged},
		{"DeleteMiddle", func(t *testing.T, db *sql.DB, _ []auditLine) {
			mustExec(t, db, `DELETE FROM audit_log WHERE id = 3`)
		}, 4, store.AuditRowMissing},
		{"DeleteFirst", func(t *testing.T, db *sql.DB, _ []auditLine) {
			mustExec(t, db, `DELETE FROM audit_log WHERE id IN (1, 2)`)
		}, 3, store.AuditRowMissing},
		// Deleting a row and renumbering the rest closes the gap but not the chain.
		{"DeleteAndRenumber", func(t *testing.T, db *sql.DB, _ []auditLine) {
			mustExec(t, db, `DELETE FROM audit_log WHERE id = 3`, `UPDATE audit_log SET id = id - 1 WHERE id > 3`)
		}, 3, store.AuditLinkBroken},
		{"StripHashes", func(t *testing.T, db *sql.DB, _ []auditLine) {
			mustExec(t, db, `UPDATE audit_log SET prev_hash = NULL, content_hash = NULL WHERE id = 5`)
		}, 5, store.AuditHashMissing},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := chainedStore(t)
			lines := exportAudit(t, s, time.Time{})
			db := fileDB(t, s.Path())
			mustExec(t, db, `DROP TRIGGER audit_log_no_update`, `DROP TRIGGER audit_log_no_delete`)
			tt.tamper(t, db, lines)
			v := mustVerify(t, s)
			if v.OK() {
				t.Fatalf("verify = ok (%d rows) after tampering", v.Rows)
			}
			b := v.Broken
			if b.ID != tt.id || b.Problem != tt.problem || (b.Expected == b.Stored && b.Problem != store.AuditHeadInvalid) || b.Detail == "" {
				t.Fatalf("broken = %+v, want row %d %s", b, tt.id, tt.problem)
			}
			t.Logf("row %d: %s: %s (%s expected %.12s…, stored %.12s…)", b.ID, b.Problem, b.Detail, b.Field, b.Expected, b.Stored)
		})
	}
	// The edit case in detail: the stored hash is the original one, the
	// expected one is what the edited fields hash to.
	s, _ := chainedStore(t)
	orig := exportAudit(t, s, time.Time{})[2]
	db := fileDB(t, s.Path())
	mustExec(t, db, `DROP TRIGGER audit_log_no_update`, `UPDATE audit_log SET reason = 'x' WHERE id = 3`)
	edited := orig
	edited.Reason = ptr("x")
	if b := mustVerify(t, s).Broken; b == nil || b.Field != "content_hash" || b.Stored != *orig.ContentHash ||
		b.Expected != canonicalMAC(auditKey(t, s.Path()), edited, *orig.PrevHash) {
		t.Fatalf("broken = %+v", b)
	}
}

// TestAuditTriggers: the table refuses updates and deletes, and rows
// without hashes, on every connection.
func TestAuditTriggers(t *testing.T) {
	s, _ := chainedStore(t)
	db := fileDB(t, s.Path())
	for _, q := range []string{
		`UPDATE audit_log SET reason = 'x' WHERE id = 3`,
		`DELETE FROM audit_log WHERE id = 3`,
		`DELETE FROM audit_log`,
		`INSERT INTO audit_log (organization_id, environment, resource_type, resource_id, action, actor_type, created_at)
			VALUES ('org', 'live', 'kyc_request', 'kyc_x', 'a', 'system', '2026-01-01T00:00:00.000Z')`,
	} {
		_, err := db.Exec(q)
		if err == nil || !strings.Contains(err.Error(), "audit_log") {
			t.Errorf("%s: %v, want refused by a trigger", q, err)
		}
	}
	if v := mustVerify(t, s); !v.OK() || v.Rows != 6 {
		t.Fatalf("verify = %+v", v)
	}
}

// TestAuditChainConcurrent appends from many goroutines at once: group
// commit puts them in shared transactions, some use cases fail after
// appending (their savepoint is rolled back, freeing the id), and the
// chain must still hold.
func TestAuditChainConcurrent(t *testing.T) {
	s := storetest.Open(t)
	orgs := []string{"org_acme", "org_globex"}
	errBoom := errors.New("boom")
	const n = 400
	before := s.Stats()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			errs[i] = s.InTx(t.Context(), func(tx *store.Tx) error {
				if err := tx.AppendAudit(testAuditEntry(orgs, i)); err != nil {
					return err
				}
				if i%5 == 4 {
					return errBoom
				}
				return tx.AppendAudit(testAuditEntry(orgs, i+1)) // two rows in one use case
			})
		})
	}
	wg.Wait()
	kept := int64(0)
	for i, err := range errs {
		switch {
		case i%5 == 4 && !errors.Is(err, errBoom):
			t.Fatalf("use case %d: %v, want boom", i, err)
		case i%5 != 4 && err != nil:
			t.Fatalf("use case %d: %v", i, err)
		case i%5 != 4:
			kept += 2
		}
	}
	v := mustVerify(t, s)
	if !v.OK() || v.Rows != kept {
		t.Fatalf("verify = %+v (broken %+v), want ok with %d rows", v, v.Broken, kept)
	}
	after := s.Stats()
	t.Logf("%d use cases in %d commits", after.UseCases-before.UseCases, after.Commits-before.Commits)
}

// TestAuditPreChain upgrades a database that already has audit rows:
// they stay without hashes, the first chained row links to a hash over
// them, and from then on editing one of them is found.
func TestAuditPreChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db := fileDB(t, path)
	// Build the schema as it was before 0007, from the migration files.
	for v := 1; v <= 6; v++ {
		files, err := filepath.Glob(fmt.Sprintf("migrations/%04d_*.sql", v))
		if err != nil || len(files) != 1 {
			t.Fatalf("migration %d: %v %v", v, files, err)
		}
		b, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		mustExec(t, db, string(b))
	}
	for i := range 3 {
		mustExec(t, db, fmt.Sprintf(`INSERT INTO audit_log (organization_id, environment, resource_type, resource_id, action,
			actor_type, to_status, created_at) VALUES ('org_old', 'live', 'kyc_request', 'kyc_old%d', 'svc.kyc.request.created',
			'api_key', 'link_generated', '2025-06-0%dT10:00:00.000Z')`, i, i+1))
	}
	mustExec(t, db, `PRAGMA user_version = 6`)
	db.Close()

	s, err := store.Open(t.Context(), path, store.Options{MasterKey: storetest.MasterKey})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v := mustVerify(t, s); !v.OK() || v.Rows != 3 || v.PreChain != 3 || v.MACFrom != 4 {
		t.Fatalf("after the upgrade: %+v", v)
	}
	mustAppendAudit(t, s, testAuditEntry([]string{"org_new"}, 0), testAuditEntry([]string{"org_new"}, 1))
	v := mustVerify(t, s)
	if !v.OK() || v.Rows != 5 || v.PreChain != 3 {
		t.Fatalf("after two chained rows: %+v (broken %+v)", v, v.Broken)
	}
	lines := exportAudit(t, s, time.Time{})
	anchor := zeros
	for _, l := range lines[:3] {
		if l.PrevHash != nil || l.ContentHash != nil {
			t.Fatalf("pre-chain row got hashes: %+v", l)
		}
		anchor = canonicalHash(l, anchor)
	}
	if got := lines[3].PrevHash; got == nil || *got != anchor {
		t.Fatalf("first chained row links to %v, want the hash over the pre-chain rows %s", got, anchor)
	}

	// An edit to a pre-chain row now breaks the link of the first chained row.
	raw := fileDB(t, path)
	mustExec(t, raw, `DROP TRIGGER audit_log_no_update`, `UPDATE audit_log SET resource_id = 'kyc_other' WHERE id = 2`)
	if b := mustVerify(t, s).Broken; b == nil || b.ID != 4 || b.Problem != store.AuditLinkBroken {
		t.Fatalf("broken = %+v, want the link of row 4", b)
	}
}

// TestAuditExpectHead: an attacker who kept an old copy of the head can
// put it back with the log cut to match (a rollback), which the signed
// head alone cannot tell. The head the operator kept elsewhere can.
func TestAuditExpectHead(t *testing.T) {
	s, clock := chainedStore(t)
	db := fileDB(t, s.Path())
	type head struct {
		rows       int64
		hash, at   string
		since, mac string
	}
	var old head
	if err := db.QueryRow(`SELECT row_count, head_hash, signed_at, signed_since, mac FROM audit_head`).
		Scan(&old.rows, &old.hash, &old.at, &old.since, &old.mac); err != nil {
		t.Fatal(err)
	}
	mustAppendAudit(t, s, testAuditEntry([]string{"org_acme"}, 6), testAuditEntry([]string{"org_acme"}, 7))
	clock.Advance(time.Minute)
	kept := mustVerify(t, s) // what an operator printed and kept
	if !kept.OK() || kept.Rows != 8 {
		t.Fatalf("verify = %+v", kept)
	}
	cp := &store.AuditCheckpoint{Rows: kept.Rows, Hash: kept.Head}
	if v, err := s.VerifyAudit(t.Context(), cp); err != nil || !v.OK() {
		t.Fatalf("verify against the kept head: %+v %v", v, err)
	}

	mustExec(t, db, `DROP TRIGGER audit_log_no_delete`, `DELETE FROM audit_log WHERE id > 6`,
		fmt.Sprintf(`UPDATE audit_head SET row_count = %d, head_hash = '%s', signed_at = '%s', signed_since = '%s', mac = '%s'`,
			old.rows, old.hash, old.at, old.since, old.mac))
	if v := mustVerify(t, s); !v.OK() {
		t.Fatalf("a rolled-back log with its old head: %+v; the signed head alone cannot see a rollback", v.Broken)
	}
	v, err := s.VerifyAudit(t.Context(), cp)
	if err != nil || v.OK() || v.Broken.Problem != store.AuditTruncated || v.Broken.ID != 7 {
		t.Fatalf("verify against the kept head after a rollback: %+v %v", v.Broken, err)
	}
	// A kept head whose row now has another hash: rewritten.
	v, err = s.VerifyAudit(t.Context(), &store.AuditCheckpoint{Rows: 3, Hash: kept.Head})
	if err != nil || v.OK() || v.Broken.Problem != store.AuditHeadMismatch || v.Broken.ID != 3 {
		t.Fatalf("verify against a head the log does not hold: %+v %v", v.Broken, err)
	}
}

// TestAuditHeadRefreshAndAppend: serve re-signs the head only while the
// log ends where the head says, and nothing is appended after a forged head.
func TestAuditHeadRefreshAndAppend(t *testing.T) {
	s, clock := chainedStore(t)
	before := mustVerify(t, s).SignedAt
	clock.Advance(time.Hour)
	if err := s.RefreshAuditHead(t.Context()); err != nil {
		t.Fatal(err)
	}
	if v := mustVerify(t, s); !v.OK() || !v.SignedAt.Equal(clock.Now()) || !v.SignedAt.After(before) {
		t.Fatalf("after refresh: signed %v (was %v), %+v", v.SignedAt, before, v.Broken)
	}
	db := fileDB(t, s.Path())
	mustExec(t, db, `DROP TRIGGER audit_log_no_delete`, `DELETE FROM audit_log WHERE id = 6`)
	if err := s.RefreshAuditHead(t.Context()); !errors.Is(err, store.ErrAuditHead) {
		t.Fatalf("refresh over a truncated log: %v, want ErrAuditHead", err)
	}
	if b := mustVerify(t, s).Broken; b == nil || b.Problem != store.AuditTruncated {
		t.Fatalf("the refresh hid the truncation: %+v", b)
	}
	// Appending links to the head, not to the last row left: the gap stays.
	mustAppendAudit(t, s, testAuditEntry([]string{"org_acme"}, 9))
	if b := mustVerify(t, s).Broken; b == nil || b.Problem != store.AuditRowMissing || b.ID != 7 {
		t.Fatalf("after appending: %+v, want row 6 missing", b)
	}
	mustExec(t, db, `UPDATE audit_head SET mac = 'forged'`)
	err := s.InTx(t.Context(), func(tx *store.Tx) error { return tx.AppendAudit(testAuditEntry([]string{"org_acme"}, 10)) })
	if !errors.Is(err, store.ErrAuditHead) {
		t.Fatalf("append after a forged head: %v, want ErrAuditHead", err)
	}
}

// TestAuditUpgradeKeepsSHAChain: rows chained with SHA-256 before
// the audit_head migration keep verifying; the keyed chain starts after them, and
// a rewrite of the old rows (hashes recomputed) is still found.
func TestAuditUpgradeKeepsSHAChain(t *testing.T) {
	build := func(t *testing.T) string {
		path := filepath.Join(t.TempDir(), "before-head.db")
		db := fileDB(t, path)
		files, err := filepath.Glob("migrations/*.sql")
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(files)
		version := 0
		for _, f := range files {
			if strings.HasSuffix(f, "_audit_head.sql") {
				break
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			mustExec(t, db, string(b))
			version++
		}
		prev := zeros
		for i := 1; i <= 3; i++ {
			l := auditLine{ID: int64(i), CreatedAt: fmt.Sprintf("2026-0%d-01T10:00:00.000Z", i), OrganizationID: "org_old",
				Environment: "live", ResourceType: "kyc_request", ResourceID: fmt.Sprint("kyc_old", i), Action: "svc.kyc.request.approved",
				ActorType: "reviewer"}
			h := canonicalHash(l, prev)
			mustExec(t, db, fmt.Sprintf(`INSERT INTO audit_log (id, created_at, organization_id, environment, resource_type, resource_id,
				action, actor_type, prev_hash, content_hash) VALUES (%d, '%s', 'org_old', 'live', 'kyc_request', '%s', '%s', 'reviewer', '%s', '%s')`,
				l.ID, l.CreatedAt, l.ResourceID, l.Action, prev, h))
			prev = h
		}
		mustExec(t, db, fmt.Sprintf(`PRAGMA user_version = %d`, version))
		db.Close()
		return path
	}
	open := func(t *testing.T, path string) *store.Store {
		s, err := store.Open(t.Context(), path, store.Options{MasterKey: storetest.MasterKey})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	path := build(t)
	s := open(t, path)
	if v := mustVerify(t, s); !v.OK() || v.Rows != 3 || v.MACFrom != 4 {
		t.Fatalf("after the upgrade: %+v (broken %+v)", v, v.Broken)
	}
	mustAppendAudit(t, s, testAuditEntry([]string{"org_new"}, 0))
	if v := mustVerify(t, s); !v.OK() || v.Rows != 4 {
		t.Fatalf("after a keyed row: %+v (broken %+v)", v, v.Broken)
	}
	// Rewriting the SHA-256 rows with recomputed hashes breaks the link
	// of the first keyed row, which only the key could have recomputed.
	raw := fileDB(t, path)
	lines := exportAudit(t, s, time.Time{})
	mustExec(t, raw, `DROP TRIGGER audit_log_no_update`)
	prev := zeros
	for _, l := range lines[:3] {
		l.ResourceID = "kyc_rewritten"
		h := canonicalHash(l, prev)
		mustExec(t, raw, fmt.Sprintf(`UPDATE audit_log SET resource_id = 'kyc_rewritten', prev_hash = '%s', content_hash = '%s' WHERE id = %d`, prev, h, l.ID))
		prev = h
	}
	if b := mustVerify(t, s).Broken; b == nil || b.ID != 4 || b.Problem != store.AuditLinkBroken {
		t.Fatalf("broken = %+v, want the link of row 4", b)
	}
	// Before any keyed row, the signed head holds the old chain's hash.
	path = build(t)
	s = open(t, path)
	raw = fileDB(t, path)
	lines = exportAudit(t, s, time.Time{})
	mustExec(t, raw, `DROP TRIGGER audit_log_no_update`)
	l := lines[2]
	l.ResourceID = "kyc_rewritten"
	mustExec(t, raw, fmt.Sprintf(`UPDATE audit_log SET resource_id = 'kyc_rewritten', content_hash = '%s' WHERE id = 3`, canonicalHash(l, *l.PrevHash)))
	if b := mustVerify(t, s).Broken; b == nil || b.Problem != store.AuditHeadMismatch {
		t.Fatalf("broken = %+v, want the head mismatch", b)
	}
}
