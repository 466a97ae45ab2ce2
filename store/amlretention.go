package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"kycd/kyc"
)

// Retention of AML checks and their monitoring history (docs/personal-data.md).
// A check names a person (name, date of birth, country) and what the lists
// said about them; like a verification record it is kept for the
// organization's AMLYears after its last screening, and sandbox checks
// SandboxDays after their last activity. A check still monitored is part of
// a live relationship and is not erased, but its history rows older than
// AMLYears lose their detail. Erasure keeps a tombstone: the row with its
// ids, dates, status, risk level, counts and review status, and the hash of
// the erased subject fields.

// erasedScreeningDetail is the detail of a history row whose matches were
// erased: the shape findScreenings reads, emptied.
const erasedScreeningDetail = `{"newMatches":[],"removedMatches":[],"listVersions":[],"changedEntities":[]}`

func errAMLCheckErased(id string) error {
	return &kyc.Error{Code: kyc.EUnprocessable, Reason: "aml_check_erased",
		Message: fmt.Sprintf("AML check %s was erased when its retention period ended; nothing is screened on it again.", id)}
}

// AgedAMLCheck is an AML check whose retention period ended.
type AgedAMLCheck struct {
	OrganizationID string
	Environment    kyc.Environment
	CheckID        string
	Reason         string // which period ended, for the audit row
}

