package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"kycd/kyc"
)

// RetentionOf returns an organization's retention policy, its defaults
// filled in (kyc.DefaultRetention).
func (s *Store) RetentionOf(ctx context.Context, orgID string) (kyc.RetentionPolicy, error) {
	return retentionOf(ctx, readPool{s.readStmts}, orgID)
}

func retentionOf(ctx context.Context, q queryer, orgID string) (kyc.RetentionPolicy, error) {
	var decided, inactive, sandbox, amlYears sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT retention_decided_years, retention_inactive_days, retention_sandbox_days, retention_aml_years
		FROM organizations WHERE id = ?`, orgID).Scan(&decided, &inactive, &sandbox, &amlYears); err != nil {
		return kyc.RetentionPolicy{}, fmt.Errorf("retention policy of %s: %w", orgID, err)
	}
	p := kyc.DefaultRetention
	if decided.Valid {
		p.DecidedYears = int(decided.Int64)
	}
	if inactive.Valid {
		p.InactiveDays = int(inactive.Int64)
	}
	if sandbox.Valid {
		p.SandboxDays = int(sandbox.Int64)
	}
	if amlYears.Valid {
		p.AMLYears = int(amlYears.Int64)
	}
	return p, nil
}

// RetentionChange changes a policy: nil leaves a period as it is, 0 goes
// back to the default.
type RetentionChange struct {
	DecidedYears, InactiveDays, SandboxDays, AMLYears *int
}

// SetRetention changes an organization's retention policy and audits it.
// Periods out of range are VALIDATION_ERROR.
func (tx *Tx) SetRetention(orgID string, c RetentionChange) (kyc.RetentionPolicy, error) {
	var errs []kyc.FieldError
	for _, f := range []struct {
		name, column string
		v            *int
		max          int
	}{{"retentionDecidedYears", "retention_decided_years", c.DecidedYears, 50},
		{"retentionInactiveDays", "retention_inactive_days", c.InactiveDays, 36500},
		{"retentionSandboxDays", "retention_sandbox_days", c.SandboxDays, 36500},
		{"retentionAmlYears", "retention_aml_years", c.AMLYears, 50}} {
		if f.v == nil {
			continue
		}
		if *f.v < 0 || *f.v > f.max {
			errs = append(errs, kyc.FieldError{Field: f.name, Message: "must be from 1 to " + strconv.Itoa(f.max) + ", or 0 for the default"})
			continue
		}
		var v any
		if *f.v > 0 {
			v = *f.v
		}
		if err := tx.updateOrg(`UPDATE organizations SET `+f.column+` = ? WHERE id = ?`, v, orgID); err != nil {
			return kyc.RetentionPolicy{}, err
		}
	}
	if len(errs) > 0 {
		return kyc.RetentionPolicy{}, kyc.Invalid(errs...)
	}
	p, err := retentionOf(context.Background(), tx.q, orgID)
	if err != nil {
		return p, err
	}
	return p, tx.auditOperatorAction(orgID, "", "organization", orgID, "organization.retention_changed",
		fmt.Sprintf("retention: decided %d years, inactive %d days, sandbox %d days, AML checks %d years",
			p.DecidedYears, p.InactiveDays, p.SandboxDays, p.AMLYears))
}

// AgedErasure is an applicant whose retention period ended.
type AgedErasure struct {
	DueErasure
	Reason string // which period ended, for the receipt
}

// FindAgedErasures returns up to limit applicants, across organizations,
// whose retention period ended at now: sandbox applicants with no activity
// for SandboxDays; live applicants with no open request and either a last
// decision older than DecidedYears or, when nothing was decided, no
// activity for InactiveDays. Erased applicants and those under legal hold
// are not returned.
func (s *Store) FindAgedErasures(ctx context.Context, now time.Time, limit int) ([]AgedErasure, error) {
	orgs, err := s.reader.QueryContext(ctx, `SELECT id FROM organizations ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("find aged erasures: %w", err)
	}
	ids, err := scanIDs(orgs)
	if err != nil {
		return nil, err
	}
	// Activity: the applicant's own last change and its requests' last.
	const base = `SELECT a.id FROM applicants a WHERE a.organization_id = ?2 AND a.environment = ?3
		AND a.erased_at IS NULL AND a.legal_hold_reason IS NULL AND a.updated_at < ?1
		AND NOT EXISTS (SELECT 1 FROM kyc_requests r WHERE r.applicant_id = a.id AND (r.updated_at >= ?1
			OR r.status IN ('link_generated', 'submitted', 'processing', 'awaiting_review', 'resubmission_requested')))`
	var out []AgedErasure
	for _, org := range ids {
		p, err := s.RetentionOf(ctx, org)
		if err != nil {
			return nil, err
		}
		for _, q := range []struct {
			sql    string
			args   []any
			env    kyc.Environment
			reason string
		}{
			{base, []any{kyc.FormatTime(now.AddDate(0, 0, -p.SandboxDays)), org, "sandbox"}, kyc.Sandbox,
				fmt.Sprintf("sandbox data, no activity for %d days", p.SandboxDays)},
			{base + ` AND NOT EXISTS (SELECT 1 FROM kyc_requests r WHERE r.applicant_id = a.id AND r.decision IN ('approved', 'rejected'))`,
				[]any{kyc.FormatTime(now.AddDate(0, 0, -p.InactiveDays)), org, "live"}, kyc.Live,
				fmt.Sprintf("nothing decided and no activity for %d days", p.InactiveDays)},
			{base + ` AND EXISTS (SELECT 1 FROM kyc_requests r WHERE r.applicant_id = a.id AND r.decision IN ('approved', 'rejected'))
				AND (SELECT max(r.decided_at) FROM kyc_requests r WHERE r.applicant_id = a.id AND r.decision IN ('approved', 'rejected')) < ?1
				AND (a.relationship_end IS NULL OR a.relationship_end < ?1)`,
				[]any{kyc.FormatTime(now.AddDate(-p.DecidedYears, 0, 0)), org, "live"}, kyc.Live,
				fmt.Sprintf("%d years after the later of the last decision and the relationship end", p.DecidedYears)},
		} {
			if len(out) >= limit {
				return out, nil
			}
			// ?1 is the cutoff, ?2 the organization, ?3 the environment.
			query := q.sql + ` ORDER BY a.id LIMIT ` + strconv.Itoa(limit-len(out))
			rows, err := s.reader.QueryContext(ctx, query, q.args...)
			if err != nil {
				return nil, fmt.Errorf("find aged erasures: %w", err)
			}
			found, err := scanIDs(rows)
			if err != nil {
				return nil, err
			}
			for _, id := range found {
				out = append(out, AgedErasure{DueErasure: DueErasure{OrganizationID: org, Environment: q.env, ApplicantID: id}, Reason: q.reason})
			}
		}
	}
	return out, nil
}
