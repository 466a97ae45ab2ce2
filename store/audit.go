package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"kycd/kyc"
)

// The audit log is a hash chain. Row n stores prev_hash, the content_hash
// of row n-1 (64 zeros for row 1), and content_hash, the hex SHA-256 of the
// canonical encoding of its own fields, prev_hash included. Ids are 1, 2,
// 3, … without gaps (AppendAudit sets them), so a deleted row shows as a
// gap. Someone who edits the file directly, bypassing the triggers, breaks
// the chain at the row they touched, unless they recompute every hash
// after it; that moves the chain head, which is why operators should keep
// the head (kycd audit verify) or exports somewhere else.
//
// The canonical encoding is the tag "kycd.audit.v1" followed by the row's
// fields in this order: id (decimal), created_at, organization_id,
// environment, resource_type, resource_id, action, actor_type, actor_id,
// from_status, to_status, reason, prev_hash. Each item, the tag first, is
// written as the byte 0x01, its length in bytes as a 4-byte big-endian
// integer and its UTF-8 bytes; a NULL is the single byte 0x00. Texts are
// hashed exactly as stored (created_at as written, e.g.
// 2026-01-02T03:04:05.000Z), never parsed and re-formatted.
//
// Rows written before migration 0007 have no hashes ("pre-chain"). The
// first chained row links to the hash their chain would have had, computed
// over them with the same encoding, so they are covered from then on.

// zeroHash is the prev_hash of the first row.
const zeroHash = "0000000000000000000000000000000000000000000000000000000000000000"

const auditTag = "kycd.audit.v1"

// AuditEntry is one row of the append-only audit log.
type AuditEntry struct {
	OrganizationID string
	Environment    kyc.Environment
	ResourceType   string
	ResourceID     string
	Action         string
	ActorType      kyc.ActorType
	ActorID        *string
	FromStatus     *string
	ToStatus       *string
	Reason         *string
}

// auditRow is an audit_log row with every text exactly as stored; it is
// also the JSON line of ExportAudit.
type auditRow struct {
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
	PrevHash       *string `json:"prevHash"`    // null: a pre-chain row
	ContentHash    *string `json:"contentHash"` // null: a pre-chain row
}

const auditRowColumns = `id, created_at, organization_id, environment, resource_type, resource_id, action, actor_type,
	actor_id, from_status, to_status, reason, prev_hash, content_hash`

func scanAuditRow(rows *sql.Rows) (auditRow, error) {
	var r auditRow
	err := rows.Scan(&r.ID, &r.CreatedAt, &r.OrganizationID, &r.Environment, &r.ResourceType, &r.ResourceID, &r.Action,
		&r.ActorType, &r.ActorID, &r.FromStatus, &r.ToStatus, &r.Reason, &r.PrevHash, &r.ContentHash)
	if err != nil {
		return r, fmt.Errorf("scan audit: %w", err)
	}
	return r, nil
}

// hash is the content hash of r with prev as its prev_hash.
func (r *auditRow) hash(prev string) string {
	tag, id := auditTag, strconv.FormatInt(r.ID, 10)
	items := []*string{&tag, &id, &r.CreatedAt, &r.OrganizationID, &r.Environment, &r.ResourceType, &r.ResourceID,
		&r.Action, &r.ActorType, r.ActorID, r.FromStatus, r.ToStatus, r.Reason, &prev}
	var buf []byte
	put := func(s *string) {
		if s == nil {
			buf = append(buf, 0)
			return
		}
		buf = append(buf, 1)
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(*s)))
		buf = append(buf, *s...)
	}
	for _, s := range items {
		put(s)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:])
}

// AppendAudit writes an audit row linked to the one before it. The
// previous row is read in the same transaction; the commit loop runs one
// use case at a time, so two rows never link to the same predecessor.
func (tx *Tx) AppendAudit(a AuditEntry) error {
	lastID, prev, err := tx.auditHead()
	if err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	r := auditRow{ID: lastID + 1, CreatedAt: kyc.FormatTime(tx.now), OrganizationID: a.OrganizationID,
		Environment: string(a.Environment), ResourceType: a.ResourceType, ResourceID: a.ResourceID, Action: a.Action,
		ActorType: string(a.ActorType), ActorID: a.ActorID, FromStatus: a.FromStatus, ToStatus: a.ToStatus, Reason: a.Reason}
	content := r.hash(prev)
	_, err = tx.exec(`INSERT INTO audit_log (`+auditRowColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.CreatedAt, r.OrganizationID, r.Environment, r.ResourceType, r.ResourceID, r.Action, r.ActorType,
		r.ActorID, r.FromStatus, r.ToStatus, r.Reason, prev, content)
	if err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	return nil
}

