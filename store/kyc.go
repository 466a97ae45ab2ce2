package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
)

const kycColumns = `r.id, r.public_id, r.organization_id, r.environment, r.applicant_id, a.public_id, r.status, r.decision,
	r.decision_reason, r.risk_score, r.workflow_type, r.callback_url, r.redirect_url, r.external_ref, r.metadata,
	r.portal_expires_at, r.automation_decision, r.automation_confidence, r.processing_result, r.screenings, r.reviewer_note,
	r.submitted_at, r.decided_at, r.created_at, r.updated_at, r.document_data, r.pending_review, r.review_reason_code,
	r.document_key_id, r.locale, r.portal_opened_at, r.portal_token_sealed, r.portal_token_key_id, r.attempt, r.overdue_at, r.review_reason_codes`

const kycFrom = ` FROM kyc_requests r JOIN applicants a ON a.id = r.applicant_id `

// CreateKYCRequest inserts a new request. The caller fills the input
// fields, status, portal expiry and r.PortalToken, the link's token, which
// is stored as tokenHash (its lookup key) and sealed under the data key
// (so GET can show the link while it can be used); ids and times are set
// here.
func (tx *Tx) CreateKYCRequest(r *kyc.KYCRequest, tokenHash []byte) error {
	r.ID, r.PublicID = "kyc_"+NewULID(tx.now), NewPublicID("kyc_")
	r.CreatedAt, r.UpdatedAt = tx.now, tx.now
	meta, err := json.Marshal(orEmptyMap(r.Metadata))
	if err != nil {
		return fmt.Errorf("encode metadata: %w", err)
	}
	keyID, sealed, err := tx.keys.seal([]byte(r.PortalToken), portalTokenAAD(r.ID))
	if err != nil {
		return fmt.Errorf("seal portal token: %w", err)
	}
	_, err = tx.exec(`INSERT INTO kyc_requests (id, public_id, organization_id, environment, applicant_id, status, decision,
		workflow_type, callback_url, redirect_url, external_ref, metadata, portal_token_hash, portal_token_sealed, portal_token_key_id,
		portal_expires_at, created_at, updated_at, locale)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.PublicID, r.OrganizationID, string(r.Environment), r.ApplicantID, string(r.Status), string(r.Decision),
		string(r.WorkflowType), r.CallbackURL, r.RedirectURL, r.ExternalRef, string(meta), tokenHash, sealed, keyID,
		kyc.FormatTime(r.PortalExpiresAt), kyc.FormatTime(tx.now), kyc.FormatTime(tx.now), r.Locale)
	if err != nil {
		return fmt.Errorf("insert kyc request: %w", err)
	}
	return nil
}

// SaveKYCRequest writes a request's mutable fields.
func (tx *Tx) SaveKYCRequest(r *kyc.KYCRequest) error {
	r.UpdatedAt = tx.now
	var result any
	if r.ProcessingResult != nil {
		b, err := json.Marshal(r.ProcessingResult)
		if err != nil {
			return fmt.Errorf("encode processing result: %w", err)
		}
		result = string(b)
	}
	var screenings any
	if r.Screenings != nil {
		b, err := json.Marshal(r.Screenings)
		if err != nil {
			return fmt.Errorf("encode screenings: %w", err)
		}
		screenings = string(b)
	}
	// Document details are sealed (AAD = the request id) and the number is
	// kept only as a keyed HMAC, which the duplicate check compares.
	var docData, docNumber, docKey any
	if r.DocumentData != nil {
		b, err := json.Marshal(r.DocumentData)
		if err != nil {
			return fmt.Errorf("encode document data: %w", err)
		}
		if docKey, docData, docNumber, err = tx.sealDocument(r.ID, r.ApplicantID, r.OrganizationID, b,
			kyc.NormalizeDocumentNumber(r.DocumentData.DocumentNumber)); err != nil {
			return fmt.Errorf("save kyc request: %w", err)
		}
	}
	pending, err := jsonOrNil(r.PendingReview)
	if err != nil {
		return err
	}
	// Once the link can no longer be used (submitted, cancelled, expired),
	// its sealed token has no purpose left and is dropped; the hash stays,
	// so the portal still tells the applicant what became of the link.
	keepToken := linkUsable(r.Status)
	engineCodes := reasonCodes(r.ProcessingResult)
	reviewCodes := reviewCodesOf(r)
	if err := tx.syncRequestReasons(r, engineCodes, reviewCodes); err != nil {
		return err
	}
	if len(r.ReviewReasonCodes) > 0 {
		r.ReviewReasonCode = &r.ReviewReasonCodes[0]
	}
	_, err = tx.exec(`UPDATE kyc_requests SET review_reason_codes = ?, reason_codes = ?, document_data = ?, document_number = ?, document_key_id = ?, pending_review = ?, review_reason_code = ?,
		status = ?, decision = ?, decision_reason = ?, risk_score = ?,
		portal_expires_at = ?, automation_decision = ?, automation_confidence = ?, processing_result = ?, screenings = ?, reviewer_note = ?,
		submitted_at = ?, decided_at = ?, portal_opened_at = ?, attempt = ?, overdue_at = ?,
		portal_token_sealed = CASE WHEN ? = 1 THEN portal_token_sealed END, portal_token_key_id = CASE WHEN ? = 1 THEN portal_token_key_id END,
		updated_at = ? WHERE id = ?`,
		reviewCodes, engineCodes, docData, docNumber, docKey, pending, r.ReviewReasonCode, string(r.Status), string(r.Decision), r.DecisionReason, r.RiskScore, kyc.FormatTime(r.PortalExpiresAt),
		r.AutomationDecision, r.AutomationConfidence, result, screenings, r.ReviewerNote, timeOrNil(r.SubmittedAt),
		timeOrNil(r.DecidedAt), timeOrNil(r.PortalOpenedAt), max(r.Attempt, 1), timeOrNil(r.OverdueAt), keepToken, keepToken, kyc.FormatTime(tx.now), r.ID)
	if err != nil {
		return fmt.Errorf("save kyc request: %w", err)
	}
	return nil
}

// SetPortalToken replaces the link's token with r.PortalToken, stored as
// tokenHash and sealed as at creation (resend-link).
func (tx *Tx) SetPortalToken(r *kyc.KYCRequest, tokenHash []byte) error {
	keyID, sealed, err := tx.keys.seal([]byte(r.PortalToken), portalTokenAAD(r.ID))
	if err != nil {
		return fmt.Errorf("seal portal token: %w", err)
	}
	if _, err := tx.exec(`UPDATE kyc_requests SET portal_token_hash = ?, portal_token_sealed = ?, portal_token_key_id = ? WHERE id = ?`,
		tokenHash, sealed, keyID, r.ID); err != nil {
		return fmt.Errorf("set portal token: %w", err)
	}
	return nil
}

// portalTokenAAD binds a sealed token to its request, and keeps it apart
// from the request's sealed document details (whose AAD is the bare id).
func portalTokenAAD(requestID string) string { return "kyc portal token " + requestID }

// FindKYCRequest looks a request up by internal or public id: NOT_FOUND
// outside the organization, wrong_environment in its other environment.
func (s *Store) FindKYCRequest(ctx context.Context, orgID string, env kyc.Environment, idParam string) (*kyc.KYCRequest, error) {
	return findKYCRequest(ctx, readPool{s.readStmts}, s.keys, orgID, env, idParam)
}

// FindKYCRequest is Store.FindKYCRequest inside the write transaction.
func (tx *Tx) FindKYCRequest(orgID string, env kyc.Environment, idParam string) (*kyc.KYCRequest, error) {
	return findKYCRequest(context.Background(), tx.q, tx.keys, orgID, env, idParam)
}

func findKYCRequest(ctx context.Context, q queryer, keys *keyring, orgID string, env kyc.Environment, idParam string) (*kyc.KYCRequest, error) {
	col, id, err := idColumn("kyc_", idParam, "KYC request")
	if err != nil {
		return nil, err
	}
	r, err := scanKYC(q.QueryRowContext(ctx, `SELECT `+kycColumns+kycFrom+`WHERE r.`+col+` = ? AND r.organization_id = ?`, id, orgID), keys)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "KYC request %s not found.", idParam)
	}
	if err != nil {
		return nil, fmt.Errorf("find kyc request: %w", err)
	}
	if r.Environment != env {
		return nil, wrongEnvironment("KYC request", idParam, r.Environment, env)
	}
	return r, nil
}

// FindKYCRequestByID loads a request by internal id, for jobs.
func (tx *Tx) FindKYCRequestByID(id string) (*kyc.KYCRequest, error) {
	r, err := scanKYC(tx.q.QueryRowContext(context.Background(), `SELECT `+kycColumns+kycFrom+`WHERE r.id = ?`, id), tx.keys)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "KYC request %s not found.", id)
	}
	if err != nil {
		return nil, fmt.Errorf("find kyc request: %w", err)
	}
	return r, nil
}

// FindKYCRequestByToken finds the request whose portal link has this
// token hash; the token is the applicant's only credential.
func (tx *Tx) FindKYCRequestByToken(tokenHash []byte) (*kyc.KYCRequest, error) {
	return findByToken(context.Background(), tx.q, tx.keys, tokenHash)
}

// FindKYCRequestByToken is the read-only form, for portal pages.
func (s *Store) FindKYCRequestByToken(ctx context.Context, tokenHash []byte) (*kyc.KYCRequest, error) {
	return findByToken(ctx, readPool{s.readStmts}, s.keys, tokenHash)
}

func findByToken(ctx context.Context, q queryer, keys *keyring, tokenHash []byte) (*kyc.KYCRequest, error) {
	r, err := scanKYC(q.QueryRowContext(ctx, `SELECT `+kycColumns+kycFrom+`WHERE r.portal_token_hash = ?`, tokenHash), keys)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "This link is not valid.")
	}
	if err != nil {
		return nil, fmt.Errorf("find kyc request by token: %w", err)
	}
	return r, nil
}

// FindKYCRequests returns one page of requests, newest first, and the total.
func (s *Store) FindKYCRequests(ctx context.Context, orgID string, env kyc.Environment, status kyc.KYCStatus, page, size int) ([]*kyc.KYCRequest, int, error) {
	return s.FindKYCRequestsBy(ctx, orgID, env, KYCListFilter{Status: status}, page, size)
}

// KYCListFilter selects the API's list of requests; zero fields do not
// filter.
type KYCListFilter struct {
	Status     kyc.KYCStatus
	Tag        string // a tag the request has
	ReasonCode string // a code the engine or the decision gave
}

// FindKYCRequestsBy returns one page of the requests f selects, newest
// first, and the total.
func (s *Store) FindKYCRequestsBy(ctx context.Context, orgID string, env kyc.Environment, f KYCListFilter, page, size int) ([]*kyc.KYCRequest, int, error) {
	where := `r.organization_id = ? AND r.environment = ?`
	args := []any{orgID, string(env)}
	if f.Status != "" {
		where += ` AND r.status = ?`
		args = append(args, string(f.Status))
	}
	if f.Tag != "" {
		where += ` AND ` + tagFilter
		args = append(args, orgID, string(env), f.Tag)
	}
	if f.ReasonCode != "" {
		where += ` AND r.id IN (SELECT x.request_id FROM kyc_request_reasons x WHERE x.organization_id = ? AND x.environment = ? AND x.code = ?)`
		args = append(args, orgID, string(env), f.ReasonCode)
	}
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM kyc_requests r WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count kyc requests: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+kycColumns+kycFrom+`WHERE `+where+` ORDER BY r.id DESC LIMIT ? OFFSET ?`,
		append(args, size, (page-1)*size)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find kyc requests: %w", err)
	}
	defer rows.Close()
	list := make([]*kyc.KYCRequest, 0, size)
	for rows.Next() {
		r, err := scanKYC(rows, s.keys)
		if err != nil {
			return nil, 0, fmt.Errorf("scan kyc request: %w", err)
		}
		list = append(list, r)
	}
	return list, total, rows.Err()
}

// scanKYC scans kycColumns, decrypting the document details with keys.
func scanKYC(row scanner, keys *keyring) (*kyc.KYCRequest, error) {
	var r kyc.KYCRequest
	var env, status, decision, workflow, meta, expires, created, updated string
	var reason, callback, redirect, ref, autoDecision, result, screenings, note, submitted, decided, docData, pending, reasonCode, loc sql.NullString
	var risk, confidence sql.NullFloat64
	var docKey, tokenKey sql.NullInt64
	var opened, overdue, reviewCodes sql.NullString
	var tokenSealed []byte
	if err := row.Scan(&r.ID, &r.PublicID, &r.OrganizationID, &env, &r.ApplicantID, &r.ApplicantPublicID, &status, &decision,
		&reason, &risk, &workflow, &callback, &redirect, &ref, &meta, &expires, &autoDecision, &confidence, &result, &screenings, &note,
		&submitted, &decided, &created, &updated, &docData, &pending, &reasonCode, &docKey, &loc, &opened, &tokenSealed, &tokenKey, &r.Attempt, &overdue, &reviewCodes); err != nil {
		return nil, err
	}
	r.ReviewReasonCodes = strings.Fields(reviewCodes.String)
	if len(r.ReviewReasonCodes) == 0 && reasonCode.Valid && reasonCode.String != "" {
		r.ReviewReasonCodes = []string{reasonCode.String}
	}
	r.Environment, r.Status, r.Decision, r.WorkflowType = kyc.Environment(env), kyc.KYCStatus(status), kyc.KYCDecision(decision), kyc.WorkflowType(workflow)
	r.DecisionReason, r.CallbackURL, r.RedirectURL, r.ExternalRef = ptrString(reason), ptrString(callback), ptrString(redirect), ptrString(ref)
	r.AutomationDecision, r.ReviewerNote, r.ReviewReasonCode = ptrString(autoDecision), ptrString(note), ptrString(reasonCode)
	r.Locale = ptrString(loc)
	if risk.Valid {
		r.RiskScore = &risk.Float64
	}
	if confidence.Valid {
		r.AutomationConfidence = &confidence.Float64
	}
	d := json.NewDecoder(strings.NewReader(meta))
	d.UseNumber()
	if err := d.Decode(&r.Metadata); err != nil {
		return nil, fmt.Errorf("decode metadata: %w", err)
	}
	if result.Valid {
		if err := json.Unmarshal([]byte(result.String), &r.ProcessingResult); err != nil {
			return nil, fmt.Errorf("decode processing result: %w", err)
		}
	}
	if docData.Valid {
		doc := []byte(docData.String)
		if docKey.Valid { // NULL: stored before encryption at rest
			var err error
			if doc, err = keys.openDocument(r.ID, docKey.Int64, docData.String); err != nil {
				return nil, fmt.Errorf("decrypt document data: %w", err)
			}
		}
		if err := json.Unmarshal(doc, &r.DocumentData); err != nil {
			return nil, fmt.Errorf("decode document data: %w", err)
		}
	}
	if pending.Valid {
		if err := json.Unmarshal([]byte(pending.String), &r.PendingReview); err != nil {
			return nil, fmt.Errorf("decode pending review: %w", err)
		}
	}
	if screenings.Valid {
		if err := json.Unmarshal([]byte(screenings.String), &r.Screenings); err != nil {
			return nil, fmt.Errorf("decode screenings: %w", err)
		}
		kyc.AssignMatchIDs(r.Screenings)
	}
	r.PortalExpiresAt, r.CreatedAt, r.UpdatedAt = parseTime(expires), parseTime(created), parseTime(updated)
	r.SubmittedAt, r.DecidedAt, r.PortalOpenedAt = parseTimePtr(submitted), parseTimePtr(decided), parseTimePtr(opened)
	r.OverdueAt = parseTimePtr(overdue)
	// NULL: created before the token was kept sealed, or the link can no
	// longer be used. The status test spares the decryption for requests
	// whose link is gone.
	if tokenKey.Valid && linkUsable(r.Status) {
		token, err := keys.open(tokenKey.Int64, tokenSealed, portalTokenAAD(r.ID))
		if err != nil {
			return nil, fmt.Errorf("decrypt portal token: %w", err)
		}
		r.PortalToken = string(token)
	}
	return &r, nil
}

// linkUsable reports whether a request in status s has a portal link the
// applicant can still use: the first one, or a resubmission's.
func linkUsable(s kyc.KYCStatus) bool {
	return s == kyc.KYCLinkGenerated || s == kyc.KYCResubmissionRequested
}

func parseTimePtr(s sql.NullString) *time.Time {
	if !s.Valid {
		return nil
	}
	t := parseTime(s.String)
	return &t
}

func orEmptyMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// AppendKYCEvent adds a timeline entry.
func (tx *Tx) AppendKYCEvent(requestID string, ev *kyc.KYCEvent) error {
	ev.ID, ev.CreatedAt = "kte_"+NewULID(tx.now), tx.now
	var from any
	if ev.FromStatus != nil {
		from = string(*ev.FromStatus)
	}
	_, err := tx.exec(`INSERT INTO kyc_events (id, request_id, type, from_status, to_status, decision, actor_type, actor_id, reason, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, ev.ID, requestID, ev.Type, from, string(ev.ToStatus), string(ev.Decision),
		string(ev.ActorType), ev.ActorID, ev.Reason, kyc.FormatTime(tx.now))
	if err != nil {
		return fmt.Errorf("append kyc event: %w", err)
	}
	// A final decision records who made it on the row, for the list of
	// all verifications (decided by engine or person).
	if ev.ToStatus == kyc.KYCApproved || ev.ToStatus == kyc.KYCRejected {
		by := "api"
		switch ev.ActorType {
		case kyc.ActorSystem:
			by = "engine"
		case kyc.ActorReviewer:
			by = "person"
		}
		if _, err := tx.exec(`UPDATE kyc_requests SET decided_by = ? WHERE id = ?`, by, requestID); err != nil {
			return fmt.Errorf("record who decided: %w", err)
		}
		// And count it for the dashboard, with which person and how long
		// it took from submission.
		reviewer := ""
		if by == "person" && ev.ActorID != nil && strings.HasPrefix(*ev.ActorID, "usr_") { // not a name given through the API
			reviewer = *ev.ActorID
		}
		if err := tx.countDecision(requestID, string(ev.ToStatus), by, reviewer); err != nil {
			return err
		}
	}
	return nil
}

// FindKYCEvents returns a request's timeline, oldest first.
func (s *Store) FindKYCEvents(ctx context.Context, requestID string) ([]kyc.KYCEvent, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT id, type, from_status, to_status, decision, actor_type, actor_id, reason, created_at
		FROM kyc_events WHERE request_id = ? ORDER BY id`, requestID)
	if err != nil {
		return nil, fmt.Errorf("find kyc events: %w", err)
	}
	defer rows.Close()
	out := []kyc.KYCEvent{}
	for rows.Next() {
		var ev kyc.KYCEvent
		var from, actorID, reason sql.NullString
		var to, decision, actor, created string
		if err := rows.Scan(&ev.ID, &ev.Type, &from, &to, &decision, &actor, &actorID, &reason, &created); err != nil {
			return nil, fmt.Errorf("scan kyc event: %w", err)
		}
		if from.Valid {
			f := kyc.KYCStatus(from.String)
			ev.FromStatus = &f
		}
		ev.ToStatus, ev.Decision, ev.ActorType = kyc.KYCStatus(to), kyc.KYCDecision(decision), kyc.ActorType(actor)
		ev.ActorID, ev.Reason, ev.CreatedAt = ptrString(actorID), ptrString(reason), parseTime(created)
		out = append(out, ev)
	}
	return out, rows.Err()
}

// jsonOrNil encodes v, or gives NULL for a nil pointer.
func jsonOrNil[T any](v *T) (any, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return string(b), nil
}

// reasonCodes are the codes of a processing result's reasons, space-
// separated (NULL without reasons), for the review queue.
func reasonCodes(pr map[string]any) any {
	var codes []string
	add := func(code any) {
		if c, ok := code.(string); ok && c != "" && !strings.ContainsAny(c, " \t") {
			codes = append(codes, c)
		}
	}
	switch rs := pr["reasons"].(type) {
	case []any:
		for _, x := range rs {
			if m, ok := x.(map[string]any); ok {
				add(m["code"])
			}
		}
	default:
		// The engine's own []decision.Reason, before a JSON round trip.
		b, err := json.Marshal(rs)
		if err != nil {
			return nil
		}
		var list []struct{ Code string }
		if json.Unmarshal(b, &list) == nil {
			for _, r := range list {
				add(r.Code)
			}
		}
	}
	if len(codes) == 0 {
		return nil
	}
	return strings.Join(codes, " ")
}
