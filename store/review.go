package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
)

// Claim is a reviewer's hold on a case.
type Claim struct {
	RequestID string
	UserID    string
	UserName  string
	ClaimedAt time.Time
	ExpiresAt time.Time
}

// FindClaim returns the claim on a request that has not expired at the
// transaction's time, or nil.
func (tx *Tx) FindClaim(requestID string) (*Claim, error) {
	return findClaim(context.Background(), tx.q, requestID, tx.now)
}

// FindClaim is the read-only form, for pages; now decides expiry.
func (s *Store) FindClaim(ctx context.Context, requestID string, now time.Time) (*Claim, error) {
	return findClaim(ctx, readPool{s.readStmts}, requestID, now)
}

func findClaim(ctx context.Context, q queryer, requestID string, now time.Time) (*Claim, error) {
	var c Claim
	var claimed, expires string
	err := q.QueryRowContext(ctx, `SELECT c.request_id, c.user_id, u.name, c.claimed_at, c.expires_at FROM case_claims c
		JOIN users u ON u.id = c.user_id WHERE c.request_id = ? AND c.expires_at > ?`, requestID, kyc.FormatTime(now)).
		Scan(&c.RequestID, &c.UserID, &c.UserName, &claimed, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find claim: %w", err)
	}
	c.ClaimedAt, c.ExpiresAt = parseTime(claimed), parseTime(expires)
	return &c, nil
}

// SetClaim gives the request to userID until now+ttl, replacing any
// earlier claim (the caller has checked it may).
func (tx *Tx) SetClaim(requestID, userID string, ttl time.Duration) (*Claim, error) {
	c := &Claim{RequestID: requestID, UserID: userID, ClaimedAt: tx.now, ExpiresAt: tx.now.Add(ttl)}
	_, err := tx.exec(`INSERT INTO case_claims (request_id, user_id, claimed_at, expires_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (request_id) DO UPDATE SET user_id = excluded.user_id, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at`,
		requestID, userID, kyc.FormatTime(c.ClaimedAt), kyc.FormatTime(c.ExpiresAt))
	if err != nil {
		return nil, fmt.Errorf("set claim: %w", err)
	}
	return c, nil
}

// DeleteClaim ends any claim on a request.
func (tx *Tx) DeleteClaim(requestID string) error {
	if _, err := tx.exec(`DELETE FROM case_claims WHERE request_id = ?`, requestID); err != nil {
		return fmt.Errorf("delete claim: %w", err)
	}
	return nil
}

// QueueFilter selects the review queue.
type QueueFilter struct {
	Claim      string // "", "unclaimed", "mine", "others"
	UserID     string // for mine and others
	Reason     string // a reason code the engine gave, e.g. FACE_MISMATCH
	SecondEyes bool   // only requests whose first four-eyes decision waits for a second reviewer
	Tag        string // a tag the case has
	Assignee   string // "", "me" (UserID), "none", or a user id
	// OverdueBefore, when set, keeps only requests submitted before it
	// (now minus the SLA: the overdue ones).
	OverdueBefore time.Time
	// Escalated: the senior queue (escalated requests only); otherwise
	// the ordinary queue, which leaves them out.
	Escalated  bool
	Page, Size int
}

// QueueItem is one row of the review queue.
type QueueItem struct {
	ID, PublicID        string
	ApplicantID         string
	FirstName, LastName string
	SubmittedAt         *time.Time
	CreatedAt           time.Time
	RiskScore           *float64
	DecisionReason      *string
	Reasons             []string // reason codes, most severe first
	PendingReview       bool     // a first four-eyes decision waits
	Claim               *Claim
	AssigneeID          string
	AssigneeName        string
}

