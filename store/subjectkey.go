package store

import (
	"bytes"
	"context"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"kycd/kyc"
	"kycd/seal"
)

// Crypto-shredding. The personal data of one applicant — captured images
// and selfies, liveness frames, face descriptors, document details — is
// sealed under a key of that applicant: HKDF of the database's data key
// and a random 32-byte secret of the applicant. Erasure destroys the
// secret, so every copy of the sealed data (the file, its WAL, backups,
// Litestream replicas) stops opening at once.
//
// For that the secret must not be in those copies. On SQLite the secrets
// live in a key store next to the database, <db>.keys: a small SQLite file
// in rollback-journal mode with secure_delete, which neither Litestream nor
// kycd backup copies. The secret alone opens nothing (it is mixed with the
// data key, which only the master key unwraps). On PostgreSQL they are the
// table subject_keys of the same database, deleted in the erasure's own
// transaction; its backups are the operator's (docs/personal-data.md).
//
// A sealed value says whose key sealed it: subjectMagic, the applicant id
// (one length byte, then the id), then the seal.Box output. Values sealed
// with the data key alone (before this version, and data that is not about
// one applicant) start with a random nonce instead; the chance that one
// starts with the 8 magic bytes is 2^-64.

var subjectMagic = []byte("kycdSK1\x00")

// ErrErased means the value belongs to an applicant whose key was
// destroyed by an erasure: it will never open again.
var ErrErased = errors.New("store: the applicant's data was erased (its key is destroyed)")

// subjectKeys reads and creates the per-applicant secrets, caching the
// boxes derived from them.
type subjectKeys struct {
	db       *sql.DB // the key store: <db>.keys, or the PostgreSQL pool
	postgres bool
	mu       sync.Mutex
	boxes    map[string]*seal.Box // "<dataKeyID>/<applicantID>"
}

// maxCachedSubjects bounds the cache; past it, it starts again empty.
const maxCachedSubjects = 1 << 15

