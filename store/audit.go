package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"kycd/kyc"
)

// The audit log is a chain. Row n stores prev_hash, the content_hash of
// row n-1 (64 zeros for row 1), and content_hash, computed over the
// canonical encoding of its own fields, prev_hash included. Ids are 1, 2,
// 3, … without gaps, so a deleted row shows as a gap.
//
// Since the audit_head migration content_hash is a MAC: the hex HMAC-SHA256 of the
// encoding tagged "kycd.audit.v2", keyed with the audit key. That key is
// derived from the database's first data key (HKDF-SHA256, info "kycd
// audit chain v2"), which only the master key unwraps: someone who can
// write the file but has no master key cannot recompute a row they edited
// or a row they insert. (Derived from the data key rather than the master
// key itself so that rotating the master key leaves the chain valid.)
// Rows written between the audit_chain and audit_head migrations are chained with plain
// SHA-256 ("kycd.audit.v1"); rows before 0007 have no hashes (pre-chain)
// and the first chained row links to the hash their chain would have had.
// audit_head.mac_from is the first MAC row; everything before it keeps
// verifying as it did.
//
// The encoding is the tag followed by the row's fields in this order: id
// (decimal), created_at, organization_id, environment, resource_type,
// resource_id, action, actor_type, actor_id, from_status, to_status,
// reason, prev_hash. Each item, the tag first, is written as the byte 0x01,
// its length in bytes as a 4-byte big-endian integer and its UTF-8 bytes; a
// NULL is the single byte 0x00. Texts are used exactly as stored (created_at
// as written, e.g. 2026-01-02T03:04:05.000Z), never parsed and re-formatted.
//
// Deleting the newest rows leaves no gap, so the chain alone cannot show
// it: the signed head (audit_head, audit_head.go) records the row count and
// the last hash under the same key, AppendAudit moves it in the same
// transaction as each row, and VerifyAudit compares the log with it.

// zeroHash is the prev_hash of the first row.
const zeroHash = "0000000000000000000000000000000000000000000000000000000000000000"

const (
	auditTag    = "kycd.audit.v1" // SHA-256 rows (from the audit_chain migration to audit_head)
	auditTagMAC = "kycd.audit.v2" // HMAC rows (from audit_head.mac_from)
)

// AuditEntry is one row of the append-only audit log.
type AuditEntry struct {
	OrganizationID string // "" for an installation-wide action (watch lists, master key)
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

// encode is the canonical encoding of r with prev as its prev_hash.
func (r *auditRow) encode(tag, prev string) []byte {
	id := strconv.FormatInt(r.ID, 10)
	items := []*string{&tag, &id, &r.CreatedAt, &r.OrganizationID, &r.Environment, &r.ResourceType, &r.ResourceID,
		&r.Action, &r.ActorType, r.ActorID, r.FromStatus, r.ToStatus, r.Reason, &prev}
	return appendItems(nil, items...)
}

// appendItems writes each item as 0x01, its length (4 bytes, big-endian)
// and its bytes; nil as 0x00.
func appendItems(buf []byte, items ...*string) []byte {
	for _, s := range items {
		if s == nil {
			buf = append(buf, 0)
			continue
		}
		buf = append(buf, 1)
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(*s)))
		buf = append(buf, *s...)
	}
	return buf
}

// hash is the SHA-256 content hash of r with prev as its prev_hash (rows
// before audit_head.mac_from).
func (r *auditRow) hash(prev string) string {
	sum := sha256.Sum256(r.encode(auditTag, prev))
	return hex.EncodeToString(sum[:])
}

// mac is the keyed content hash of r with prev as its prev_hash.
func (r *auditRow) mac(key []byte, prev string) string {
	m := hmac.New(sha256.New, key)
	m.Write(r.encode(auditTagMAC, prev))
	return hex.EncodeToString(m.Sum(nil))
}

// ErrAuditHead is returned when the audit log cannot be extended because
// its signed head is missing or was not signed with this database's key:
// someone changed the file. kycd audit verify says more.
var ErrAuditHead = errors.New("store: the audit log's signed head is missing or forged; run kycd audit verify")

// AppendAudit writes an audit row after the signed head and moves the head
// to it, in the caller's transaction. The row's actor is the entry's, or
// when the entry names none, the transaction's (WithActor). It needs the
// master key (ErrNoMasterKey without), and fails with ErrAuditHead when
// the head does not verify: a log that was tampered with is not extended
// as if nothing happened. The commit loop runs one use case at a time, so
// two rows never follow the same head.
func (tx *Tx) AppendAudit(a AuditEntry) error {
	key, err := tx.keys.auditKey()
	if err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	h, err := readAuditHead(context.Background(), tx.q)
	if err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	if !h.valid(key) {
		return fmt.Errorf("append audit: %w", ErrAuditHead)
	}
	if a.ActorType == "" {
		a.ActorType, a.ActorID = tx.actorOrSystem()
	}
	r := auditRow{ID: h.Rows + 1, CreatedAt: kyc.FormatTime(tx.now), OrganizationID: a.OrganizationID,
		Environment: string(a.Environment), ResourceType: a.ResourceType, ResourceID: a.ResourceID, Action: a.Action,
		ActorType: string(a.ActorType), ActorID: a.ActorID, FromStatus: a.FromStatus, ToStatus: a.ToStatus, Reason: a.Reason}
	prev := h.Hash
	content := r.mac(key, prev)
	_, err = tx.exec(`INSERT INTO audit_log (`+auditRowColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.CreatedAt, r.OrganizationID, r.Environment, r.ResourceType, r.ResourceID, r.Action, r.ActorType,
		r.ActorID, r.FromStatus, r.ToStatus, r.Reason, prev, content)
	if err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	h.Rows, h.Hash, h.SignedAt = r.ID, content, r.CreatedAt
	if err := h.save(tx.q, key); err != nil {
		return fmt.Errorf("append audit: %w", err)
	}
	return nil
}

// auditOperatorAction records an operator action (keys, organization
// settings, webhook endpoints, watch lists, the master key) by whoever the
// transaction acts for.
func (tx *Tx) auditOperatorAction(orgID string, env kyc.Environment, resourceType, resourceID, action, reason string) error {
	a := AuditEntry{OrganizationID: orgID, Environment: env, ResourceType: resourceType, ResourceID: resourceID, Action: action}
	if reason != "" {
		a.Reason = &reason
	}
	return tx.AppendAudit(a)
}

// auditChange records a change of a resource by whoever the transaction
// acts for (WithActor: an API key, a console user, the operator's CLI; the
// system otherwise), with the status it moved from and to when it has one.
func (tx *Tx) auditChange(orgID string, env kyc.Environment, resourceType, resourceID, action string, from *string, to, reason string) error {
	a := AuditEntry{OrganizationID: orgID, Environment: env, ResourceType: resourceType, ResourceID: resourceID, Action: action, FromStatus: from}
	if to != "" {
		a.ToStatus = &to
	}
	if reason != "" {
		a.Reason = &reason
	}
	return tx.AppendAudit(a)
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
