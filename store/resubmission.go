package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
)

const resubmissionColumns = `id, request_id, attempt, step, message, state, actor_type, actor_id, prior_automation_decision,
	prior_decision_reason, prior_risk_score, prior_reason_codes, expires_at, created_at, closed_at`

// CreateResubmission stores a resubmission asked for on request
// rs.RequestID, with the request's earlier decision (r) kept beside it,
// and moves the request to attempt rs.Attempt. It sets rs.ID and
// rs.CreatedAt.
func (tx *Tx) CreateResubmission(r *kyc.KYCRequest, rs *kyc.Resubmission) error {
	rs.ID, rs.CreatedAt, rs.RequestID = "rsb_"+NewULID(tx.now), tx.now, r.ID
	var codes any
	if len(rs.PriorReasonCodes) > 0 {
		b, err := json.Marshal(rs.PriorReasonCodes)
		if err != nil {
			return fmt.Errorf("encode reason codes: %w", err)
		}
		codes = string(b)
	}
	var actorID any
	if rs.By.ID != "" {
		actorID = rs.By.ID
	}
	_, err := tx.exec(`INSERT INTO kyc_resubmissions (`+resubmissionColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
		rs.ID, rs.RequestID, rs.Attempt, string(rs.Step), rs.Message, string(rs.State), string(rs.By.Type), actorID,
		rs.PriorAutomationDecision, rs.PriorDecisionReason, rs.PriorRiskScore, codes, kyc.FormatTime(rs.ExpiresAt), kyc.FormatTime(tx.now))
	if err != nil {
		return fmt.Errorf("insert resubmission: %w", err)
	}
	return nil
}

// CloseResubmission ends an open resubmission: submitted or expired.
func (tx *Tx) CloseResubmission(rs *kyc.Resubmission, state kyc.ResubmissionState) error {
	now := tx.now
	res, err := tx.exec(`UPDATE kyc_resubmissions SET state = ?, closed_at = ? WHERE id = ? AND state = 'open'`,
		string(state), kyc.FormatTime(now), rs.ID)
	if err != nil {
		return fmt.Errorf("close resubmission: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return kyc.Errorf(kyc.EConflict, "The resubmission %s is no longer open.", rs.ID)
	}
	rs.State, rs.ClosedAt = state, &now
	return nil
}

// FindResubmissions returns every resubmission of a request, oldest
// first. The caller has found the request in its organization and
// environment.
func (s *Store) FindResubmissions(ctx context.Context, requestID string) ([]kyc.Resubmission, error) {
	return findResubmissions(ctx, readPool{s.readStmts}, requestID)
}

// FindResubmissions is Store.FindResubmissions inside the write
// transaction.
func (tx *Tx) FindResubmissions(requestID string) ([]kyc.Resubmission, error) {
	return findResubmissions(context.Background(), tx.q, requestID)
}

func findResubmissions(ctx context.Context, q queryer, requestID string) ([]kyc.Resubmission, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+resubmissionColumns+` FROM kyc_resubmissions WHERE request_id = ? ORDER BY attempt`, requestID)
	if err != nil {
		return nil, fmt.Errorf("find resubmissions: %w", err)
	}
	defer rows.Close()
	out := []kyc.Resubmission{}
	for rows.Next() {
		var rs kyc.Resubmission
		var step, state, actorType, expires, created string
		var actorID, auto, reason, codes, closed sql.NullString
		var risk sql.NullFloat64
		if err := rows.Scan(&rs.ID, &rs.RequestID, &rs.Attempt, &step, &rs.Message, &state, &actorType, &actorID, &auto,
			&reason, &risk, &codes, &expires, &created, &closed); err != nil {
			return nil, fmt.Errorf("scan resubmission: %w", err)
		}
		rs.Step, rs.State = kyc.ResubmissionStep(step), kyc.ResubmissionState(state)
		rs.By = kyc.Principal{Type: kyc.ActorType(actorType), ID: actorID.String}
		rs.PriorAutomationDecision, rs.PriorDecisionReason = ptrString(auto), ptrString(reason)
		if risk.Valid {
			rs.PriorRiskScore = &risk.Float64
		}
		if codes.Valid {
			if err := json.Unmarshal([]byte(codes.String), &rs.PriorReasonCodes); err != nil {
				return nil, fmt.Errorf("decode reason codes: %w", err)
			}
		}
		rs.ExpiresAt, rs.CreatedAt, rs.ClosedAt = parseTime(expires), parseTime(created), parseTimePtr(closed)
		out = append(out, rs)
	}
	return out, rows.Err()
}

// ReasonCodesOf are the codes of a processing result's reasons, for the
// record of an earlier attempt.
func ReasonCodesOf(pr map[string]any) []string {
	s, _ := reasonCodes(pr).(string)
	if s == "" {
		return nil
	}
	return strings.Fields(s)
}

// OverdueCandidates returns up to limit requests of env awaiting review
// since before cutoff (now minus the SLA) whose overdue event has not
// fired: the same rule CountOverdue counts by, less those announced.
func (tx *Tx) OverdueCandidates(orgID string, env kyc.Environment, cutoff time.Time, limit int) ([]*kyc.KYCRequest, error) {
	rows, err := tx.q.QueryContext(context.Background(), `SELECT `+kycColumns+kycFrom+`WHERE r.organization_id = ? AND r.environment = ?
		AND r.status = 'awaiting_review' AND r.overdue_at IS NULL AND r.submitted_at < ? ORDER BY r.submitted_at, r.id LIMIT ?`,
		orgID, string(env), kyc.FormatTime(cutoff), limit)
	if err != nil {
		return nil, fmt.Errorf("find overdue requests: %w", err)
	}
	defer rows.Close()
	var out []*kyc.KYCRequest
	for rows.Next() {
		r, err := scanKYC(rows, tx.keys)
		if err != nil {
			return nil, fmt.Errorf("scan kyc request: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
