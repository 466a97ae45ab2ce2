package store

import (
	"context"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"kycd/kyc"
	"kycd/seal"
)

// Encryption at rest is envelope encryption. Captured images, document
// details and the tokens of usable portal links are sealed (AES-256-GCM,
// seal.Box) with a random data key; the
// data key is stored in data_keys only wrapped (sealed) by the master key,
// which Options.MasterKey gives Open and which never enters the database.
// So a copy of the file (a backup, a replica) holds ciphertext only, and
// changing the master key re-wraps one small row instead of every image.
//
// Each value is sealed with its row's id as associated data, so a value
// moved to another row by SQL does not open there. Document numbers, which
// the duplicate check compares by equality, are stored as a keyed HMAC
// (documentIndex) instead.

// ErrNoMasterKey is returned when images or document details are saved or
// read, or audit rows written or verified, by a store opened without
// Options.MasterKey.
var ErrNoMasterKey = errors.New("store: opened without the master key: captured images, document details, sealed responses and the audit log cannot be read or written")

// ErrWrongMasterKey is returned by Open when the master key does not open
// the database's data key: another key, or one rotated away.
var ErrWrongMasterKey = errors.New("the master key does not open this database's data key (not the key it was encrypted with, or a key rotated away)")

// keyring holds the database's data keys, unwrapped at Open. It does not
// change afterwards: rotating the master key re-wraps the same data keys.
type keyring struct {
	active int64
	boxes  map[int64]*seal.Box
	index  map[int64][]byte // HMAC keys for document numbers, per data key
	audit  []byte           // the audit chain's MAC key, from the first data key (audit.go)
	// Per-applicant keys (subjectkey.go): the root each data key gives
	// them, and the store of the applicants' secrets.
	subjectRoot map[int64][]byte
	subjects    *subjectKeys
}

// auditKey returns the key of the audit chain's MACs.
func (k *keyring) auditKey() ([]byte, error) {
	if k == nil {
		return nil, ErrNoMasterKey
	}
	return k.audit, nil
}

func wrapAAD(id int64) []byte { return []byte("kycd data key " + strconv.FormatInt(id, 10)) }

