package store_test

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestStoredResponsesAndEmailsSealed: a stored idempotent response and an
// e-mail body are ciphertext in the file and plain through the store; an
// e-mail's body is gone once sent.
func TestStoredResponsesAndEmailsSealed(t *testing.T) {
	s := storetest.OpenOn(t, "sqlite") // reads the SQLite file directly
	org := storetest.MustOrg(t, s, "acme", nil)
	body := []byte(`{"secret":"whsec_0123456789abcdefghij","portalUrl":"https://k.example/portal/TOKEN0123456789"}`)
	err := s.InTx(t.Context(), func(tx *store.Tx) error {
		if err := tx.SaveIdempotentResponse(org.ID, kyc.Sandbox, "k-1", &store.IdempotentResponse{RequestHash: []byte("h"), StatusCode: 201, Body: body}); err != nil {
			return err
		}
		return tx.QueueEmailMessage(org.ID, store.Email{To: "ada@example.com", Subject: "Verify", Body: "Open https://k.example/portal/MAILTOKEN42",
			HTML: `<a href="https://k.example/portal/MAILTOKEN42">Verify</a>`})
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.FindIdempotentResponse(t.Context(), org.ID, kyc.Sandbox, "k-1", s.Now())
	if err != nil || r == nil || !bytes.Equal(r.Body, body) {
		t.Fatalf("replayed %+v, %v", r, err)
	}
	db := fileDB(t, s.Path())
	var stored []byte
	var mail, html string
	if err := db.QueryRow(`SELECT response_body FROM idempotency_keys`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT body, html_body FROM email_outbox`).Scan(&mail, &html); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(stored, []byte("whsec_")) || bytes.Contains(stored, []byte("TOKEN0123456789")) || strings.Contains(mail, "MAILTOKEN42") ||
		strings.Contains(html, "MAILTOKEN42") {
		t.Fatalf("stored in clear: %q / %q / %q", stored, mail, html)
	}
	// Another key's row does not open with this one's AAD: moved rows fail.
	if r, err := s.FindIdempotentResponse(t.Context(), org.ID, kyc.Live, "k-1", s.Now()); err != nil || r != nil {
		t.Fatalf("other environment: %v %v", r, err)
	}
	mails, err := s.FindEmails(t.Context())
	if err != nil || len(mails) != 1 || !strings.Contains(mails[0].Body, "MAILTOKEN42") || !strings.HasPrefix(mails[0].HTML, `<a href="https://k.example/portal/MAILTOKEN42">`) {
		t.Fatalf("outbox: %+v %v", mails, err)
	}
	if err := s.InTx(t.Context(), func(tx *store.Tx) error { return tx.MarkEmail(mails[0].ID, nil) }); err != nil {
		t.Fatal(err)
	}
	var htmlAfter sql.NullString
	if err := db.QueryRow(`SELECT body, html_body FROM email_outbox`).Scan(&mail, &htmlAfter); err != nil || mail != "" || htmlAfter.Valid {
		t.Fatalf("bodies after sending: %q %v %v", mail, htmlAfter, err)
	}
}

// TestPlaintextFromOlderVersionsSealed: responses and e-mails an older kycd
// stored in clear still replay and send, and the first start with the
// master key seals them (or, for sent e-mails, empties them).
func TestPlaintextFromOlderVersionsSealed(t *testing.T) {
	s := storetest.OpenOn(t, "sqlite") // reads the SQLite file directly
	org := storetest.MustOrg(t, s, "acme", nil)
	db := fileDB(t, s.Path())
	mustExec(t, db,
		`INSERT INTO idempotency_keys (organization_id, environment, key, request_hash, status_code, response_body, created_at, expires_at)
			VALUES ('`+org.ID+`', 'sandbox', 'old', x'00', 201, CAST('{"secret":"whsec_OLDSECRET"}' AS BLOB), '2026-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z')`,
		`INSERT INTO email_outbox (organization_id, to_address, subject, body, html_body, created_at) VALUES ('`+org.ID+`', 'a@b.example', 's', 'unsent OLDTOKEN1', '<p>OLDTOKEN3</p>', '2026-01-01T00:00:00.000Z')`,
		`INSERT INTO email_outbox (organization_id, to_address, subject, body, created_at, sent_at) VALUES ('`+org.ID+`', 'a@b.example', 's', 'sent OLDTOKEN2', '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z')`)
	if r, err := s.FindIdempotentResponse(t.Context(), org.ID, kyc.Sandbox, "old", s.Now()); err != nil || r == nil || !strings.Contains(string(r.Body), "OLDSECRET") {
		t.Fatalf("a response stored in clear does not replay: %v %v", r, err)
	}
	if _, _, err := s.EncryptPlaintext(t.Context()); err != nil {
		t.Fatal(err)
	}
	if r, err := s.FindIdempotentResponse(t.Context(), org.ID, kyc.Sandbox, "old", s.Now()); err != nil || r == nil || !strings.Contains(string(r.Body), "OLDSECRET") {
		t.Fatalf("after sealing: %v %v", r, err)
	}
	mails, err := s.FindEmails(t.Context())
	if err != nil || len(mails) != 2 || mails[0].Body != "unsent OLDTOKEN1" || mails[0].HTML != "<p>OLDTOKEN3</p>" || mails[1].Body != "" {
		t.Fatalf("outbox after sealing: %+v %v", mails, err)
	}
	s.Close()
	for _, f := range []string{s.Path(), s.Path() + "-wal"} {
		b, _ := os.ReadFile(f)
		for _, secret := range []string{"OLDSECRET", "OLDTOKEN1", "OLDTOKEN3"} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s still holds %s (not overwritten)", filepath.Base(f), secret)
			}
		}
	}
}

// TestDatabaseFilesPrivate: a new database, its WAL and its shared-memory
// file are readable by their owner only.
func TestDatabaseFilesPrivate(t *testing.T) {
	s := storetest.OpenOn(t, "sqlite") // reads the SQLite file directly
	storetest.MustOrg(t, s, "acme", nil)
	for _, f := range []string{s.Path(), s.Path() + "-wal", s.Path() + "-shm"} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", filepath.Base(f), fi.Mode().Perm())
		}
	}
}