// openSubjectKeys opens the SQLite key store next to the database file,
// creating it (mode 0600) when missing — unless the database (main, the
// writer) already has one: then a missing store is ErrKeyStore.
func openSubjectKeys(ctx context.Context, main *sql.DB, dbPath string) (*subjectKeys, error) {
	path := dbPath + ".keys"
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	// Rollback journal, not WAL: a deleted secret must not survive in a
	// WAL frame. secure_delete overwrites the freed bytes with zeros.
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(DELETE)" +
		"&_pragma=synchronous(FULL)&_pragma=secure_delete(ON)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open key store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	for _, ddl := range []string{`CREATE TABLE IF NOT EXISTS subject_keys (
		applicant_id TEXT PRIMARY KEY, secret BLOB NOT NULL, created_at TEXT NOT NULL) STRICT`,
		`CREATE TABLE IF NOT EXISTS key_store (id INTEGER PRIMARY KEY CHECK (id = 1), store_id TEXT NOT NULL) STRICT`} {
		if _, err := db.ExecContext(ctx, ddl); err != nil {
			db.Close()
			return nil, fmt.Errorf("open key store %s: %w", path, err)
		}
	}
	if err := pairKeyStore(ctx, main, db, path); err != nil {
		db.Close()
		return nil, err
	}
	return &subjectKeys{db: db, boxes: map[string]*seal.Box{}}, nil
}

// ErrKeyStore means the database's per-applicant key store is missing or
// belongs to another database: Open refuses, since every image and
// document sealed under an applicant key would fail to open.
var ErrKeyStore = errors.New("the per-applicant key store beside the database is missing or belongs to another database; restore the <db>.keys file that belongs to it (docs/personal-data.md)")

// pairKeyStore checks that the key store is the database's, naming a new
// pair with one random id in both.
func pairKeyStore(ctx context.Context, main, ks *sql.DB, path string) error {
	var mainID, ksID string
	if err := main.QueryRowContext(ctx, `SELECT store_id FROM key_store`).Scan(&mainID); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read key store id: %w", err)
	}
	if err := ks.QueryRowContext(ctx, `SELECT store_id FROM key_store`).Scan(&ksID); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read key store %s: %w", path, err)
	}
	switch {
	case mainID != "" && mainID == ksID:
		return nil
	case mainID != "":
		return fmt.Errorf("open key store %s: %w", path, ErrKeyStore)
	}
	if ksID == "" {
		ksID = NewSecret(16)
		if _, err := ks.ExecContext(ctx, `INSERT INTO key_store (id, store_id) VALUES (1, ?)`, ksID); err != nil {
			return fmt.Errorf("name key store %s: %w", path, err)
		}
	}
	if _, err := main.ExecContext(ctx, `INSERT INTO key_store (id, store_id) VALUES (1, ?)`, ksID); err != nil {
		return fmt.Errorf("name key store: %w", err)
	}
	return nil
}

func (sk *subjectKeys) close() error {
	if sk == nil || sk.postgres {
		return nil // the PostgreSQL pool is the store's
	}
	return sk.db.Close()
}

// secret returns the applicant's secret, creating it when create is set
// and there is none. It commits on its own (before the caller's
// transaction): a secret whose data never got written seals nothing.
func (sk *subjectKeys) secret(ctx context.Context, applicantID string, create bool, now string) ([]byte, error) {
	var secret []byte
	err := sk.db.QueryRowContext(ctx, `SELECT secret FROM subject_keys WHERE applicant_id = ?`, applicantID).Scan(&secret)
	if err == nil {
		return secret, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read applicant key: %w", err)
	}
	if !create {
		return nil, fmt.Errorf("%s: %w", applicantID, ErrErased)
	}
	secret = make([]byte, 32)
	_, _ = rand.Read(secret) // crypto/rand.Read never fails (Go 1.24+)
	if _, err := sk.db.ExecContext(ctx, `INSERT INTO subject_keys (applicant_id, secret, created_at) VALUES (?, ?, ?)
		ON CONFLICT (applicant_id) DO NOTHING`, applicantID, secret, now); err != nil {
		return nil, fmt.Errorf("create applicant key: %w", err)
	}
	// Another writer may have won the race: use what is stored.
	if err := sk.db.QueryRowContext(ctx, `SELECT secret FROM subject_keys WHERE applicant_id = ?`, applicantID).Scan(&secret); err != nil {
		return nil, fmt.Errorf("read applicant key: %w", err)
	}
	return secret, nil
}

// destroy deletes applicants' secrets from the SQLite key store and the
// cache. On PostgreSQL the erasure's transaction deletes the rows and this
// only empties the cache.
func (sk *subjectKeys) destroy(ctx context.Context, applicantIDs ...string) error {
	sk.mu.Lock()
	for k := range sk.boxes {
		for _, id := range applicantIDs {
			if strings.HasSuffix(k, "/"+id) {
				delete(sk.boxes, k)
			}
		}
	}
	sk.mu.Unlock()
	if sk.postgres {
		return nil
	}
	for _, id := range applicantIDs {
		if _, err := sk.db.ExecContext(ctx, `DELETE FROM subject_keys WHERE applicant_id = ?`, id); err != nil {
			return fmt.Errorf("destroy applicant key %s: %w", id, err)
		}
	}
	return nil
}

// subjectBox returns the box of an applicant under data key keyID.
func (k *keyring) subjectBox(ctx context.Context, keyID int64, applicantID string, create bool, now string) (*seal.Box, error) {
	if k == nil {
		return nil, ErrNoMasterKey
	}
	if k.subjects == nil {
		return nil, errors.New("store: no applicant key store")
	}
	cacheKey := fmt.Sprintf("%d/%s", keyID, applicantID)
	k.subjects.mu.Lock()
	box := k.subjects.boxes[cacheKey]
	k.subjects.mu.Unlock()
	if box != nil {
		return box, nil
	}
	root, ok := k.subjectRoot[keyID]
	if !ok {
		return nil, fmt.Errorf("%s: data key %d not found", applicantID, keyID)
	}
	secret, err := k.subjects.secret(ctx, applicantID, create, now)
	if err != nil {
		return nil, err
	}
	key, err := hkdf.Key(sha256.New, root, secret, "kycd applicant key v1 "+applicantID, seal.KeySize)
	if err != nil {
		return nil, err
	}
	if box, err = seal.New(key); err != nil {
		return nil, err
	}
	k.subjects.mu.Lock()
	if len(k.subjects.boxes) >= maxCachedSubjects {
		k.subjects.boxes = map[string]*seal.Box{}
	}
	k.subjects.boxes[cacheKey] = box
	k.subjects.mu.Unlock()
	return box, nil
}

// sealFor seals plaintext of one applicant under that applicant's key (the
// active data key's derivation), for the row aad.
func (tx *Tx) sealFor(applicantID string, plaintext []byte, aad string) (keyID int64, sealed []byte, err error) {
	if tx.keys == nil {
		return 0, nil, ErrNoMasterKey
	}
	if len(applicantID) == 0 || len(applicantID) > 255 {
		return 0, nil, fmt.Errorf("seal for applicant: bad applicant id %q", applicantID)
	}
	box, err := tx.keys.subjectBox(context.Background(), tx.keys.active, applicantID, true, kyc.FormatTime(tx.now))
	if err != nil {
		return 0, nil, err
	}
	out := make([]byte, 0, len(subjectMagic)+1+len(applicantID)+len(plaintext)+40)
	out = append(out, subjectMagic...)
	out = append(out, byte(len(applicantID)))
	out = append(out, applicantID...)
	return tx.keys.active, append(out, box.Seal(plaintext, []byte(aad))...), nil
}

// subjectOf splits a value sealed by sealFor into its applicant and the
// box's output; ok is false for a value sealed with the data key alone.
func subjectOf(sealed []byte) (applicantID string, rest []byte, ok bool) {
	if !bytes.HasPrefix(sealed, subjectMagic) || len(sealed) < len(subjectMagic)+1 {
		return "", nil, false
	}
	n := int(sealed[len(subjectMagic)])
	body := sealed[len(subjectMagic)+1:]
	if n == 0 || len(body) < n {
		return "", nil, false
	}
	return string(body[:n]), body[n:], true
}

// applicantOfRequest returns the applicant a KYC request is about.
func (tx *Tx) applicantOfRequest(requestID string) (string, error) {
	var id string
	if err := tx.queryRow(`SELECT applicant_id FROM kyc_requests WHERE id = ?`, requestID).Scan(&id); err != nil {
		return "", fmt.Errorf("applicant of %s: %w", requestID, err)
	}
	return id, nil
}

// sealDocument seals a request's document JSON under its applicant's key
// (aad = the request id) for the document_data column, which is TEXT:
// hence base64. The number's index stays an HMAC under the data key, so
// the duplicate check compares numbers across applicants.
func (tx *Tx) sealDocument(requestID, applicantID, orgID string, docJSON []byte, number string) (keyID int64, data string, index any, err error) {
	keyID, sealed, err := tx.sealFor(applicantID, docJSON, requestID)
	if err != nil {
		return 0, "", nil, err
	}
	if number != "" {
		index = tx.keys.documentIndex(keyID, orgID, number)
	}
	return keyID, base64.StdEncoding.EncodeToString(sealed), index, nil
}
