package store_test

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"kycd/kyc"
	"kycd/seal"
	"kycd/store"
	"kycd/store/storetest"
)

// marker is in every plaintext these tests store; it must never be found
// in the database file or its WAL.
var marker = storetest.Marker

func masterKey(fill byte) func(bool) (store.Sealer, error) {
	return func(bool) (store.Sealer, error) { return seal.New(bytes.Repeat([]byte{fill}, seal.KeySize)) }
}

func openWith(t *testing.T, path string, master func(bool) (store.Sealer, error)) (*store.Store, error) {
	t.Helper()
	s, err := store.Open(t.Context(), path, store.Options{MasterKey: master})
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

func mustOpenWith(t *testing.T, path string, master func(bool) (store.Sealer, error)) *store.Store {
	t.Helper()
	s, err := openWith(t, path, master)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

// image, mustRequest and mustCapture are storetest's helpers, shared with
// the CLI's erasure tests.
func image() []byte { return storetest.Image() }

// mustRequest creates an applicant and a KYC request in org's sandbox,
// with doc when not nil.
func mustRequest(t *testing.T, s *store.Store, orgID string, doc *kyc.DocumentData) *kyc.KYCRequest {
	t.Helper()
	return storetest.MustRequest(t, s, orgID, kyc.Sandbox, doc)
}

func mustCapture(t *testing.T, s *store.Store, requestID, side string, data []byte) *kyc.Capture {
	t.Helper()
	return storetest.MustCapture(t, s, requestID, side, data)
}

// rawDB opens the file directly, as someone holding a copy would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// filesContain tells whether the database file or its WAL hold b.
func filesContain(t *testing.T, path string, b []byte) bool {
	t.Helper()
	for _, p := range []string{path, path + "-wal"} {
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, b) {
			return true
		}
	}
	return false
}

var passport = &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "GB", DocumentNumber: "KYCD-PLAINTEXT-MARKER-7f3a",
	ExpiryDate: "2031-01-01"}