// FindAgedAMLChecks returns up to limit checks, across organizations, whose
// retention period ended at now: sandbox checks with no activity for
// SandboxDays; live checks not monitored, with no match awaiting review,
// whose last screening and last change are older than AMLYears. Erased
// checks are not returned.
func (s *Store) FindAgedAMLChecks(ctx context.Context, now time.Time, limit int) ([]AgedAMLCheck, error) {
	orgs, err := s.reader.QueryContext(ctx, `SELECT id FROM organizations ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("find aged aml checks: %w", err)
	}
	ids, err := scanIDs(orgs)
	if err != nil {
		return nil, err
	}
	var out []AgedAMLCheck
	for _, org := range ids {
		p, err := s.RetentionOf(ctx, org)
		if err != nil {
			return nil, err
		}
		for _, q := range []struct {
			sql    string
			cutoff time.Time
			env    kyc.Environment
			reason string
		}{
			{`SELECT id FROM aml_checks WHERE organization_id = ? AND environment = 'sandbox' AND erased_at IS NULL
				AND updated_at < ? AND last_screened_at < ?`, now.AddDate(0, 0, -p.SandboxDays), kyc.Sandbox,
				fmt.Sprintf("sandbox AML check, no activity for %d days", p.SandboxDays)},
			// A live check whose matches still await review is an open
			// compliance matter (a potential listed person nobody looked
			// at): it is kept, in the alerts queue, until decided.
			{`SELECT id FROM aml_checks WHERE organization_id = ? AND environment = 'live' AND erased_at IS NULL
				AND monitoring = 0 AND review_status <> 'pending' AND updated_at < ? AND last_screened_at < ?`, now.AddDate(-p.AMLYears, 0, 0), kyc.Live,
				fmt.Sprintf("AML check not monitored, %d years after its last screening", p.AMLYears)},
		} {
			if len(out) >= limit {
				return out, nil
			}
			cut := kyc.FormatTime(q.cutoff)
			rows, err := s.reader.QueryContext(ctx, q.sql+` ORDER BY id LIMIT `+strconv.Itoa(limit-len(out)), org, cut, cut)
			if err != nil {
				return nil, fmt.Errorf("find aged aml checks: %w", err)
			}
			found, err := scanIDs(rows)
			if err != nil {
				return nil, err
			}
			for _, id := range found {
				out = append(out, AgedAMLCheck{OrganizationID: org, Environment: q.env, CheckID: id, Reason: q.reason})
			}
		}
	}
	return out, nil
}

// EraseAMLCheck erases an AML check's personal data in one transaction:
// the subject's name, date of birth and country, the per-list results,
// its monitoring history's matches, the reviewers' notes on its matches
// and the subject of the batch row that created it; false-positive
// suppressions it created are lifted (they hold a hash of the subject).
// The row stays as the tombstone, with erased_at and the SHA-256 of the
// erased subject fields; an audit row says why. It reports false when the
// check was already erased, or started being monitored again since it was
// found (live).
func (s *Store) EraseAMLCheck(ctx context.Context, a AgedAMLCheck) (bool, error) {
	erased := false
	err := s.InTx(ctx, func(tx *Tx) error {
		erased = false
		c, err := tx.FindAMLCheck(a.OrganizationID, a.Environment, a.CheckID)
		if err != nil {
			return err
		}
		if c.ErasedAt != nil || (c.Environment == kyc.Live && c.MonitoringEnabled) {
			return nil
		}
		fields, err := json.Marshal(map[string]any{"firstName": c.FirstName, "lastName": c.LastName, "dob": c.DOB, "country": c.Country})
		if err != nil {
			return fmt.Errorf("erase aml check: %w", err)
		}
		now := kyc.FormatTime(tx.now)
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`UPDATE aml_checks SET first_name = '', last_name = '', dob = NULL, country = NULL, results = '[]', monitoring = 0,
				next_screen_at = NULL, erased_at = ?, erased_sha256 = ? WHERE id = ?`, []any{now, sha256Hex(fields), c.ID}},
			{`UPDATE aml_screenings SET detail = ?, erased_at = ? WHERE check_id = ? AND erased_at IS NULL`,
				[]any{erasedScreeningDetail, now, c.ID}},
			// The decision (false positive or confirmed), who and when stay;
			// the note is free text about the person.
			{`UPDATE aml_match_decisions SET note = '' WHERE check_id = ?`, []any{c.ID}},
			{`UPDATE aml_suppressions SET subject_key = '', lifted_at = coalesce(lifted_at, ?), lifted_by_type = coalesce(lifted_by_type, 'system'),
				lift_note = coalesce(lift_note, 'erased with its AML check') WHERE check_id = ?`, []any{now, c.ID}},
			{`UPDATE aml_batch_rows SET subject = '{}' WHERE check_id = ?`, []any{c.ID}},
			// The comment threads of its AML cases are free text about the
			// person too (the audit chain keeps each comment's hash).
			{`DELETE FROM case_comments WHERE organization_id = ? AND environment = ? AND subject_type = 'aml_case'
				AND subject_id IN (SELECT id FROM aml_cases WHERE check_id = ?)`, []any{c.OrganizationID, string(c.Environment), c.ID}},
		} {
			if _, err := tx.exec(q.sql, q.args...); err != nil {
				return fmt.Errorf("erase aml check %s: %w", c.ID, err)
			}
		}
		if err := tx.auditOperatorAction(c.OrganizationID, c.Environment, "aml_check", c.ID, "aml_check.erased", a.Reason); err != nil {
			return err
		}
		erased = true
		return nil
	})
	return erased, err
}

// EraseAgedScreenings erases, in batches of at most limit rows, the
// matches in the monitoring history of live checks screened longer ago
// than their organization's AMLYears (checks still monitored keep their
// recent history). It returns how many rows it erased.
func (s *Store) EraseAgedScreenings(ctx context.Context, now time.Time, limit int) (int, error) {
	orgs, err := s.reader.QueryContext(ctx, `SELECT id FROM organizations ORDER BY id`)
	if err != nil {
		return 0, fmt.Errorf("erase aged screenings: %w", err)
	}
	ids, err := scanIDs(orgs)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, org := range ids {
		p, err := s.RetentionOf(ctx, org)
		if err != nil {
			return total, err
		}
		cut := kyc.FormatTime(now.AddDate(-p.AMLYears, 0, 0))
		for {
			n := 0
			// One transaction per batch: the API's writes queue behind one
			// batch at most. CROSS JOIN makes SQLite walk the history from
			// aml_screenings_retention_idx (rows not yet erased, oldest
			// first) and stop at the batch's end, instead of every row of
			// the organization's checks each batch; PostgreSQL reads it as
			// the inner join it is.
			err := s.InTx(ctx, func(tx *Tx) error {
				res, err := tx.exec(`UPDATE aml_screenings SET detail = ?, erased_at = ? WHERE id IN (
					SELECT s.id FROM aml_screenings s CROSS JOIN aml_checks c
					WHERE c.id = s.check_id AND c.organization_id = ? AND c.environment = 'live' AND s.erased_at IS NULL AND s.screened_at < ?
					ORDER BY s.screened_at, s.id LIMIT `+strconv.Itoa(limit)+`)`, erasedScreeningDetail, kyc.FormatTime(tx.now), org, cut)
				if err != nil {
					return fmt.Errorf("erase aged screenings: %w", err)
				}
				m, err := res.RowsAffected()
				if err != nil {
					return fmt.Errorf("erase aged screenings: %w", err)
				}
				n = int(m)
				if n == 0 {
					return nil
				}
				return tx.auditOperatorAction(org, kyc.Live, "organization", org, "aml_check.history_erased",
					fmt.Sprintf("%d monitoring history row(s) screened before %s (%d years)", n, cut, p.AMLYears))
			})
			if err != nil {
				return total, err
			}
			total += n
			if n < limit {
				break
			}
		}
	}
	return total, nil
}
