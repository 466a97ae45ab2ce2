package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"kycd/kyc"
)

const batchColumns = `id, organization_id, environment, status, monitoring, total, screened, failed, potential_matches,
	created_at, updated_at, completed_at`

// CreateAMLBatch stores a batch and its rows (status pending, or failed
// with their errors); ids, times and the failed count are set here.
func (tx *Tx) CreateAMLBatch(b *kyc.AMLBatch, rows []kyc.AMLBatchRow) error {
	b.ID, b.Status, b.CreatedAt, b.UpdatedAt, b.CompletedAt = "amb_"+NewULID(tx.now), kyc.AMLBatchQueued, tx.now, tx.now, nil
	b.Total, b.Failed, b.Screened, b.PotentialMatches = len(rows), 0, 0, 0
	for _, r := range rows {
		if r.Status == kyc.AMLRowFailed {
			b.Failed++
		}
	}
	if _, err := tx.exec(`INSERT INTO aml_batches (`+batchColumns+`) VALUES (?, ?, ?, ?, ?, ?, 0, ?, 0, ?, ?, NULL)`,
		b.ID, b.OrganizationID, string(b.Environment), string(b.Status), boolInt(b.Monitoring), b.Total, b.Failed,
		kyc.FormatTime(tx.now), kyc.FormatTime(tx.now)); err != nil {
		return fmt.Errorf("insert aml batch: %w", err)
	}
	for _, r := range rows {
		subject, err := json.Marshal(r.Subject)
		if err != nil {
			return fmt.Errorf("encode batch subject: %w", err)
		}
		var errs any
		if len(r.Errors) > 0 {
			e, err := json.Marshal(r.Errors)
			if err != nil {
				return fmt.Errorf("encode batch row errors: %w", err)
			}
			errs = string(e)
		}
		if _, err := tx.exec(`INSERT INTO aml_batch_rows (batch_id, row_index, subject, status, check_id, errors) VALUES (?, ?, ?, ?, NULL, ?)`,
			b.ID, r.Index, string(subject), string(r.Status), errs); err != nil {
			return fmt.Errorf("insert aml batch row: %w", err)
		}
	}
	return tx.auditChange(b.OrganizationID, b.Environment, "aml_batch", b.ID, "aml_batch.created", nil, string(b.Status),
		fmt.Sprintf("%d subjects, %d refused at validation", b.Total, b.Failed))
}

// FindAMLBatch returns a batch of the organization in env: NOT_FOUND when
// it is not the organization's, wrong_environment in its other one.
func (s *Store) FindAMLBatch(ctx context.Context, orgID string, env kyc.Environment, id string) (*kyc.AMLBatch, error) {
	return findAMLBatch(ctx, readPool{s.readStmts}, orgID, env, id)
}

// FindAMLBatch is Store.FindAMLBatch inside the write transaction.
func (tx *Tx) FindAMLBatch(orgID string, env kyc.Environment, id string) (*kyc.AMLBatch, error) {
	return findAMLBatch(context.Background(), tx.q, orgID, env, id)
}

func findAMLBatch(ctx context.Context, q queryer, orgID string, env kyc.Environment, id string) (*kyc.AMLBatch, error) {
	if kind, _ := kyc.ClassifyID("amb_", id); kind != kyc.IDInternal {
		return nil, kyc.Errorf(kyc.ENotFound, "AML batch %s not found.", id)
	}
	var b kyc.AMLBatch
	var envS, status, created, updated string
	var completed sql.NullString
	var monitoring int
	err := q.QueryRowContext(ctx, `SELECT `+batchColumns+` FROM aml_batches WHERE id = ? AND organization_id = ?`, id, orgID).Scan(
		&b.ID, &b.OrganizationID, &envS, &status, &monitoring, &b.Total, &b.Screened, &b.Failed, &b.PotentialMatches,
		&created, &updated, &completed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "AML batch %s not found.", id)
	}
	if err != nil {
		return nil, fmt.Errorf("find aml batch: %w", err)
	}
	b.Environment, b.Status, b.Monitoring = kyc.Environment(envS), kyc.AMLBatchStatus(status), monitoring == 1
	b.CreatedAt, b.UpdatedAt, b.CompletedAt = parseTime(created), parseTime(updated), parseTimePtr(completed)
	if b.Environment != env {
		return nil, wrongEnvironment("AML batch", id, b.Environment, env)
	}
	return &b, nil
}

