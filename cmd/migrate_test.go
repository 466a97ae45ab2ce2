package cmd_test

import (
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestMigrateToPostgres: kycd migrate copies a SQLite installation into an
// empty PostgreSQL database; every table's count and digest match, the
// audit chain verifies there with the same head, sealed data opens with
// the same master key, and new rows continue after the copied ids. A
// second run into the now non-empty database is refused.
func TestMigrateToPostgres(t *testing.T) {
	dsn := storetest.DB(t, "postgres")
	path := auditDB(t, 5)
	s := openDBWithKey(t, path)
	org := storetest.MustOrg(t, s, "acme", nil)
	var appID, reqID string
	err := s.InTx(t.Context(), func(tx *store.Tx) error {
		a, err := tx.CreateApplicant(org.ID, kyc.Sandbox, &kyc.ApplicantInput{FirstName: new("Ada"), LastName: new("Lovelace")})
		if err != nil {
			return err
		}
		appID = a.ID
		// Document details, sealed under the applicant's own key (kept
		// in <db>.keys): migrate must carry the key over too.
		r := &kyc.KYCRequest{OrganizationID: org.ID, Environment: kyc.Sandbox, ApplicantID: a.ID, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: tx.Now()}
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		reqID = r.ID
		r.DocumentData = &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "GB", DocumentNumber: "P123", ExpiryDate: "2031-01-01"}
		if err := tx.SaveKYCRequest(r); err != nil {
			return err
		}
		return tx.QueueEmail(org.ID, "ada@example.com", "hello", "a sealed body with a portal link")
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	code, out, errOut := run(t, "audit", "verify", "--db", path)
	if code != 0 {
		t.Fatalf("verify before: %d %s %s", code, out, errOut)
	}
	head := strings.Fields(out)[5] // ok: N rows, chain head N:<hash>

	code, out, errOut = run(t, "migrate", "--from", path, "--to", dsn)
	if code != 0 {
		t.Fatalf("migrate: %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "every table's count and digest match") || !strings.Contains(out, "head "+head) {
		t.Fatalf("migrate output:\n%s", out)
	}
	t.Logf("\n%s", out)

	pg, err := store.Open(t.Context(), dsn, withKey(readKeyFile(t, path+".master-key")))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if a, err := pg.FindApplicant(t.Context(), org.ID, kyc.Sandbox, appID); err != nil || a.FirstName != "Ada" {
		t.Fatalf("applicant on PostgreSQL: %+v, %v", a, err)
	}
	if r, err := pg.FindKYCRequest(t.Context(), org.ID, kyc.Sandbox, reqID); err != nil || r.DocumentData == nil || r.DocumentData.DocumentNumber != "P123" {
		t.Fatalf("document details on PostgreSQL (sealed under the applicant key): %v", err)
	}
	emails, err := pg.FindEmails(t.Context())
	if err != nil || len(emails) != 1 {
		t.Fatalf("emails: %v, %v", emails, err)
	}
	if m, err := pg.FindEmail(t.Context(), emails[0].ID); err != nil || m.Body != "a sealed body with a portal link" {
		t.Fatalf("sealed e-mail body on PostgreSQL: %+v, %v", m, err)
	}
	// New rows get new ids (the identity sequences continue after the copy).
	err = pg.InTx(t.Context(), func(tx *store.Tx) error {
		return tx.QueueEmail(org.ID, "bob@example.com", "again", "second")
	})
	if err != nil {
		t.Fatalf("queue after migrate: %v", err)
	}
	if code, out, errOut := run(t, "audit", "verify", "--db", dsn, "--master-key-file", path+".master-key"); code != 0 {
		t.Fatalf("verify on PostgreSQL: %d %s %s", code, out, errOut)
	}
	if code, _, errOut := run(t, "migrate", "--from", path, "--to", dsn); code == 0 || !strings.Contains(errOut, "not empty") {
		t.Fatalf("second migrate: %d %s", code, errOut)
	}
}

// TestSQLiteOnlyCommandsRefusePostgres: Litestream backups and replication
// are SQLite's; on a postgres:// URL they refuse, saying what to use
// instead, before connecting anywhere.
func TestSQLiteOnlyCommandsRefusePostgres(t *testing.T) {
	url := "postgres://kycd:secret@127.0.0.1:1/kycd"
	code, _, errOut := run(t, "backup", "--db", url, "--out", t.TempDir()+"/b.db")
	if code == 0 || !strings.Contains(errOut, "SQLite database file only") || !strings.Contains(errOut, "pg_dump") {
		t.Errorf("backup on PostgreSQL: %d %s", code, errOut)
	}
	code, _, errOut = run(t, "serve", "--db", url, "--replicate", "file:///tmp/replica", "--addr", "127.0.0.1:0")
	if code == 0 || !strings.Contains(errOut, "SQLite database file only") {
		t.Errorf("serve --replicate on PostgreSQL: %d %s", code, errOut)
	}
	if strings.Contains(errOut, "secret") {
		t.Errorf("the password is in the message: %s", errOut)
	}
}