// loadKeys unwraps the data keys, creating the first one when the database
// has none. It runs in Open, after the migrations and before the commit
// loop, on the writer connection.
func (s *Store) loadKeys(ctx context.Context, masterKey func(hasKeys bool) (Sealer, error)) error {
	var n int
	if err := s.writer.QueryRowContext(ctx, `SELECT count(*) FROM data_keys`).Scan(&n); err != nil {
		return fmt.Errorf("read data keys: %w", err)
	}
	master, err := masterKey(n > 0)
	if err != nil {
		return err
	}
	if master == nil {
		return errors.New("store: Options.MasterKey returned no key")
	}
	if n == 0 {
		if err := s.createDataKey(ctx, master); err != nil {
			return err
		}
	}
	rows, err := s.writer.QueryContext(ctx, `SELECT id, wrapped, active FROM data_keys ORDER BY id`)
	if err != nil {
		return fmt.Errorf("read data keys: %w", err)
	}
	defer rows.Close()
	k := &keyring{boxes: map[int64]*seal.Box{}, index: map[int64][]byte{}, subjectRoot: map[int64][]byte{}}
	for rows.Next() {
		var id int64
		var wrapped []byte
		var active bool
		if err := rows.Scan(&id, &wrapped, &active); err != nil {
			return fmt.Errorf("read data keys: %w", err)
		}
		dek, err := master.Open(wrapped, wrapAAD(id))
		if err != nil {
			return fmt.Errorf("open database %s: %w", s.path, ErrWrongMasterKey)
		}
		if k.boxes[id], err = seal.New(dek); err != nil {
			return fmt.Errorf("data key %d: %w", id, err)
		}
		if k.index[id], err = hkdf.Key(sha256.New, dek, nil, "kycd document number index v1", 32); err != nil {
			return fmt.Errorf("data key %d: %w", id, err)
		}
		if k.subjectRoot[id], err = hkdf.Key(sha256.New, dek, nil, "kycd applicant keys v1", 32); err != nil {
			return fmt.Errorf("data key %d: %w", id, err)
		}
		if active {
			k.active = id
		}
		if k.audit == nil { // rows come in id order: the first data key
			if k.audit, err = hkdf.Key(sha256.New, dek, nil, "kycd audit chain v2", 32); err != nil {
				return fmt.Errorf("data key %d: %w", id, err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read data keys: %w", err)
	}
	if k.active == 0 {
		return fmt.Errorf("open database %s: no active data key", s.path)
	}
	if _, pg := s.eng.(pgEngine); pg {
		k.subjects = &subjectKeys{db: s.reader, postgres: true, boxes: map[string]*seal.Box{}}
	} else if k.subjects, err = openSubjectKeys(ctx, s.writer, s.path); err != nil {
		return err
	}
	s.keys, s.master = k, master
	return s.signNewAuditHead(ctx)
}

// createDataKey makes the database's first data key. Another process
// opening the same new file may race us: BEGIN IMMEDIATE serialises the
// two and the second finds the first one's key.
func (s *Store) createDataKey(ctx context.Context, master Sealer) error {
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("create data key: %w", err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM data_keys`).Scan(&n); err != nil || n > 0 {
		return err
	}
	dek := make([]byte, seal.KeySize)
	_, _ = rand.Read(dek) // crypto/rand.Read never fails (Go 1.24+)
	const id = 1
	if _, err := tx.ExecContext(ctx, `INSERT INTO data_keys (id, wrapped, created_at, active) VALUES (?, ?, ?, 1)`,
		id, master.Seal(dek, wrapAAD(id)), kyc.FormatTime(s.Now().UTC())); err != nil {
		return fmt.Errorf("create data key: %w", err)
	}
	return tx.Commit()
}

// seal encrypts plaintext with the active data key for the row aad.
func (k *keyring) seal(plaintext []byte, aad string) (keyID int64, sealed []byte, err error) {
	if k == nil {
		return 0, nil, ErrNoMasterKey
	}
	return k.active, k.boxes[k.active].Seal(plaintext, []byte(aad)), nil
}

// open decrypts a value sealed for the row aad. A value that does not open
// is an error, never bytes.
func (k *keyring) open(keyID int64, sealed []byte, aad string) ([]byte, error) {
	if k == nil {
		return nil, ErrNoMasterKey
	}
	box, ok := k.boxes[keyID]
	if !ok {
		return nil, fmt.Errorf("%s: data key %d not found", aad, keyID)
	}
	if applicantID, rest, ok := subjectOf(sealed); ok {
		var err error
		if box, err = k.subjectBox(context.Background(), keyID, applicantID, false, ""); err != nil {
			return nil, fmt.Errorf("%s: %w", aad, err)
		}
		sealed = rest
	}
	out, err := box.Open(sealed, []byte(aad))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", aad, err)
	}
	return out, nil
}

// documentIndex is what document_number stores for a normalised number: an
// HMAC keyed by the data key, so that equal numbers in one organization
// compare equal and nobody without the master key can test a guess. The
// organization is part of the input, so equal numbers in two
// organizations do not show as equal in the file.
func (k *keyring) documentIndex(keyID int64, orgID, number string) string {
	m := hmac.New(sha256.New, k.index[keyID])
	m.Write([]byte(orgID))
	m.Write([]byte{0})
	m.Write([]byte(number))
	return hex.EncodeToString(m.Sum(nil))
}

// documentIndexes are a number's indexes under every data key, for the
// duplicate check (rows keep the index of the key that sealed them).
func (k *keyring) documentIndexes(orgID, number string) ([]any, error) {
	if k == nil {
		return nil, ErrNoMasterKey
	}
	out := make([]any, 0, len(k.index))
	for id := range k.index {
		out = append(out, k.documentIndex(id, orgID, number))
	}
	return out, nil
}

// sealDocument encrypts a request's document JSON (aad = the request id)
// for the document_data column, which is TEXT: hence base64.
func (k *keyring) sealDocument(requestID, orgID string, docJSON []byte, number string) (keyID int64, data string, index any, err error) {
	keyID, sealed, err := k.seal(docJSON, requestID)
	if err != nil {
		return 0, "", nil, err
	}
	if number != "" {
		index = k.documentIndex(keyID, orgID, number)
	}
	return keyID, base64.StdEncoding.EncodeToString(sealed), index, nil
}

// openText opens a value sealed for aad and stored as base64 text.
func (k *keyring) openText(keyID int64, data, aad string) (string, error) {
	sealed, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", aad, seal.ErrOpen)
	}
	b, err := k.open(keyID, sealed, aad)
	return string(b), err
}

func (k *keyring) openDocument(requestID string, keyID int64, data string) ([]byte, error) {
	sealed, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("%s: document data: %w", requestID, seal.ErrOpen)
	}
	return k.open(keyID, sealed, requestID)
}

// RewrapDataKeys wraps the database's data keys under a new master key, in
// one transaction, and returns how many it re-wrapped. Nothing else is
// re-encrypted. From then on only the new key opens the database; a server
// already running keeps working, having unwrapped the keys at start.
func (s *Store) RewrapDataKeys(ctx context.Context, newMaster Sealer) (int, error) {
	if s.master == nil {
		return 0, ErrNoMasterKey
	}
	var n int
	err := s.InTx(ctx, func(tx *Tx) error {
		n = 0
		rows, err := tx.q.QueryContext(context.Background(), `SELECT id, wrapped FROM data_keys ORDER BY id`)
		if err != nil {
			return fmt.Errorf("read data keys: %w", err)
		}
		type row struct {
			id      int64
			wrapped []byte
		}
		var keys []row
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.wrapped); err != nil {
				rows.Close()
				return fmt.Errorf("read data keys: %w", err)
			}
			keys = append(keys, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("read data keys: %w", err)
		}
		for _, r := range keys {
			dek, err := s.master.Open(r.wrapped, wrapAAD(r.id))
			if err != nil {
				return fmt.Errorf("data key %d: %w", r.id, ErrWrongMasterKey)
			}
			rewrapped := newMaster.Seal(dek, wrapAAD(r.id))
			if back, err := newMaster.Open(rewrapped, wrapAAD(r.id)); err != nil || !hmac.Equal(back, dek) {
				return fmt.Errorf("data key %d: the new master key does not open what it sealed", r.id)
			}
			if _, err := tx.exec(`UPDATE data_keys SET wrapped = ? WHERE id = ?`, rewrapped, r.id); err != nil {
				return fmt.Errorf("re-wrap data key %d: %w", r.id, err)
			}
			n++
		}
		return tx.auditOperatorAction("", "", "master_key", "data_keys", "master_key.rotated",
			fmt.Sprintf("re-wrapped %d data key(s) under a new master key", n))
	})
	if err != nil {
		return 0, err
	}
	s.master = newMaster
	return n, nil
}

// How many rows one transaction of EncryptPlaintext rewrites: it holds the
// write lock, and an image is a few MB where document details are small.
const (
	plaintextBatch = 16
	documentBatch  = 256
)

// EncryptPlaintext encrypts the captures and document details stored
// before encryption at rest (key_id NULL), and the idempotent responses
// and e-mails stored in clear before the sealed_outbox migration (emptying the bodies
// of e-mails already sent), one batch per transaction, so that an
// interrupted run resumes where it stopped; a database with none costs a
// few index lookups. It returns how many captures and requests it
// encrypted (responses and e-mails are not counted: they are transient).
//
// The plaintext it replaces is overwritten with zeros (secure_delete), not
// left in free pages of the file. Copies of the file made before this ran
// still hold it.
func (s *Store) EncryptPlaintext(ctx context.Context) (captures, requests int, err error) {
	if s.keys == nil {
		return 0, 0, ErrNoMasterKey
	}
	for {
		var n int
		n, err = s.encryptBatch(ctx, s.encryptCaptures)
		captures += n
		if err != nil {
			return captures, requests, err
		}
		if n == 0 {
			break
		}
	}
	for {
		var n int
		n, err = s.encryptBatch(ctx, s.encryptDocuments)
		requests += n
		if err != nil || n == 0 {
			break
		}
	}
	for _, fn := range []func(tx *Tx) (int, error){s.encryptResponses, s.encryptEmails} {
		for err == nil {
			var n int
			if n, err = s.encryptBatch(ctx, fn); n == 0 {
				break
			}
		}
	}
	return captures, requests, err
}

func (s *Store) encryptResponses(tx *Tx) (int, error) {
	rows, err := tx.q.QueryContext(context.Background(), `SELECT organization_id, environment, key, response_body FROM idempotency_keys
		WHERE response_key_id IS NULL LIMIT ?`, documentBatch)
	if err != nil {
		return 0, fmt.Errorf("find responses in clear: %w", err)
	}
	type row struct {
		org, env, key string
		body          []byte
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.org, &r.env, &r.key, &r.body); err != nil {
			rows.Close()
			return 0, fmt.Errorf("find responses in clear: %w", err)
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("find responses in clear: %w", err)
	}
	for _, r := range all {
		keyID, sealed, err := s.keys.seal(r.body, idempotencyAAD(r.org, kyc.Environment(r.env), r.key))
		if err != nil {
			return 0, err
		}
		if _, err := tx.exec(`UPDATE idempotency_keys SET response_body = ?, response_key_id = ? WHERE organization_id = ? AND environment = ? AND key = ?`,
			sealed, keyID, r.org, r.env, r.key); err != nil {
			return 0, fmt.Errorf("seal response: %w", err)
		}
	}
	return len(all), nil
}

func (s *Store) encryptEmails(tx *Tx) (int, error) {
	rows, err := tx.q.QueryContext(context.Background(), `SELECT id, body, html_body, sent_at IS NOT NULL OR expired_at IS NOT NULL
		FROM email_outbox WHERE body_key_id IS NULL AND (body != '' OR html_body IS NOT NULL) ORDER BY id LIMIT ?`, documentBatch)
	if err != nil {
		return 0, fmt.Errorf("find e-mails in clear: %w", err)
	}
	type row struct {
		id   int64
		body string
		html sql.NullString
		done bool
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.body, &r.html, &r.done); err != nil {
			rows.Close()
			return 0, fmt.Errorf("find e-mails in clear: %w", err)
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("find e-mails in clear: %w", err)
	}
	for _, r := range all {
		if r.done { // sent or given up: nothing to keep
			if _, err := tx.exec(`UPDATE email_outbox SET body = '', html_body = NULL WHERE id = ?`, r.id); err != nil {
				return 0, fmt.Errorf("empty e-mail %d: %w", r.id, err)
			}
			continue
		}
		keyID, sealed, err := s.keys.seal([]byte(r.body), emailAAD(r.id))
		if err != nil {
			return 0, err
		}
		var html any
		if r.html.Valid && r.html.String != "" {
			_, h, err := s.keys.seal([]byte(r.html.String), emailHTMLAAD(r.id))
			if err != nil {
				return 0, err
			}
			html = base64.StdEncoding.EncodeToString(h)
		}
		if _, err := tx.exec(`UPDATE email_outbox SET body = ?, html_body = ?, body_key_id = ? WHERE id = ?`,
			base64.StdEncoding.EncodeToString(sealed), html, keyID, r.id); err != nil {
			return 0, fmt.Errorf("seal e-mail %d: %w", r.id, err)
		}
	}
	return len(all), nil
}

func (s *Store) encryptBatch(ctx context.Context, fn func(tx *Tx) (int, error)) (int, error) {
	var n int
	err := s.InTx(ctx, func(tx *Tx) error {
		if err := s.eng.secureDelete(tx.tx, true); err != nil {
			return err
		}
		var err error
		n, err = fn(tx)
		if e := s.eng.secureDelete(tx.tx, false); e != nil && err == nil {
			err = e
		}
		return err
	})
	return n, err
}

func (s *Store) encryptCaptures(tx *Tx) (int, error) {
	rows, err := tx.q.QueryContext(context.Background(), `SELECT id FROM kyc_captures WHERE key_id IS NULL ORDER BY id LIMIT ?`, plaintextBatch)
	if err != nil {
		return 0, fmt.Errorf("find plaintext captures: %w", err)
	}
	ids, err := scanIDs(rows)
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		var data []byte
		if err := tx.queryRow(`SELECT data FROM kyc_captures WHERE id = ?`, id).Scan(&data); err != nil {
			return 0, fmt.Errorf("read capture %s: %w", id, err)
		}
		keyID, sealed, err := s.keys.seal(data, id)
		if err != nil {
			return 0, err
		}
		if _, err := tx.exec(`UPDATE kyc_captures SET data = ?, key_id = ? WHERE id = ?`, sealed, keyID, id); err != nil {
			return 0, fmt.Errorf("encrypt capture %s: %w", id, err)
		}
	}
	return len(ids), nil
}

func (s *Store) encryptDocuments(tx *Tx) (int, error) {
	rows, err := tx.q.QueryContext(context.Background(), `SELECT id FROM kyc_requests
		WHERE document_key_id IS NULL AND document_data IS NOT NULL ORDER BY id LIMIT ?`, documentBatch)
	if err != nil {
		return 0, fmt.Errorf("find plaintext document data: %w", err)
	}
	ids, err := scanIDs(rows)
	if err != nil {
		return 0, err
	}
	for _, id := range ids {
		var orgID, data string
		var number sql.NullString
		if err := tx.queryRow(`SELECT organization_id, document_data, document_number FROM kyc_requests WHERE id = ?`, id).
			Scan(&orgID, &data, &number); err != nil {
			return 0, fmt.Errorf("read document data %s: %w", id, err)
		}
		keyID, sealed, index, err := s.keys.sealDocument(id, orgID, []byte(data), number.String)
		if err != nil {
			return 0, err
		}
		if _, err := tx.exec(`UPDATE kyc_requests SET document_data = ?, document_number = ?, document_key_id = ? WHERE id = ?`,
			sealed, index, keyID, id); err != nil {
			return 0, fmt.Errorf("encrypt document data %s: %w", id, err)
		}
	}
	return len(ids), nil
}

func scanIDs(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("scan id: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
