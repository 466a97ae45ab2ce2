package store

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"kycd/kyc"
)

// AuditFilter selects one organization's audit rows; empty fields match
// all.
type AuditFilter struct {
	OrganizationID string // required: rows of other organizations and installation-wide ones never match
	Environment    kyc.Environment
	Actor          string // actor id (user, key_…), or an actor type (system, applicant)
	Action         string // exact, or a prefix ending in "." (e.g. "webhook_endpoint.")
	Resource       string // resource id
	From, To       time.Time
	BeforeID       int64 // keyset paging: rows with a smaller id
}

// AuditRow is one audit row as stored, hashes included (the JSON line of
// an export).
type AuditRow = auditRow

func (f AuditFilter) where() (string, []any) {
	from, to := "", ""
	if !f.From.IsZero() {
		from = kyc.FormatTime(f.From)
	}
	if !f.To.IsZero() {
		to = kyc.FormatTime(f.To)
	}
	prefix := ""
	if n := len(f.Action); n > 0 && f.Action[n-1] == '.' {
		prefix = f.Action
	}
	return `organization_id = ? AND (? = '' OR environment = ?) AND (? = '' OR actor_id = ? OR actor_type = ?)
		AND (? = '' OR action = ? OR (? != '' AND substr(action, 1, length(?)) = ?)) AND (? = '' OR resource_id = ?)
		AND (? = '' OR created_at >= ?) AND (? = '' OR created_at < ?) AND (? = 0 OR id < ?)`,
		[]any{f.OrganizationID, string(f.Environment), string(f.Environment), f.Actor, f.Actor, f.Actor,
			f.Action, f.Action, prefix, prefix, prefix, f.Resource, f.Resource, from, from, to, to, f.BeforeID, f.BeforeID}
}

// FindAuditRows returns up to limit rows the filter selects, newest first.
func (s *Store) FindAuditRows(ctx context.Context, f AuditFilter, limit int) ([]AuditRow, error) {
	if f.OrganizationID == "" {
		return nil, fmt.Errorf("find audit rows: no organization")
	}
	where, args := f.where()
	rows, err := s.reader.QueryContext(ctx, `SELECT `+auditRowColumns+` FROM audit_log WHERE `+where+` ORDER BY id DESC LIMIT ?`,
		append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("find audit rows: %w", err)
	}
	defer rows.Close()
	out := []AuditRow{}
	for rows.Next() {
		r, err := scanAuditRow(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ExportAuditRows writes every row the filter selects, oldest first, as
// JSON lines in ExportAudit's format.
func (s *Store) ExportAuditRows(ctx context.Context, f AuditFilter, w io.Writer) error {
	if f.OrganizationID == "" {
		return fmt.Errorf("export audit rows: no organization")
	}
	where, args := f.where()
	rows, err := s.reader.QueryContext(ctx, `SELECT `+auditRowColumns+` FROM audit_log WHERE `+where+` ORDER BY id`, args...)
	if err != nil {
		return fmt.Errorf("export audit rows: %w", err)
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
			return fmt.Errorf("export audit rows: %w", err)
		}
	}
	return rows.Err()
}