// FindReviewQueue returns one page of the requests awaiting review,
// oldest submission first, and how many match the filter. now decides
// which claims have expired.
func (s *Store) FindReviewQueue(ctx context.Context, orgID string, env kyc.Environment, f QueueFilter, now time.Time) ([]QueueItem, int, error) {
	where := []string{`r.organization_id = ?`, `r.environment = ?`, `r.status = 'awaiting_review'`, `r.escalated_at IS NULL`}
	if f.Escalated {
		where[3] = `r.escalated_at IS NOT NULL`
	}
	args := []any{orgID, string(env)}
	nowS := kyc.FormatTime(now)
	switch f.Claim {
	case "unclaimed":
		where = append(where, `NOT EXISTS (SELECT 1 FROM case_claims c WHERE c.request_id = r.id AND c.expires_at > ?)`)
		args = append(args, nowS)
	case "mine":
		where = append(where, `EXISTS (SELECT 1 FROM case_claims c WHERE c.request_id = r.id AND c.expires_at > ? AND c.user_id = ?)`)
		args = append(args, nowS, f.UserID)
	case "others":
		where = append(where, `EXISTS (SELECT 1 FROM case_claims c WHERE c.request_id = r.id AND c.expires_at > ? AND c.user_id != ?)`)
		args = append(args, nowS, f.UserID)
	}
	if f.Reason != "" {
		where = append(where, s.eng.strContains(`' ' || r.reason_codes || ' '`))
		args = append(args, " "+f.Reason+" ")
	}
	if f.Tag != "" {
		where = append(where, tagFilter)
		args = append(args, orgID, string(env), f.Tag)
	}
	if f.SecondEyes {
		where = append(where, `r.pending_review IS NOT NULL`)
	}
	switch f.Assignee {
	case "":
	case "none":
		where = append(where, `r.assignee_id IS NULL`)
	case "me":
		where, args = append(where, `r.assignee_id = ?`), append(args, f.UserID)
	default:
		where, args = append(where, `r.assignee_id = ?`), append(args, f.Assignee)
	}
	if !f.OverdueBefore.IsZero() {
		where, args = append(where, `r.submitted_at < ?`), append(args, kyc.FormatTime(f.OverdueBefore))
	}
	w := strings.Join(where, " AND ")
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM kyc_requests r WHERE `+w, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count queue: %w", err)
	}
	// The page's ids come from the queue index alone (it holds every
	// column the filters need); only those rows are then read and joined,
	// so a deep page does not join every row it skips.
	rows, err := s.reader.QueryContext(ctx, `SELECT r.id, r.public_id, r.applicant_id, a.first_name, a.last_name, r.submitted_at, r.created_at,
		r.risk_score, r.decision_reason, r.pending_review IS NOT NULL, r.reason_codes, c.user_id, u.name, c.claimed_at, c.expires_at, r.assignee_id, au.name
		FROM (SELECT r.id FROM kyc_requests r WHERE `+w+` ORDER BY r.submitted_at, r.id LIMIT ? OFFSET ?) page
		JOIN kyc_requests r ON r.id = page.id JOIN applicants a ON a.id = r.applicant_id
		LEFT JOIN case_claims c ON c.request_id = r.id AND c.expires_at > ?
		LEFT JOIN users u ON u.id = c.user_id
		LEFT JOIN users au ON au.id = r.assignee_id
		ORDER BY r.submitted_at, r.id`, append(append(args, f.Size, (f.Page-1)*f.Size), nowS)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find queue: %w", err)
	}
	defer rows.Close()
	out := make([]QueueItem, 0, f.Size)
	for rows.Next() {
		var it QueueItem
		var submitted, reason, codes, claimUser, claimName, claimed, expires, assignee, assigneeName sql.NullString
		var risk sql.NullFloat64
		var created string
		if err := rows.Scan(&it.ID, &it.PublicID, &it.ApplicantID, &it.FirstName, &it.LastName, &submitted, &created, &risk, &reason,
			&it.PendingReview, &codes, &claimUser, &claimName, &claimed, &expires, &assignee, &assigneeName); err != nil {
			return nil, 0, fmt.Errorf("scan queue: %w", err)
		}
		it.SubmittedAt, it.CreatedAt, it.DecisionReason = parseTimePtr(submitted), parseTime(created), ptrString(reason)
		it.AssigneeID, it.AssigneeName = assignee.String, assigneeName.String
		if risk.Valid {
			it.RiskScore = &risk.Float64
		}
		if codes.Valid && codes.String != "" {
			it.Reasons = strings.Fields(codes.String)
		}
		if claimUser.Valid {
			it.Claim = &Claim{RequestID: it.ID, UserID: claimUser.String, UserName: claimName.String,
				ClaimedAt: parseTime(claimed.String), ExpiresAt: parseTime(expires.String)}
		}
		out = append(out, it)
	}
	return out, total, rows.Err()
}

// CountOverdue is how many requests of env await review since before
// cutoff (now minus the SLA), in the ordinary queue or, with escalated,
// the senior queue.
func (s *Store) CountOverdue(ctx context.Context, orgID string, env kyc.Environment, cutoff time.Time, escalated bool) (int, error) {
	var n int
	queue := `escalated_at IS NULL`
	if escalated {
		queue = `escalated_at IS NOT NULL`
	}
	err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM kyc_requests WHERE organization_id = ? AND environment = ?
		AND status = 'awaiting_review' AND `+queue+` AND submitted_at < ?`, orgID, string(env), kyc.FormatTime(cutoff)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count overdue: %w", err)
	}
	return n, nil
}

