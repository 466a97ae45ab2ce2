package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"kycd/kyc"
)

// AuditProblem says why the log does not verify.
type AuditProblem string

// The ways the log can fail to verify.
const (
	// AuditContentChanged: the row's fields no longer hash to its
	// content_hash (the row was edited).
	AuditContentChanged AuditProblem = "content_changed"
	// AuditLinkBroken: the row's prev_hash is not the previous row's hash
	// (the previous row was replaced, or this row was inserted or moved).
	AuditLinkBroken AuditProblem = "link_broken"
	// AuditRowMissing: ids jump; the rows in between were deleted.
	AuditRowMissing AuditProblem = "row_missing"
	// AuditHashMissing: a row after the start of the chain has no hashes.
	AuditHashMissing AuditProblem = "hash_missing"
	// AuditTruncated: the log ends before the row its signed head (or the
	// head the operator kept, --expect-head) covers: the newest rows were
	// deleted.
	AuditTruncated AuditProblem = "truncated"
	// AuditHeadMismatch: the log does not end in the signed head's hash,
	// or has rows after it, or the row of an expected head has another
	// hash: rows were rewritten or added without the key.
	AuditHeadMismatch AuditProblem = "head_mismatch"
	// AuditHeadInvalid: the signed head is missing, unsigned or not signed
	// with this database's key.
	AuditHeadInvalid AuditProblem = "head_invalid"
)

// AuditBreak is the first place where the log does not verify.
type AuditBreak struct {
	ID      int64 // the row where the break shows
	Problem AuditProblem
	Field   string // which stored value disagrees: "content_hash", "prev_hash" or "head"
	// Expected is what the chain says the field must be; Stored is what
	// the row has ("" for NULL).
	Expected, Stored string
	Detail           string // one sentence for people
}

// AuditCheckpoint is a head kept outside the database (printed by kycd
// audit verify as "<rows>:<hash>"): the log must still hold row Rows with
// that hash.
type AuditCheckpoint struct {
	Rows int64
	Hash string
}

// AuditVerification is the outcome of VerifyAudit.
type AuditVerification struct {
	Rows     int64       // rows read: all of them when the chain holds
	PreChain int64       // rows written before the chain started (no stored hashes)
	MACFrom  int64       // the first row keyed with the MAC; earlier ones are SHA-256 chained
	Head     string      // the last row's content hash when the log verifies (64 zeros for an empty log)
	SignedAt time.Time   // when the signed head was last signed
	Since    time.Time   // when the head was first signed: the start of the keyed chain
	Broken   *AuditBreak // nil when the log verifies
}

// OK reports whether the whole log verifies.
func (v AuditVerification) OK() bool { return v.Broken == nil }

