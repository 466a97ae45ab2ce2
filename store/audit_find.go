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
	// Category is AuditChange or AuditAccess ("" for both).
	Category string
	// Installation also selects the installation-wide rows (watch lists,
	// the master key): for installation admins.
	Installation bool
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
	installation := 0
	if f.Installation {
		installation = 1
	}
	return `(organization_id = ? OR (? = 1 AND organization_id = '')) AND (? = '' OR environment = ?)
		AND (? = '' OR actor_id = ? OR actor_type = ?)
		AND (? = '' OR action = ? OR (? != '' AND substr(action, 1, length(?)) = ?)) AND (? = '' OR resource_id = ?)
		AND (? = '' OR created_at >= ?) AND (? = '' OR created_at < ?) AND (? = 0 OR id < ?)
		AND (? = '' OR (? = 'access' AND substr(action, 1, 7) = 'access.') OR (? = 'change' AND substr(action, 1, 7) != 'access.'))`,
		[]any{f.OrganizationID, installation, string(f.Environment), string(f.Environment), f.Actor, f.Actor, f.Actor,
			f.Action, f.Action, prefix, prefix, prefix, f.Resource, f.Resource, from, from, to, to, f.BeforeID, f.BeforeID,
			f.Category, f.Category, f.Category}
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

// CountInstallationAudit counts the installation-wide rows with ids
// strictly between after and before: what a page that does not show them
// says it left out.
func (s *Store) CountInstallationAudit(ctx context.Context, after, before int64) (int64, error) {
	var n int64
	err := s.reader.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log WHERE organization_id = '' AND id > ? AND id < ?`, after, before).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count installation audit rows: %w", err)
	}
	return n, nil
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