func TestEncryptionAtRest(t *testing.T) {
	s := storetest.OpenOn(t, "sqlite") // reads the SQLite file directly
	org := storetest.MustOrg(t, s, "acme", nil)
	r := mustRequest(t, s, org.ID, passport)
	img := image()
	c := mustCapture(t, s, r.ID, "front", img)

	// Round trip.
	got, err := s.FindCaptureData(t.Context(), c.ID)
	if err != nil || !bytes.Equal(got.Data, img) {
		t.Fatalf("FindCaptureData: %v, equal %v", err, err == nil && bytes.Equal(got.Data, img))
	}
	back, err := s.FindKYCRequest(t.Context(), org.ID, kyc.Sandbox, r.ID)
	if err != nil || back.DocumentData == nil || *back.DocumentData != *passport {
		t.Fatalf("FindKYCRequest: %v %+v", err, back)
	}

	// Neither the image nor the document number is in the files, while
	// open (WAL) and after a clean close (checkpointed into the file).
	normalized := []byte(kyc.NormalizeDocumentNumber(passport.DocumentNumber))
	for _, when := range []string{"open", "closed"} {
		if when == "closed" {
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if filesContain(t, s.Path(), marker) || filesContain(t, s.Path(), normalized) {
			t.Fatalf("%s: plaintext found in the database file or WAL", when)
		}
	}
	var keyID sql.NullInt64
	var stored []byte
	if err := rawDB(t, s.Path()).QueryRow(`SELECT data, key_id FROM kyc_captures WHERE id = ?`, c.ID).Scan(&stored, &keyID); err != nil {
		t.Fatal(err)
	}
	// nonce + tag, after the applicant key's header (subjectkey.go): 8
	// magic bytes, the id's length and the id.
	if !keyID.Valid || len(stored) != len(img)+28+9+len(r.ApplicantID) {
		t.Errorf("stored capture: key_id %v, %d bytes for %d", keyID, len(stored), len(img))
	}
}

// TestEncryptionSwappedRows: a sealed value moved to another row by SQL
// does not open there; the read fails instead of returning bytes.
func TestEncryptionSwappedRows(t *testing.T) {
	s := storetest.OpenOn(t, "sqlite") // reads the SQLite file directly
	org := storetest.MustOrg(t, s, "acme", nil)
	r1 := mustRequest(t, s, org.ID, passport)
	r2 := mustRequest(t, s, org.ID, &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "FR", DocumentNumber: "X1", ExpiryDate: "2030-01-01"})
	front := mustCapture(t, s, r1.ID, "front", image())
	backSide := mustCapture(t, s, r1.ID, "back", []byte("another image"))

	// The store's reader is query_only: write with a connection of our own.
	db := rawDB(t, s.Path())
	if _, err := db.Exec(`UPDATE kyc_captures SET data = (SELECT data FROM kyc_captures WHERE id = ?) WHERE id = ?`, front.ID, backSide.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE kyc_requests SET document_data = (SELECT document_data FROM kyc_requests WHERE id = ?) WHERE id = ?`, r1.ID, r2.ID); err != nil {
		t.Fatal(err)
	}
	if c, err := s.FindCaptureData(t.Context(), backSide.ID); !errors.Is(err, seal.ErrOpen) || c != nil {
		t.Errorf("swapped capture: %v, %v; want seal.ErrOpen and no capture", c, err)
	}
	if _, err := s.FindCaptureData(t.Context(), front.ID); err != nil {
		t.Errorf("untouched capture: %v", err)
	}
	if r, err := s.FindKYCRequest(t.Context(), org.ID, kyc.Sandbox, r2.ID); !errors.Is(err, seal.ErrOpen) || r != nil {
		t.Errorf("swapped document data: %v; want seal.ErrOpen", err)
	}
}

func TestMasterKeyRequired(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kyc.db")
	var calls []bool
	first := func(hasKeys bool) (store.Sealer, error) {
		calls = append(calls, hasKeys)
		return masterKey(1)(hasKeys)
	}
	s := mustOpenWith(t, path, first)
	org := storetest.MustOrg(t, s, "acme", nil)
	r := mustRequest(t, s, org.ID, passport)
	c := mustCapture(t, s, r.ID, "front", image())
	s.Close()
	s = mustOpenWith(t, path, first)
	s.Close()
	if len(calls) != 2 || calls[0] || !calls[1] {
		t.Errorf("MasterKey called with hasKeys %v, want [false true]", calls)
	}

	// A wrong master key: Open refuses, so nothing is ever served.
	if _, err := openWith(t, path, masterKey(2)); !errors.Is(err, store.ErrWrongMasterKey) {
		t.Fatalf("open with a wrong key: %v, want ErrWrongMasterKey", err)
	}
	// The caller may refuse too (no key given for an encrypted database).
	noKey := errors.New("no key")
	if _, err := openWith(t, path, func(bool) (store.Sealer, error) { return nil, noKey }); !errors.Is(err, noKey) {
		t.Fatalf("open without a key: %v", err)
	}

	// Without MasterKey at all (CLI commands that need no images) the
	// store opens, but images and document details stay shut.
	s = mustOpenWith(t, path, nil)
	if _, err := s.FindCaptureData(t.Context(), c.ID); !errors.Is(err, store.ErrNoMasterKey) {
		t.Errorf("FindCaptureData without key: %v", err)
	}
	if _, err := s.FindKYCRequest(t.Context(), org.ID, kyc.Sandbox, r.ID); !errors.Is(err, store.ErrNoMasterKey) {
		t.Errorf("FindKYCRequest without key: %v", err)
	}
	err := s.InTx(t.Context(), func(tx *store.Tx) error {
		return tx.SaveCapture(&kyc.Capture{RequestID: r.ID, Kind: "selfie"}, []byte("x"))
	})
	if !errors.Is(err, store.ErrNoMasterKey) {
		t.Errorf("SaveCapture without key: %v", err)
	}
	if _, _, err := s.EncryptPlaintext(t.Context()); !errors.Is(err, store.ErrNoMasterKey) {
		t.Errorf("EncryptPlaintext without key: %v", err)
	}
}

func TestRewrapDataKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kyc.db")
	s := mustOpenWith(t, path, masterKey(1))
	org := storetest.MustOrg(t, s, "acme", nil)
	r := mustRequest(t, s, org.ID, passport)
	img := image()
	c := mustCapture(t, s, r.ID, "front", img)
	var before []byte
	db := rawDB(t, path)
	if err := db.QueryRow(`SELECT data FROM kyc_captures WHERE id = ?`, c.ID).Scan(&before); err != nil {
		t.Fatal(err)
	}

	newKey, _ := masterKey(2)(true)
	n, err := s.RewrapDataKeys(t.Context(), newKey)
	if err != nil || n != 1 {
		t.Fatalf("RewrapDataKeys = %d, %v", n, err)
	}
	// The running store keeps working: the data key did not change.
	if got, err := s.FindCaptureData(t.Context(), c.ID); err != nil || !bytes.Equal(got.Data, img) {
		t.Fatalf("read after rotation: %v", err)
	}
	s.Close()
	var after []byte
	if err := db.QueryRow(`SELECT data FROM kyc_captures WHERE id = ?`, c.ID).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("rotation re-encrypted a capture; it should only re-wrap the data key")
	}

	if _, err := openWith(t, path, masterKey(1)); !errors.Is(err, store.ErrWrongMasterKey) {
		t.Fatalf("old key after rotation: %v, want ErrWrongMasterKey", err)
	}
	s = mustOpenWith(t, path, masterKey(2))
	if got, err := s.FindCaptureData(t.Context(), c.ID); err != nil || !bytes.Equal(got.Data, img) {
		t.Fatalf("read with the new key: %v", err)
	}
	if got, err := s.FindKYCRequest(t.Context(), org.ID, kyc.Sandbox, r.ID); err != nil || *got.DocumentData != *passport {
		t.Fatalf("document data with the new key: %v", err)
	}
}

// TestEncryptPlaintext: rows written before encryption at rest (key_id
// NULL) are encrypted by EncryptPlaintext, and no plaintext is left behind
// in the file.
func TestEncryptPlaintext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kyc.db")
	s := mustOpenWith(t, path, masterKey(1))
	org := storetest.MustOrg(t, s, "acme", nil)
	old := mustRequest(t, s, org.ID, nil)
	// More than one batch of images (16), so that the step runs several
	// transactions.
	var caps []*kyc.Capture
	for i := range 10 {
		r := old
		if i > 0 {
			r = mustRequest(t, s, org.ID, nil)
		}
		for _, side := range []string{"front", "back"} {
			caps = append(caps, mustCapture(t, s, r.ID, side, []byte("placeholder")))
		}
	}
	s.Close()

	// Make them what an older kycd wrote: plaintext, no key.
	img := image()
	db := rawDB(t, path)
	for _, c := range caps {
		if _, err := db.Exec(`UPDATE kyc_captures SET data = ?, key_id = NULL WHERE id = ?`, img, c.ID); err != nil {
			t.Fatal(err)
		}
	}
	docJSON := `{"documentType":"passport","issuingCountry":"GB","documentNumber":"KYCD-PLAINTEXT-MARKER-7f3a","expiryDate":"2031-01-01"}`
	if _, err := db.Exec(`UPDATE kyc_requests SET document_data = ?, document_number = ?, document_key_id = NULL WHERE id = ?`,
		docJSON, kyc.NormalizeDocumentNumber(passport.DocumentNumber), old.ID); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if !filesContain(t, path, marker) {
		t.Fatal("test setup: the plaintext is not in the file")
	}

	s = mustOpenWith(t, path, masterKey(1))
	// Plaintext rows still read before the step has run.
	if got, err := s.FindCaptureData(t.Context(), caps[0].ID); err != nil || !bytes.Equal(got.Data, img) {
		t.Fatalf("plaintext capture: %v", err)
	}
	nc, nr, err := s.EncryptPlaintext(t.Context())
	if err != nil || nc != len(caps) || nr != 1 {
		t.Fatalf("EncryptPlaintext = %d, %d, %v; want %d, 1", nc, nr, err, len(caps))
	}
	if nc, nr, err := s.EncryptPlaintext(t.Context()); err != nil || nc != 0 || nr != 0 {
		t.Fatalf("EncryptPlaintext again = %d, %d, %v; want nothing to do", nc, nr, err)
	}
	for _, c := range caps {
		if got, err := s.FindCaptureData(t.Context(), c.ID); err != nil || !bytes.Equal(got.Data, img) {
			t.Fatalf("encrypted capture %s: %v", c.ID, err)
		}
	}
	got, err := s.FindKYCRequest(t.Context(), org.ID, kyc.Sandbox, old.ID)
	if err != nil || *got.DocumentData != *passport {
		t.Fatalf("encrypted document data: %v %+v", err, got)
	}
	// The migrated number still finds a new request's.
	dup := mustRequest(t, s, org.ID, &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "GB",
		DocumentNumber: "kycd plaintext marker 7f3a", ExpiryDate: "2031-01-01"})
	ds, err := s.FindDuplicates(t.Context(), dup, nil, dup.DocumentData.DocumentNumber, nil)
	if err != nil || len(ds) != 1 || ds[0].RequestID != old.ID || ds[0].What != "document_number" {
		t.Fatalf("duplicates of a migrated row: %+v, %v", ds, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if filesContain(t, path, marker) || filesContain(t, path, []byte(kyc.NormalizeDocumentNumber(passport.DocumentNumber))) {
		t.Error("plaintext left in the database file after EncryptPlaintext")
	}
}

func TestDuplicateDocumentNumber(t *testing.T) {
	s := storetest.OpenOn(t, "sqlite") // reads the SQLite file directly
	acme := storetest.MustOrg(t, s, "acme", nil)
	other := storetest.MustOrg(t, s, "other", nil)
	doc := func(number string) *kyc.DocumentData {
		return &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "GB", DocumentNumber: number, ExpiryDate: "2031-01-01"}
	}
	first := mustRequest(t, s, acme.ID, doc("AB 123-456"))
	mustRequest(t, s, acme.ID, doc("ZZ999"))
	mustRequest(t, s, other.ID, doc("AB123456"))
	again := mustRequest(t, s, acme.ID, doc("ab123456"))

	ds, err := s.FindDuplicates(t.Context(), again, nil, again.DocumentData.DocumentNumber, nil)
	if err != nil || len(ds) != 1 || ds[0].RequestID != first.ID || ds[0].What != "document_number" {
		t.Fatalf("FindDuplicates = %+v, %v; want only %s", ds, err, first.ID)
	}
	// The column holds a keyed hash, not the number, and it differs
	// between organizations.
	rows, err := rawDB(t, s.Path()).Query(`SELECT document_number FROM kyc_requests WHERE document_number IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == "AB123456" || n == "ZZ999" || len(n) != 64 {
			t.Errorf("document_number stored as %q", n)
		}
		seen[n] = true
	}
	if len(seen) != 3 {
		t.Errorf("%d distinct document_number values for 4 rows, want 3 (one shared in acme, another org's differs)", len(seen))
	}
}