// VerifyAudit walks the audit log in id order, recomputing every hash and
// MAC, and checks that it ends where its signed head (and expect, when not
// nil) says. It reports the first place where that fails. It reads one row
// at a time from one snapshot, so memory stays constant however long the
// log. It needs the master key (ErrNoMasterKey).
func (s *Store) VerifyAudit(ctx context.Context, expect *AuditCheckpoint) (AuditVerification, error) {
	var v AuditVerification
	key, err := s.keys.auditKey()
	if err != nil {
		return v, err
	}
	// One read transaction: the head and the rows from the same snapshot.
	rtx, err := s.reader.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return v, fmt.Errorf("verify audit: %w", err)
	}
	defer rtx.Rollback()
	h, err := readAuditHead(ctx, rtx)
	switch {
	case err == errNoAuditHead:
		v.Broken = &AuditBreak{Problem: AuditHeadInvalid, Field: "head", Detail: "the signed head (table audit_head) is missing: it was deleted"}
		return v, nil
	case err != nil:
		return v, err
	case h.MAC == "":
		v.Broken = &AuditBreak{Problem: AuditHeadInvalid, Field: "head",
			Detail: "the head is not signed yet: open the database once with its master key (kycd serve does)"}
		return v, nil
	case !h.valid(key):
		v.Broken = &AuditBreak{Problem: AuditHeadInvalid, Field: "head", Expected: h.sum(key), Stored: h.MAC,
			Detail: "the signed head's MAC does not match: the head was changed without the key"}
		return v, nil
	}
	v.MACFrom, v.SignedAt, v.Since = h.MACFrom, parseTime(h.SignedAt), parseTime(h.SignedSince)

	rows, err := rtx.QueryContext(ctx, `SELECT `+auditRowColumns+` FROM audit_log ORDER BY id`)
	if err != nil {
		return v, fmt.Errorf("verify audit: %w", err)
	}
	defer rows.Close()
	expectHash, next, chained := zeroHash, int64(1), false
	broken := func(r auditRow, p AuditProblem, field, want string, got *string, detail string) (AuditVerification, error) {
		v.Broken = &AuditBreak{ID: r.ID, Problem: p, Field: field, Expected: want, Stored: deref(got), Detail: detail}
		return v, nil
	}
	for rows.Next() {
		r, err := scanAuditRow(rows)
		if err != nil {
			return v, err
		}
		v.Rows++
		keyed := r.ID >= h.MACFrom
		contentOf := func(prev string) string {
			if keyed {
				return r.mac(key, prev)
			}
			return r.hash(prev)
		}
		switch {
		case r.ID > next:
			detail := fmt.Sprintf("rows %d to %d are missing (deleted)", next, r.ID-1)
			if r.ID == next+1 {
				detail = fmt.Sprintf("row %d is missing (deleted)", next)
			}
			return broken(r, AuditRowMissing, "prev_hash", expectHash, r.PrevHash, detail)
		case r.ID < next: // only possible for a first row with id 0 or less
			return broken(r, AuditLinkBroken, "prev_hash", expectHash, r.PrevHash, fmt.Sprintf("row %d comes before row 1", r.ID))
		}
		next = r.ID + 1
		if r.PrevHash == nil && r.ContentHash == nil && !chained && !keyed {
			v.PreChain++
			expectHash = r.hash(expectHash)
			continue
		}
		if r.PrevHash == nil || r.ContentHash == nil {
			return broken(r, AuditHashMissing, "content_hash", contentOf(expectHash), r.ContentHash,
				"the row has no hashes but comes after the start of the chain")
		}
		if !chained && v.PreChain > 0 && *r.PrevHash != expectHash {
			return broken(r, AuditLinkBroken, "prev_hash", expectHash, r.PrevHash,
				"the first chained row does not match the rows written before the chain: one of them was changed")
		}
		chained = true
		if *r.PrevHash != expectHash {
			return broken(r, AuditLinkBroken, "prev_hash", expectHash, r.PrevHash,
				fmt.Sprintf("prev_hash is not the hash of row %d: that row was replaced or this one inserted", r.ID-1))
		}
		if c := contentOf(*r.PrevHash); c != *r.ContentHash {
			detail := "the row's fields do not match its hash: it was edited"
			if keyed {
				detail = "the row's fields do not match its MAC: it was edited, or written without the key"
			}
			return broken(r, AuditContentChanged, "content_hash", c, r.ContentHash, detail)
		}
		expectHash = *r.ContentHash
		if expect != nil && r.ID == expect.Rows && expectHash != expect.Hash {
			return broken(r, AuditHeadMismatch, "content_hash", expect.Hash, r.ContentHash,
				"this row's hash is not the one in the head you kept (--expect-head): the log was rewritten up to here")
		}
	}
	if err := rows.Err(); err != nil {
		return v, fmt.Errorf("verify audit: %w", err)
	}
	last := next - 1
	after := auditRow{ID: last + 1}
	switch {
	case last < h.Rows:
		return broken(after, AuditTruncated, "head", h.Hash, nil, fmt.Sprintf(
			"the log ends at row %d but its signed head (signed %s) covers %d rows: rows %d to %d were deleted from the end",
			last, h.SignedAt, h.Rows, last+1, h.Rows))
	case last > h.Rows:
		return broken(auditRow{ID: h.Rows + 1}, AuditHeadMismatch, "head", h.Hash, &expectHash, fmt.Sprintf(
			"rows %d to %d come after the signed head: they were added without the key", h.Rows+1, last))
	case expectHash != h.Hash:
		return broken(auditRow{ID: last}, AuditHeadMismatch, "head", h.Hash, &expectHash,
			"the log does not end in the signed head's hash: it was rewritten")
	case expect != nil && last < expect.Rows:
		return broken(after, AuditTruncated, "head", expect.Hash, nil, fmt.Sprintf(
			"the log ends at row %d but the head you kept (--expect-head) covers %d rows: the newest rows were deleted, and the signed head with them",
			last, expect.Rows))
	}
	v.Head = expectHash
	return v, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ExportAudit writes the audit rows created at or after since (all of them
// for the zero time), in id order, as JSON lines with every field as
// stored, hashes included. An auditor can check every link from them
// (each prevHash is the previous row's contentHash) and recompute the
// SHA-256 rows; the MAC rows need the audit key (see audit.go).
func (s *Store) ExportAudit(ctx context.Context, since time.Time, w io.Writer) error {
	// created_at is fixed-width UTC text, so string order is time order.
	rows, err := s.reader.QueryContext(ctx, `SELECT `+auditRowColumns+` FROM audit_log WHERE created_at >= ? ORDER BY id`,
		kyc.FormatTime(since))
	if err != nil {
		return fmt.Errorf("export audit: %w", err)
	}
	defer rows.Close()
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for rows.Next() {
		r, err := scanAuditRow(rows)
		if err != nil {
			return err
		}
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("export audit: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export audit: %w", err)
	}
	return nil
}