// PendingBatchRows returns up to limit rows of a batch still to screen,
// in row order.
func (s *Store) PendingBatchRows(ctx context.Context, batchID string, limit int) ([]kyc.AMLBatchRow, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT row_index, subject FROM aml_batch_rows
		WHERE batch_id = ? AND status = 'pending' ORDER BY row_index LIMIT ?`, batchID, limit)
	if err != nil {
		return nil, fmt.Errorf("pending batch rows: %w", err)
	}
	defer rows.Close()
	var out []kyc.AMLBatchRow
	for rows.Next() {
		var r kyc.AMLBatchRow
		var subject string
		if err := rows.Scan(&r.Index, &subject); err != nil {
			return nil, fmt.Errorf("scan batch row: %w", err)
		}
		if err := json.Unmarshal([]byte(subject), &r.Subject); err != nil {
			return nil, fmt.Errorf("decode batch subject: %w", err)
		}
		r.Status = kyc.AMLRowPending
		out = append(out, r)
	}
	return out, rows.Err()
}

// MarkBatchRowScreened links a pending row to the check made from it and
// counts it in the batch. It reports false when the row was not pending
// (another run took it): the caller must not keep the check then.
func (tx *Tx) MarkBatchRowScreened(batchID string, index int, c *kyc.AMLCheck) (bool, error) {
	res, err := tx.exec(`UPDATE aml_batch_rows SET status = 'screened', check_id = ? WHERE batch_id = ? AND row_index = ? AND status = 'pending'`,
		c.ID, batchID, index)
	if err != nil {
		return false, fmt.Errorf("mark batch row: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	hit := 0
	if c.Status == kyc.AMLPotentialMatch {
		hit = 1
	}
	if _, err := tx.exec(`UPDATE aml_batches SET screened = screened + 1, potential_matches = potential_matches + ?, status = 'running',
		updated_at = ? WHERE id = ?`, hit, kyc.FormatTime(tx.now), batchID); err != nil {
		return false, fmt.Errorf("count batch row: %w", err)
	}
	return true, nil
}

// CompleteAMLBatch marks a batch completed once no row is pending; it
// reports false (and writes nothing) while rows are pending or when it was
// completed already.
func (tx *Tx) CompleteAMLBatch(b *kyc.AMLBatch) (bool, error) {
	res, err := tx.exec(`UPDATE aml_batches SET status = 'completed', completed_at = ?, updated_at = ?
		WHERE id = ? AND status <> 'completed' AND NOT EXISTS (SELECT 1 FROM aml_batch_rows WHERE batch_id = ? AND status = 'pending')`,
		kyc.FormatTime(tx.now), kyc.FormatTime(tx.now), b.ID, b.ID)
	if err != nil {
		return false, fmt.Errorf("complete aml batch: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return false, err
	}
	return true, tx.auditChange(b.OrganizationID, b.Environment, "aml_batch", b.ID, "aml_batch.completed", nil, "completed", "")
}

// FindBatchRows returns one page of a batch's rows in row order, with the
// figures of the checks made, and the number of rows matching status
// ("" for all). The batch was found in the caller's scope first.
func (s *Store) FindBatchRows(ctx context.Context, batchID string, status kyc.AMLBatchRowStatus, page, size int) ([]kyc.AMLBatchRow, int, error) {
	where, args := `r.batch_id = ?`, []any{batchID}
	if status != "" {
		where += ` AND r.status = ?`
		args = append(args, string(status))
	}
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM aml_batch_rows r WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count batch rows: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT r.row_index, r.subject, r.status, r.check_id, r.errors, c.status, c.risk_level,
		c.match_count, c.review_status FROM aml_batch_rows r LEFT JOIN aml_checks c ON c.id = r.check_id
		WHERE `+where+` ORDER BY r.row_index LIMIT ? OFFSET ?`, append(args, size, (page-1)*size)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find batch rows: %w", err)
	}
	defer rows.Close()
	var out []kyc.AMLBatchRow
	for rows.Next() {
		var r kyc.AMLBatchRow
		var subject, st string
		var checkID, errs, cStatus, risk, review sql.NullString
		var matches sql.NullInt64
		if err := rows.Scan(&r.Index, &subject, &st, &checkID, &errs, &cStatus, &risk, &matches, &review); err != nil {
			return nil, 0, fmt.Errorf("scan batch row: %w", err)
		}
		r.Status = kyc.AMLBatchRowStatus(st)
		if err := json.Unmarshal([]byte(subject), &r.Subject); err != nil {
			return nil, 0, fmt.Errorf("decode batch subject: %w", err)
		}
		if errs.Valid {
			if err := json.Unmarshal([]byte(errs.String), &r.Errors); err != nil {
				return nil, 0, fmt.Errorf("decode batch row errors: %w", err)
			}
		}
		if checkID.Valid {
			r.CheckID = &checkID.String
		}
		if cStatus.Valid {
			s, rv, n := kyc.AMLStatus(cStatus.String), kyc.AMLReviewStatus(review.String), int(matches.Int64)
			r.CheckStatus, r.ReviewStatus, r.MatchCount = &s, &rv, &n
			if risk.Valid {
				l := kyc.RiskLevel(risk.String)
				r.RiskLevel = &l
			}
		}
		out = append(out, r)
	}
	return out, total, rows.Err()
}

// RecentAMLBatches returns the organization's latest batches in env,
// newest first (the console's batch page lists them).
func (s *Store) RecentAMLBatches(ctx context.Context, orgID string, env kyc.Environment, limit int) ([]*kyc.AMLBatch, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+batchColumns+` FROM aml_batches WHERE organization_id = ? AND environment = ?
		ORDER BY id DESC LIMIT ?`, orgID, string(env), limit)
	if err != nil {
		return nil, fmt.Errorf("find aml batches: %w", err)
	}
	defer rows.Close()
	var out []*kyc.AMLBatch
	for rows.Next() {
		var b kyc.AMLBatch
		var envS, status, created, updated string
		var completed sql.NullString
		var monitoring int
		if err := rows.Scan(&b.ID, &b.OrganizationID, &envS, &status, &monitoring, &b.Total, &b.Screened, &b.Failed, &b.PotentialMatches,
			&created, &updated, &completed); err != nil {
			return nil, fmt.Errorf("scan aml batch: %w", err)
		}
		b.Environment, b.Status, b.Monitoring = kyc.Environment(envS), kyc.AMLBatchStatus(status), monitoring == 1
		b.CreatedAt, b.UpdatedAt, b.CompletedAt = parseTime(created), parseTime(updated), parseTimePtr(completed)
		out = append(out, &b)
	}
	return out, rows.Err()
}