// TestDuplicateReadDocumentNumber: where a request's document was read,
// the number it says is the one compared, both for the request being
// decided and for the others; the typed number counts only where no
// document was read.
func TestDuplicateReadDocumentNumber(t *testing.T) {
	s := storetest.Open(t)
	acme := storetest.MustOrg(t, s, "acme", nil)
	doc := func(number string) *kyc.DocumentData {
		return &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "GB", DocumentNumber: number, ExpiryDate: "2031-01-01"}
	}
	// Typed X100 on the form, but the document says R200.
	liar := mustRequest(t, s, acme.ID, doc("X100"))
	if err := s.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetDocumentNumberRead(liar, "R200") }); err != nil {
		t.Fatal(err)
	}
	// Typed R200, nothing read: the same document as the liar's.
	typed := mustRequest(t, s, acme.ID, doc("R200"))
	if ds, err := s.FindDuplicates(t.Context(), typed, nil, "R200", nil); err != nil || len(ds) != 1 || ds[0].RequestID != liar.ID {
		t.Fatalf("typed R200 against a document read as R200: %+v, %v", ds, err)
	}
	// A document read as X100: the liar only typed that number, their
	// document says otherwise, so it is not the same document.
	reader := mustRequest(t, s, acme.ID, doc("Q1"))
	if ds, err := s.FindDuplicates(t.Context(), reader, nil, "X100", nil); err != nil || len(ds) != 0 {
		t.Fatalf("read X100 against a request typed X100 but read R200: %+v, %v", ds, err)
	}
	// The read number is kept as a keyed hash.
	var stored string
	if err := storetest.SQL(t, s).QueryRow(`SELECT document_number_read FROM kyc_requests WHERE id = ?`, liar.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 64 || stored == "R200" {
		t.Errorf("document_number_read stored as %q", stored)
	}
}
