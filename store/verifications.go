package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
)

// Who decided a request (kyc_requests.decided_by).
const (
	DecidedByEngine = "engine" // the decision engine, automatically
	DecidedByPerson = "person" // a reviewer in the console
	DecidedByAPI    = "api"    // an API client
)

// Sort orders of the list of all verifications.
const (
	SortNewest  = "newest"  // created, newest first (the default)
	SortOldest  = "oldest"  // created, oldest first
	SortDecided = "decided" // decision time, latest first; decided requests only
	SortRisk    = "risk"    // risk score, highest first; scored requests only
)

// VerificationFilter selects the list of all verifications. Zero fields
// do not filter.
type VerificationFilter struct {
	Status      kyc.KYCStatus
	Decision    kyc.KYCDecision
	Reason      string   // a reason code the engine or the decision gave
	Tag         string   // a tag the case has
	RiskMin     *float64 // risk score at least (0-100)
	RiskMax     *float64 // risk score at most
	Assignee    string   // a user id, or "none" for unassigned
	DecidedBy   string   // DecidedByEngine, DecidedByPerson or DecidedByAPI
	CreatedFrom time.Time
	CreatedTo   time.Time // exclusive
	DecidedFrom time.Time
	DecidedTo   time.Time // exclusive
	Sort        string
	Page, Size  int
	// After, with the newest or oldest order, starts after this request
	// id instead of at an offset (keyset paging, for the export: rows
	// created meanwhile do not shift it).
	After string
}

// tagFilter selects the requests with a tag (arguments: organization,
// environment, tag); the tag table's primary key serves it.
const tagFilter = `r.id IN (SELECT t.subject_id FROM case_tags t WHERE t.organization_id = ? AND t.environment = ? AND t.subject_type = 'kyc_request' AND t.tag = ?)`

// VerificationItem is one row of the list of all verifications.
type VerificationItem struct {
	ID, PublicID        string
	ApplicantID         string
	FirstName, LastName string
	Email, Phone        string // contact details: callers show them only to roles that may see them
	ExternalRef         string // the request's
	ApplicantRef        string // the applicant's external reference
	Status              kyc.KYCStatus
	Decision            kyc.KYCDecision
	DecisionReason      string
	Reasons             []string // the engine's reason codes
	ReviewReasonCodes   []string // the reviewer's decision's, main code first
	Tags                []string // alphabetical
	RiskScore           *float64
	AssigneeID          string
	AssigneeName        string
	DecidedBy           string
	CreatedAt           time.Time
	SubmittedAt         *time.Time
	DecidedAt           *time.Time
}