// FindKYCRequestsOfApplicant returns every request of an applicant,
// newest first.
func (s *Store) FindKYCRequestsOfApplicant(ctx context.Context, orgID string, env kyc.Environment, applicantID string) ([]*kyc.KYCRequest, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+kycColumns+kycFrom+`WHERE r.organization_id = ? AND r.environment = ? AND r.applicant_id = ?
		ORDER BY r.id DESC`, orgID, string(env), applicantID)
	if err != nil {
		return nil, fmt.Errorf("find applicant's requests: %w", err)
	}
	defer rows.Close()
	var out []*kyc.KYCRequest
	for rows.Next() {
		r, err := scanKYC(rows, s.keys)
		if err != nil {
			return nil, fmt.Errorf("scan kyc request: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// SearchApplicants finds the organization's applicants in env whose name
// contains q (any case; first and last name together), whose external
// reference is q (any case), whose id or public id is q, and with
// byEmail, whose e-mail is q (any case). Callers pass byEmail only for
// someone who may see contact details: a match tells whether an address
// belongs to an applicant. Newest first; one page and the total.
func (s *Store) SearchApplicants(ctx context.Context, orgID string, env kyc.Environment, q string, byEmail bool, page, size int) ([]*kyc.Applicant, int, error) {
	q = strings.TrimSpace(q)
	like := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(q)) + "%"
	email := ""
	if byEmail {
		email = ` OR lower(email) = lower(?)`
	}
	where := `organization_id = ? AND environment = ? AND (lower(first_name || ' ' || last_name) LIKE ? ESCAPE '\'
		OR lower(last_name || ' ' || first_name) LIKE ? ESCAPE '\'` + email + ` OR lower(external_ref) = lower(?)
		OR id = ? OR public_id = lower(?))`
	args := []any{orgID, string(env), like, like}
	if byEmail {
		args = append(args, q)
	}
	args = append(args, q, q, q)
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM applicants WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count applicants: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+applicantSelect+` FROM applicants WHERE `+where+` ORDER BY id DESC LIMIT ? OFFSET ?`,
		append(args, size, (page-1)*size)...)
	if err != nil {
		return nil, 0, fmt.Errorf("search applicants: %w", err)
	}
	defer rows.Close()
	var out []*kyc.Applicant
	for rows.Next() {
		a, err := scanApplicant(rows)
		if err != nil {
			return nil, 0, fmt.Errorf("scan applicant: %w", err)
		}
		out = append(out, a)
	}
	return out, total, rows.Err()
}

// FindAMLChecksForPerson returns the organization's checks in env on the
// same first and last name (any case), and the same date of birth when
// both sides have one, newest first: the standalone checks of an
// applicant, who is not linked to them otherwise.
func (s *Store) FindAMLChecksForPerson(ctx context.Context, orgID string, env kyc.Environment, first, last string, dob *string) ([]*kyc.AMLCheck, error) {
	d := ""
	if dob != nil {
		d = *dob
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+amlColumns+` FROM aml_checks WHERE organization_id = ? AND environment = ?
		AND lower(first_name) = lower(?) AND lower(last_name) = lower(?) AND (dob IS NULL OR ? = '' OR dob = ?) ORDER BY id DESC LIMIT 100`,
		orgID, string(env), strings.TrimSpace(first), strings.TrimSpace(last), d, d)
	if err != nil {
		return nil, fmt.Errorf("find person's aml checks: %w", err)
	}
	defer rows.Close()
	var out []*kyc.AMLCheck
	for rows.Next() {
		c, err := scanAMLCheck(rows)
		if err != nil {
			return nil, fmt.Errorf("scan aml check: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// DecidedRequest is a request the engine decided, with its applicant's
// name, for a policy dry run.
type DecidedRequest struct {
	*kyc.KYCRequest
	FirstName, LastName string
}

// FindDecidedRequests returns the last limit requests of the environment
// that the automated engine decided (those with a processing result and
// an automated decision), latest submission first.
func (s *Store) FindDecidedRequests(ctx context.Context, orgID string, env kyc.Environment, limit int) ([]DecidedRequest, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+kycColumns+`, a.first_name, a.last_name`+kycFrom+`WHERE r.organization_id = ? AND r.environment = ?
		AND r.automation_decision IS NOT NULL AND r.processing_result IS NOT NULL ORDER BY r.submitted_at DESC, r.id DESC LIMIT ?`,
		orgID, string(env), limit)
	if err != nil {
		return nil, fmt.Errorf("find decided requests: %w", err)
	}
	defer rows.Close()
	var out []DecidedRequest
	for rows.Next() {
		var d DecidedRequest
		d.KYCRequest, err = scanKYC(scannerWith{row: rows, extra: []any{&d.FirstName, &d.LastName}}, s.keys)
		if err != nil {
			return nil, fmt.Errorf("scan decided request: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