// auditHead returns the last row's id (0 when empty) and the hash the next
// row links to.
func (tx *Tx) auditHead() (int64, string, error) {
	var id int64
	var last sql.NullString
	err := tx.queryRow(`SELECT id, content_hash FROM audit_log ORDER BY id DESC LIMIT 1`).Scan(&id, &last)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, zeroHash, nil
	case err != nil:
		return 0, "", err
	case last.Valid:
		return id, last.String, nil
	}
	// The last row has no hash: the chain starts now, after rows written
	// before migration 0007. Link it to the hash over all of them; this
	// runs once (rarely used, so not a cached statement).
	rows, err := tx.tx.Query(`SELECT ` + auditRowColumns + ` FROM audit_log ORDER BY id`)
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	head := zeroHash
	for rows.Next() {
		r, err := scanAuditRow(rows)
		if err != nil {
			return 0, "", err
		}
		head = r.hash(head)
	}
	return id, head, rows.Err()
}

// FindAudit returns a resource's audit rows, oldest first.
func (s *Store) FindAudit(ctx context.Context, resourceID string) ([]AuditEntry, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT organization_id, environment, resource_type, resource_id, action, actor_type,
		actor_id, from_status, to_status, reason FROM audit_log WHERE resource_id = ? ORDER BY id`, resourceID)
	if err != nil {
		return nil, fmt.Errorf("find audit: %w", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var a AuditEntry
		var env, actor string
		var actorID, from, to, reason sql.NullString
		if err := rows.Scan(&a.OrganizationID, &env, &a.ResourceType, &a.ResourceID, &a.Action, &actor, &actorID, &from, &to, &reason); err != nil {
			return nil, fmt.Errorf("scan audit: %w", err)
		}
		a.Environment, a.ActorType = kyc.Environment(env), kyc.ActorType(actor)
		a.ActorID, a.FromStatus, a.ToStatus, a.Reason = ptrString(actorID), ptrString(from), ptrString(to), ptrString(reason)
		out = append(out, a)
	}
	return out, rows.Err()
}

// AuditProblem says why a row breaks the chain.
type AuditProblem string

// The ways the chain can break.
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
)

// AuditBreak is the first row where the chain does not hold.
type AuditBreak struct {
	ID      int64 // the row where the break shows
	Problem AuditProblem
	Field   string // which stored hash disagrees: "content_hash" or "prev_hash"
	// Expected is what the chain says the field must be; Stored is what
	// the row has ("" for NULL).
	Expected, Stored string
	Detail           string // one sentence for people
}

// AuditVerification is the outcome of VerifyAudit.
type AuditVerification struct {
	Rows     int64       // rows read: all of them when the chain holds
	PreChain int64       // rows written before the chain started (no stored hashes)
	Head     string      // the last row's content hash when the chain holds (64 zeros for an empty log)
	Broken   *AuditBreak // nil when the chain holds
}

// OK reports whether the whole chain holds.
func (v AuditVerification) OK() bool { return v.Broken == nil }

// VerifyAudit walks the audit log in id order, recomputing every hash, and
// reports the first row where the chain breaks. It reads one row at a time
// from one snapshot, so memory stays constant however long the log.
func (s *Store) VerifyAudit(ctx context.Context) (AuditVerification, error) {
	var v AuditVerification
	rows, err := s.reader.QueryContext(ctx, `SELECT `+auditRowColumns+` FROM audit_log ORDER BY id`)
	if err != nil {
		return v, fmt.Errorf("verify audit: %w", err)
	}
	defer rows.Close()
	expect, next, chained := zeroHash, int64(1), false
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
		switch {
		case r.ID > next:
			detail := fmt.Sprintf("rows %d to %d are missing (deleted)", next, r.ID-1)
			if r.ID == next+1 {
				detail = fmt.Sprintf("row %d is missing (deleted)", next)
			}
			return broken(r, AuditRowMissing, "prev_hash", expect, r.PrevHash, detail)
		case r.ID < next: // only possible for a first row with id 0 or less
			return broken(r, AuditLinkBroken, "prev_hash", expect, r.PrevHash, fmt.Sprintf("row %d comes before row 1", r.ID))
		}
		next = r.ID + 1
		if r.PrevHash == nil && r.ContentHash == nil && !chained {
			v.PreChain++
			expect = r.hash(expect)
			continue
		}
		if r.PrevHash == nil || r.ContentHash == nil {
			return broken(r, AuditHashMissing, "content_hash", r.hash(expect), r.ContentHash,
				"the row has no hashes but comes after the start of the chain")
		}
		if !chained && v.PreChain > 0 && *r.PrevHash != expect {
			return broken(r, AuditLinkBroken, "prev_hash", expect, r.PrevHash,
				"the first chained row does not match the rows written before the chain: one of them was changed")
		}
		chained = true
		if *r.PrevHash != expect {
			return broken(r, AuditLinkBroken, "prev_hash", expect, r.PrevHash,
				fmt.Sprintf("prev_hash is not the hash of row %d: that row was replaced or this one inserted", r.ID-1))
		}
		if h := r.hash(*r.PrevHash); h != *r.ContentHash {
			return broken(r, AuditContentChanged, "content_hash", h, r.ContentHash, "the row's fields do not match its hash: it was edited")
		}
		expect = *r.ContentHash
	}
	if err := rows.Err(); err != nil {
		return v, fmt.Errorf("verify audit: %w", err)
	}
	v.Head = expect
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
// stored, hashes included: an auditor can recompute the chain from them.
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