// ListVerifications returns one page of the environment's KYC requests
// and how many match (-1 with keyset paging, which does not count). Paging is by offset over the indexes the sort
// orders use (organization_id, environment, then id, decided_at or
// risk_score): the page's ids come from the index first, and only those
// rows are joined.
func (s *Store) ListVerifications(ctx context.Context, orgID string, env kyc.Environment, f VerificationFilter) ([]VerificationItem, int, error) {
	where := []string{`r.organization_id = ?`, `r.environment = ?`}
	args := []any{orgID, string(env)}
	add := func(cond string, v ...any) { where, args = append(where, cond), append(args, v...) }
	if f.Status != "" {
		add(`r.status = ?`, string(f.Status))
	}
	if f.Decision != "" {
		add(`r.decision = ?`, string(f.Decision))
	}
	// A reason code (the engine's or the decision's) and a tag are read
	// from their own tables. A code is probed per row when an equality
	// filter on the row narrows it first (a code can be on a sixth of all
	// requests), else read as the list of the code's requests.
	narrowed := f.Status != "" || f.Decision != "" || f.Assignee != "" || f.DecidedBy != ""
	if f.Reason != "" {
		if narrowed || f.Tag != "" {
			add(`EXISTS (SELECT 1 FROM kyc_request_reasons x WHERE x.organization_id = r.organization_id AND x.environment = r.environment
				AND x.code = ? AND x.request_id = r.id)`, f.Reason)
		} else {
			add(`r.id IN (SELECT x.request_id FROM kyc_request_reasons x WHERE x.organization_id = ? AND x.environment = ? AND x.code = ?)`,
				orgID, string(env), f.Reason)
		}
	}
	if f.Tag != "" {
		// Tags are sparse: the tag's list of requests drives, whatever
		// else filters.
		add(tagFilter, orgID, string(env), f.Tag)
	}
	if f.RiskMin != nil {
		add(`r.risk_score >= ?`, *f.RiskMin)
	}
	if f.RiskMax != nil {
		add(`r.risk_score <= ?`, *f.RiskMax)
	}
	switch f.Assignee {
	case "":
	case "none":
		add(`r.assignee_id IS NULL`)
	default:
		add(`r.assignee_id = ?`, f.Assignee)
	}
	if f.DecidedBy != "" {
		add(`r.decided_by = ?`, f.DecidedBy)
	}
	// Creation time is the id's ULID prefix too, but created_at is what
	// the row says (ids are monotonic, so an id's time can be later).
	if !f.CreatedFrom.IsZero() {
		add(`r.created_at >= ?`, kyc.FormatTime(f.CreatedFrom))
	}
	if !f.CreatedTo.IsZero() {
		add(`r.created_at < ?`, kyc.FormatTime(f.CreatedTo))
	}
	if !f.DecidedFrom.IsZero() {
		add(`r.decided_at >= ?`, kyc.FormatTime(f.DecidedFrom))
	}
	if !f.DecidedTo.IsZero() {
		add(`r.decided_at < ?`, kyc.FormatTime(f.DecidedTo))
	}
	// Sorting by decision time or risk lists only the decided or scored
	// requests: the order is then an index's, read backwards (sorting
	// NULLs last would be an expression no index serves, and SQLite and
	// PostgreSQL place NULLs differently).
	order := `r.id DESC`
	byCreated := !f.CreatedFrom.IsZero() || !f.CreatedTo.IsZero()
	keyset := f.After != "" && !byCreated && (f.Sort == "" || f.Sort == SortNewest || f.Sort == SortOldest)
	switch f.Sort {
	case "", SortNewest:
		if keyset {
			add(`r.id < ?`, f.After)
		}
		if byCreated {
			// The created_at index serves the range, the count and the
			// order at once.
			order = `r.created_at DESC, r.id DESC`
		}
	case SortOldest:
		order = `r.id`
		if keyset {
			add(`r.id > ?`, f.After)
		}
		if byCreated {
			order = `r.created_at, r.id`
		}
	case SortDecided:
		add(`r.decided_at IS NOT NULL`)
		order = `r.decided_at DESC, r.id DESC`
	case SortRisk:
		add(`r.risk_score IS NOT NULL`)
		order = `r.risk_score DESC, r.id DESC`
	}
	w := strings.Join(where, " AND ")
	offset := (f.Page - 1) * f.Size
	countQ, pageQ := `SELECT count(*) FROM kyc_requests r WHERE `+w, `SELECT r.id FROM kyc_requests r WHERE `+w+` ORDER BY `+order
	if len(where) == 3 && (f.Reason != "") != (f.Tag != "") && !keyset && (f.Sort == "" || f.Sort == SortNewest || f.Sort == SortOldest) {
		// A reason code or a tag alone: its table's primary key holds the
		// count and the ids in order, without reading a request row.
		dir := " DESC"
		if f.Sort == SortOldest {
			dir = ""
		}
		from, id := `kyc_request_reasons x WHERE x.organization_id = ? AND x.environment = ? AND x.code = ?`, `x.request_id`
		args = []any{orgID, string(env), f.Reason}
		if f.Tag != "" {
			from, id = `case_tags x WHERE x.organization_id = ? AND x.environment = ? AND x.subject_type = 'kyc_request' AND x.tag = ?`, `x.subject_id`
			args = []any{orgID, string(env), f.Tag}
		}
		countQ, pageQ = `SELECT count(*) FROM `+from, `SELECT `+id+` AS id FROM `+from+` ORDER BY `+id+dir
	}
	total := -1
	if keyset {
		offset = 0 // the export pages by id and needs no count
	} else if err := s.reader.QueryRowContext(ctx, countQ, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count verifications: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT r.id, r.public_id, r.applicant_id, a.first_name, a.last_name, a.email, a.phone, r.external_ref, a.external_ref,
		r.status, r.decision, r.decision_reason, r.reason_codes, r.review_reason_codes, r.risk_score, r.assignee_id, u.name, r.decided_by,
		r.created_at, r.submitted_at, r.decided_at
		FROM (`+pageQ+` LIMIT ? OFFSET ?) page
		JOIN kyc_requests r ON r.id = page.id JOIN applicants a ON a.id = r.applicant_id
		LEFT JOIN users u ON u.id = r.assignee_id
		ORDER BY `+order, append(args, f.Size, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("list verifications: %w", err)
	}
	defer rows.Close()
	out := make([]VerificationItem, 0, f.Size)
	for rows.Next() {
		var it VerificationItem
		var email, phone, ref, appRef, reason, codes, review, assignee, assigneeName, by, submitted, decided sql.NullString
		var risk sql.NullFloat64
		var status, dec, created string
		if err := rows.Scan(&it.ID, &it.PublicID, &it.ApplicantID, &it.FirstName, &it.LastName, &email, &phone, &ref, &appRef,
			&status, &dec, &reason, &codes, &review, &risk, &assignee, &assigneeName, &by, &created, &submitted, &decided); err != nil {
			return nil, 0, fmt.Errorf("scan verification: %w", err)
		}
		it.Email, it.Phone, it.ExternalRef, it.ApplicantRef = email.String, phone.String, ref.String, appRef.String
		it.Status, it.Decision, it.DecisionReason = kyc.KYCStatus(status), kyc.KYCDecision(dec), reason.String
		if codes.Valid && codes.String != "" {
			it.Reasons = strings.Fields(codes.String)
		}
		it.ReviewReasonCodes = strings.Fields(review.String)
		if risk.Valid {
			it.RiskScore = &risk.Float64
		}
		it.AssigneeID, it.AssigneeName, it.DecidedBy = assignee.String, assigneeName.String, by.String
		it.CreatedAt, it.SubmittedAt, it.DecidedAt = parseTime(created), parseTimePtr(submitted), parseTimePtr(decided)
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("list verifications: %w", err)
	}
	return out, total, s.fillTags(ctx, orgID, env, out)
}

// fillTags reads the tags of a page of requests in one query (the
// subject index), instead of one per row.
func (s *Store) fillTags(ctx context.Context, orgID string, env kyc.Environment, items []VerificationItem) error {
	if len(items) == 0 {
		return nil
	}
	at := make(map[string]int, len(items))
	args := []any{orgID, string(env)}
	for i, it := range items {
		at[it.ID] = i
		args = append(args, it.ID)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT subject_id, tag FROM case_tags WHERE organization_id = ? AND environment = ?
		AND subject_type = 'kyc_request' AND subject_id IN (?`+strings.Repeat(", ?", len(items)-1)+`) ORDER BY subject_id, tag`, args...)
	if err != nil {
		return fmt.Errorf("list verifications' tags: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, tag string
		if err := rows.Scan(&id, &tag); err != nil {
			return fmt.Errorf("scan tag: %w", err)
		}
		if i, ok := at[id]; ok {
			items[i].Tags = append(items[i].Tags, tag)
		}
	}
	return rows.Err()
}

// Assignment is whose case a request is (distinct from a claim, the
// short lock taken while working on it).
type Assignment struct {
	UserID, UserName string
	AssignedAt       time.Time
}

// FindAssignment returns a request's assignment, or nil.
func (s *Store) FindAssignment(ctx context.Context, requestID string) (*Assignment, error) {
	var a Assignment
	var at string
	err := s.reader.QueryRowContext(ctx, `SELECT r.assignee_id, u.name, r.assigned_at FROM kyc_requests r JOIN users u ON u.id = r.assignee_id
		WHERE r.id = ?`, requestID).Scan(&a.UserID, &a.UserName, &at)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find assignment: %w", err)
	}
	a.AssignedAt = parseTime(at)
	return &a, nil
}

// SetAssignee assigns a request to userID ("" unassigns). The caller
// checks the user and writes the audit entry.
func (tx *Tx) SetAssignee(requestID, userID string) error {
	var uid, at any
	if userID != "" {
		uid, at = userID, kyc.FormatTime(tx.now)
	}
	if _, err := tx.exec(`UPDATE kyc_requests SET assignee_id = ?, assigned_at = ? WHERE id = ?`, uid, at, requestID); err != nil {
		return fmt.Errorf("set assignee: %w", err)
	}
	return nil
}

// FindAssigneeID returns the user a request is assigned to ("" for none).
func (tx *Tx) FindAssigneeID(requestID string) (string, error) {
	var id sql.NullString
	if err := tx.queryRow(`SELECT assignee_id FROM kyc_requests WHERE id = ?`, requestID).Scan(&id); err != nil {
		return "", fmt.Errorf("find assignee: %w", err)
	}
	return id.String, nil
}
