package store

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/seal"
)

// openBefore makes a database file with the migrations before the one
// whose name ends in suffix applied, as a kycd of that schema version left
// it (by name, so that renumbering at a merge does not break the test).
func openBefore(t *testing.T, suffix string) (path string, db *sql.DB) {
	t.Helper()
	ms, err := loadMigrations(sqliteMigrationDir)
	if err != nil {
		t.Fatal(err)
	}
	n := slices.IndexFunc(ms, func(m migration) bool { return strings.HasSuffix(m.name, suffix) })
	if n < 0 {
		t.Fatalf("no migration %s", suffix)
	}
	path = filepath.Join(t.TempDir(), "old.db")
	db, err = sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(ON)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, m := range ms[:n] {
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatalf("migration %s: %v", m.name, err)
		}
	}
	if _, err := db.Exec("PRAGMA user_version = " + strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	return path, db
}

func testSealer(t *testing.T) Sealer {
	t.Helper()
	box, err := seal.New(bytes.Repeat([]byte{9}, seal.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// TestMigratePortalLink: requests a kycd with the in_progress status left
// behind become link_generated with portalOpenedAt, their timeline loses
// in_progress and gains the svc.-prefixed types, the audit log keeps what
// happened, and requests without a sealed token show no link.
func TestMigratePortalLink(t *testing.T) {
	path, db := openBefore(t, "_portal_link.sql")
	const created, opened, submitted, later = "2026-01-02T03:04:05.000Z", "2026-01-02T04:00:00.000Z", "2026-01-02T05:00:00.000Z", "2026-01-02T06:00:00.000Z"
	for _, q := range []string{
		`INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'Org', '` + created + `')`,
		`INSERT INTO applicants (id, public_id, organization_id, environment, first_name, last_name, status, created_at, updated_at)
		 VALUES ('app_1', 'app_p1', 'org_1', 'live', 'Ada', 'Lovelace', 'active', '` + created + `', '` + created + `')`,
		// Opened, not submitted: in_progress.
		`INSERT INTO kyc_requests (id, public_id, organization_id, environment, applicant_id, status, decision, workflow_type,
		 portal_token_hash, portal_expires_at, created_at, updated_at)
		 VALUES ('kyc_01KE10FGB8BD7T8R18PYKSZK0A', 'kyc_aaaaaaaaaaa1', 'org_1', 'live', 'app_1', 'in_progress', 'pending', 'standard', x'01', '2026-02-01T00:00:00.000Z', '` + created + `', '` + opened + `')`,
		// Opened and submitted.
		`INSERT INTO kyc_requests (id, public_id, organization_id, environment, applicant_id, status, decision, workflow_type,
		 portal_token_hash, portal_expires_at, created_at, updated_at, submitted_at)
		 VALUES ('kyc_01KE10FGB8BD7T8R18PYKSZK0B', 'kyc_aaaaaaaaaaa2', 'org_1', 'live', 'app_1', 'submitted', 'pending', 'standard', x'02', '2026-02-01T00:00:00.000Z', '` + created + `', '` + submitted + `', '` + submitted + `')`,
		// Never opened.
		`INSERT INTO kyc_requests (id, public_id, organization_id, environment, applicant_id, status, decision, workflow_type,
		 portal_token_hash, portal_expires_at, created_at, updated_at)
		 VALUES ('kyc_01KE10FGB8BD7T8R18PYKSZK0C', 'kyc_aaaaaaaaaaa3', 'org_1', 'live', 'app_1', 'link_generated', 'pending', 'standard', x'03', '2026-02-01T00:00:00.000Z', '` + created + `', '` + created + `')`,
		`INSERT INTO kyc_events (id, request_id, type, from_status, to_status, decision, actor_type, created_at) VALUES
		 ('kte_1', 'kyc_01KE10FGB8BD7T8R18PYKSZK0A', 'svc.kyc.request.created', NULL, 'link_generated', 'pending', 'api_key', '` + created + `'),
		 ('kte_2', 'kyc_01KE10FGB8BD7T8R18PYKSZK0A', 'kyc.request.opened', 'link_generated', 'in_progress', 'pending', 'applicant', '` + opened + `'),
		 ('kte_3', 'kyc_01KE10FGB8BD7T8R18PYKSZK0B', 'kyc.request.opened', 'link_generated', 'in_progress', 'pending', 'applicant', '` + opened + `'),
		 ('kte_4', 'kyc_01KE10FGB8BD7T8R18PYKSZK0B', 'svc.kyc.request.submitted', 'in_progress', 'submitted', 'pending', 'applicant', '` + submitted + `'),
		 ('kte_5', 'kyc_01KE10FGB8BD7T8R18PYKSZK0B', 'kyc.review.first_decision', 'awaiting_review', 'awaiting_review', 'pending', 'reviewer', '` + later + `')`,
		`INSERT INTO audit_log (id, organization_id, environment, resource_type, resource_id, action, actor_type, from_status, to_status,
		 created_at, prev_hash, content_hash)
		 VALUES (1, 'org_1', 'live', 'kyc_request', 'kyc_01KE10FGB8BD7T8R18PYKSZK0A', 'kyc.request.opened', 'applicant', 'link_generated', 'in_progress',
		 '` + opened + `', 'p', 'c')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	db.Close()

	s, err := Open(t.Context(), path, Options{MasterKey: func(bool) (Sealer, error) { return testSealer(t), nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tt := range []struct {
		id     string
		status kyc.KYCStatus
		opened string
	}{{"kyc_01KE10FGB8BD7T8R18PYKSZK0A", kyc.KYCLinkGenerated, opened}, {"kyc_01KE10FGB8BD7T8R18PYKSZK0B", kyc.KYCSubmitted, opened}, {"kyc_01KE10FGB8BD7T8R18PYKSZK0C", kyc.KYCLinkGenerated, ""}} {
		r, err := s.FindKYCRequest(t.Context(), "org_1", kyc.Live, tt.id)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if r.PortalOpenedAt != nil {
			got = kyc.FormatTime(*r.PortalOpenedAt)
		}
		if r.Status != tt.status || got != tt.opened || r.PortalToken != "" {
			t.Errorf("%s: status %s portalOpenedAt %q token %q; want %s %q and no token (none was kept)", tt.id, r.Status, got, r.PortalToken, tt.status, tt.opened)
		}
	}
	var n int
	if err := s.reader.QueryRow(`SELECT count(*) FROM kyc_events WHERE to_status = 'in_progress' OR from_status = 'in_progress'
		OR type NOT LIKE 'svc.%'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("timeline rows still with in_progress or a type without svc.: %d %v", n, err)
	}
	evs, err := s.FindKYCEvents(t.Context(), "kyc_01KE10FGB8BD7T8R18PYKSZK0B")
	if err != nil || len(evs) != 3 || evs[0].Type != kyc.TimelineOpened || evs[1].FromStatus == nil ||
		*evs[1].FromStatus != kyc.KYCLinkGenerated || evs[2].Type != kyc.TimelineFirstReview {
		t.Errorf("timeline after migration: %+v %v", evs, err)
	}
	// The timeline is append-only again.
	if _, err := s.writer.ExecContext(context.Background(), `UPDATE kyc_events SET reason = 'x' WHERE id = 'kte_1'`); err == nil {
		t.Error("kyc_events accepts updates after the migration")
	}
	var action, to string
	if err := s.reader.QueryRow(`SELECT action, to_status FROM audit_log WHERE id = 1`).Scan(&action, &to); err != nil ||
		action != "kyc.request.opened" || to != "in_progress" {
		t.Errorf("audit row changed: %s %s %v", action, to, err)
	}
}
