package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"kycd/kyc"
)

// The signed head (table audit_head, one row) says how long the audit log
// is and what its last hash is, with the time it was signed, under a MAC
// with the audit key. Deleting the newest rows, or all of them, leaves a
// chain that holds but is shorter than its head; replacing the head needs
// the key. AppendAudit moves the head with every row; serve re-signs it
// periodically (RefreshAuditHead) so that its time shows the server was
// watching. The audit_head migration writes the row unsigned; the first Open with
// the master key signs it over the log as it then was.
//
// The head's MAC is HMAC-SHA256 with the audit key over the encoding of
// the items "kycd.audit.head.v1", mac_from, row_count (decimals),
// head_hash, signed_since, signed_at (as in audit.go). An attacker who
// can write the file can still put back an older head together with the
// log as it was then (a rollback); the head printed by kycd audit verify,
// kept elsewhere and passed back with --expect-head, catches that.

const auditHeadTag = "kycd.audit.head.v1"

type auditHead struct {
	MACFrom     int64  // the first row whose content_hash is a MAC
	Rows        int64  // the last row the head covers (the row count)
	Hash        string // that row's content_hash; 64 zeros for an empty log
	SignedSince string // when the head was first signed (the MAC chain's start)
	SignedAt    string // when it was last signed
	MAC         string // "" while unsigned (just migrated)
}

type headQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

var errNoAuditHead = fmt.Errorf("%w (the audit_head row was deleted)", ErrAuditHead)

func readAuditHead(ctx context.Context, q queryer) (*auditHead, error) {
	var h auditHead
	var since, at, mac sql.NullString
	err := q.QueryRowContext(ctx, `SELECT mac_from, row_count, head_hash, signed_since, signed_at, mac FROM audit_head WHERE id = 1`).
		Scan(&h.MACFrom, &h.Rows, &h.Hash, &since, &at, &mac)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoAuditHead
	}
	if err != nil {
		return nil, fmt.Errorf("read audit head: %w", err)
	}
	h.SignedSince, h.SignedAt, h.MAC = since.String, at.String, mac.String
	return &h, nil
}

func (h *auditHead) sum(key []byte) string {
	tag, from, rows := auditHeadTag, strconv.FormatInt(h.MACFrom, 10), strconv.FormatInt(h.Rows, 10)
	m := hmac.New(sha256.New, key)
	m.Write(appendItems(nil, &tag, &from, &rows, &h.Hash, &h.SignedSince, &h.SignedAt))
	return hex.EncodeToString(m.Sum(nil))
}

// valid reports whether the head is signed with key.
func (h *auditHead) valid(key []byte) bool {
	return h != nil && h.MAC != "" && hmac.Equal([]byte(h.MAC), []byte(h.sum(key)))
}

// save signs the head and writes it.
func (h *auditHead) save(q headQueryer, key []byte) error {
	h.MAC = h.sum(key)
	_, err := q.ExecContext(context.Background(), `UPDATE audit_head SET mac_from = ?, row_count = ?, head_hash = ?, signed_since = ?,
		signed_at = ?, mac = ? WHERE id = 1`, h.MACFrom, h.Rows, h.Hash, h.SignedSince, h.SignedAt, h.MAC)
	if err != nil {
		return fmt.Errorf("save audit head: %w", formatError(err))
	}
	return nil
}

// signNewAuditHead signs the head that the audit_head migration left unsigned, over
// the log as it is: it runs in Open, with the master key, before anything
// can append. A head that is missing, or signed with another key, is left
// alone (and reported by VerifyAudit): re-signing it would bless whatever
// was done to the log.
func (s *Store) signNewAuditHead(ctx context.Context) error {
	key, err := s.keys.auditKey()
	if err != nil {
		return err
	}
	tx, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("sign audit head: %w", err)
	}
	defer tx.Rollback()
	h, err := readAuditHead(ctx, tx)
	if errors.Is(err, errNoAuditHead) {
		s.log.Error("the audit log has no signed head: it was deleted; kycd audit verify fails until this is explained")
		return nil
	}
	if err != nil || h.MAC != "" {
		return err
	}
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM audit_log`).Scan(&last); err != nil {
		return fmt.Errorf("sign audit head: %w", err)
	}
	if last != h.Rows {
		// Rows were added or removed between the migration and now, which
		// only someone writing the file directly can do.
		s.log.Error("the audit log changed after the audit_head migration and before its head was signed; not signing it",
			"rows_at_migration", h.Rows, "rows_now", last)
		return nil
	}
	if h.Hash, err = chainHeadBefore(ctx, tx, h.MACFrom); err != nil {
		return fmt.Errorf("sign audit head: %w", err)
	}
	now := kyc.FormatTime(s.Now().UTC())
	h.SignedSince, h.SignedAt = now, now
	if err := h.save(tx, key); err != nil {
		return err
	}
	return tx.Commit()
}

// chainHeadBefore is the hash the row macFrom links to: the last chained
// row's content_hash, or (when the newest rows are pre-chain, written
// before migration 0007) the hash over all of them.
func chainHeadBefore(ctx context.Context, tx *sql.Tx, macFrom int64) (string, error) {
	var id int64
	var last sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT id, content_hash FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT 1`, macFrom).Scan(&id, &last)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return zeroHash, nil
	case err != nil:
		return "", err
	case last.Valid:
		return last.String, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+auditRowColumns+` FROM audit_log WHERE id < ? ORDER BY id`, macFrom)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	head := zeroHash
	for rows.Next() {
		r, err := scanAuditRow(rows)
		if err != nil {
			return "", err
		}
		head = r.hash(head)
	}
	return head, rows.Err()
}

// RefreshAuditHead re-signs the head with the current time, after checking
// that it is signed with this database's key and that the log ends where
// it says. When the log does not match its head it changes nothing and
// returns an error saying how (ErrAuditHead): re-signing would hide the
// change. serve calls it at start and every AuditHeadRefresh.
func (s *Store) RefreshAuditHead(ctx context.Context) error {
	key, err := s.keys.auditKey()
	if err != nil {
		return err
	}
	return s.InTx(ctx, func(tx *Tx) error {
		h, err := readAuditHead(context.Background(), tx.q)
		if err != nil {
			return err
		}
		if !h.valid(key) {
			return fmt.Errorf("%w: its signature does not match", ErrAuditHead)
		}
		var last int64
		var hash sql.NullString
		err = tx.queryRow(`SELECT id, content_hash FROM audit_log ORDER BY id DESC LIMIT 1`).Scan(&last, &hash)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("refresh audit head: %w", err)
		}
		if last != h.Rows || (last > 0 && last >= h.MACFrom && hash.String != h.Hash) {
			return fmt.Errorf("%w: the head covers %d rows ending in %.12s…, the log ends at row %d", ErrAuditHead, h.Rows, h.Hash, last)
		}
		h.SignedAt = kyc.FormatTime(tx.now)
		return h.save(tx.q, key)
	})
}

// AuditHeadRefresh is how often serve re-signs the audit head.
const AuditHeadRefresh = 10 * time.Minute
