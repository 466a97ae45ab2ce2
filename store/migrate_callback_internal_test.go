package store

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestCallbackMigrationKeepsDeliveries: the migration that makes a
// delivery's endpoint optional rebuilds webhook_deliveries and
// webhook_attempts; every row and the cascade from a delivery to its
// attempts survive it.
func TestCallbackMigrationKeepsDeliveries(t *testing.T) {
	ms, err := loadMigrations(sqliteMigrationDir)
	if err != nil {
		t.Fatal(err)
	}
	at := -1
	for i, m := range ms {
		if strings.HasSuffix(m.name, "_callback_deliveries.sql") {
			at = i
		}
	}
	if at < 0 {
		t.Fatal("no callback_deliveries migration")
	}
	path := filepath.Join(t.TempDir(), "kyc.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(ON)")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms[:at] {
		if _, err := db.Exec(m.sql); err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
	}
	for _, q := range []string{
		fmt.Sprintf("PRAGMA user_version = %d", at),
		`INSERT INTO organizations (id, name, created_at) VALUES ('org_1', 'Acme', '2026-01-01T00:00:00.000Z')`,
		`INSERT INTO webhook_endpoints (id, organization_id, environment, url, secret, created_at, updated_at)
			VALUES ('we_1', 'org_1', 'sandbox', 'https://example.com/', x'00', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
		`INSERT INTO events (id, organization_id, environment, type, resource_id, payload, created_at)
			VALUES ('kev_1', 'org_1', 'sandbox', 'svc.webhook.test', 'we_1', x'7b7d', '2026-01-01T00:00:00.000Z')`,
		`INSERT INTO webhook_deliveries (id, organization_id, environment, endpoint_id, event_id, event_type, status, attempts, last_status_code, created_at, updated_at)
			VALUES ('whd_1', 'org_1', 'sandbox', 'we_1', 'kev_1', 'svc.webhook.test', 'failed', 2, 500, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z')`,
		`INSERT INTO webhook_attempts (delivery_id, attempt, request_headers, response_status, response_excerpt, duration_ms, error, started_at)
			VALUES ('whd_1', 1, '{}', 500, 'nope', 12, 'receiver answered 500', '2026-01-01T00:00:00.000Z'),
			       ('whd_1', 2, '{}', 500, 'nope', 15, 'receiver answered 500', '2026-01-01T00:00:01.000Z')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d, err := s.FindDelivery(t.Context(), "org_1", kyc.Sandbox, "whd_1")
	if err != nil || d.EndpointID != "we_1" || d.CallbackURL != "" || d.Status != "failed" || d.Attempts != 2 || *d.LastStatusCode != 500 {
		t.Fatalf("delivery after the migration: %+v %v", d, err)
	}
	attempts, err := s.FindAttempts(t.Context(), "whd_1")
	if err != nil || len(attempts) != 2 || attempts[1].ResponseExcerpt != "nope" || attempts[1].BodyWithheld || attempts[1].Duration.Milliseconds() != 15 {
		t.Fatalf("attempts after the migration: %+v %v", attempts, err)
	}
	var problems int
	if err := s.reader.QueryRow(`SELECT count(*) FROM pragma_foreign_key_check`).Scan(&problems); err != nil || problems != 0 {
		t.Fatalf("foreign key check: %d %v", problems, err)
	}
	// The attempts still belong to the deliveries table: deleting the
	// delivery takes them along.
	err = s.InTx(t.Context(), func(tx *Tx) error {
		_, err := tx.exec(`DELETE FROM webhook_deliveries WHERE id = 'whd_1'`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if attempts, _ := s.FindAttempts(t.Context(), "whd_1"); len(attempts) != 0 {
		t.Errorf("%d attempts outlived their delivery", len(attempts))
	}
}
