package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
)

// ErasureRequest says who asks for an erasure and why.
type ErasureRequest struct {
	OrganizationID string
	Environment    kyc.Environment
	ApplicantID    string // internal or public id
	Rule           kyc.ErasureRule
	Reason         *string
}

// ErrLegalHold: the applicant is under legal hold; nothing is erased.
var ErrLegalHold = errors.New("store: the applicant is under legal hold")

// EraseApplicant erases an applicant's personal data in one transaction:
// images, selfies, liveness frames and sessions, face descriptors,
// document details, names, contact details, metadata and free text; it
// writes the tombstone (the emptied applicant row and request rows, and
// the receipt in erasures), an audit row and the svc.applicant.erased
// event. On PostgreSQL the applicant's key is deleted in the same
// transaction; on SQLite it is deleted from the key store right after the
// commit (a crash in between leaves a key whose data is gone; the next
// erasure sweep, SweepErasedKeys, deletes it).
//
// When retention does not allow it yet, nothing is erased: the request is
// recorded (erasure_scheduled_at) and *kyc.ErasureDeferred returned. Under
// legal hold it returns ErrLegalHold. Erasing an erased applicant returns
// the receipt kept the first time.
func (s *Store) EraseApplicant(ctx context.Context, r ErasureRequest) (*kyc.ErasureReceipt, error) {
	var rec *kyc.ErasureReceipt
	var internalID string
	var deferred *kyc.ErasureDeferred
	destroy := false
	err := s.InTx(ctx, func(tx *Tx) error {
		rec, internalID, destroy, deferred = nil, "", false, nil
		a, err := tx.FindApplicant(r.OrganizationID, r.Environment, r.ApplicantID)
		if err != nil {
			return err
		}
		internalID = a.ID
		if a.ErasedAt != nil {
			rec, err = tx.findErasure(a.ID)
			return err
		}
		if a.LegalHoldReason != nil {
			return &kyc.Error{Code: kyc.EConflict, Reason: "legal_hold", Err: ErrLegalHold,
				Message: fmt.Sprintf("Applicant %s is under legal hold: nothing is erased until an admin lifts it.", r.ApplicantID)}
		}
		from, policy, err := tx.erasableFrom(a)
		if err != nil {
			return err
		}
		if from.After(tx.now) {
			if _, err := tx.exec(`UPDATE applicants SET erasure_scheduled_at = ? WHERE id = ?`, kyc.FormatTime(from), a.ID); err != nil {
				return fmt.Errorf("schedule erasure: %w", err)
			}
			reason := "erasure requested; retention keeps the data until " + kyc.FormatTime(from)
			if err := tx.auditOperatorAction(a.OrganizationID, a.Environment, "applicant", a.ID, "applicant.erasure_scheduled", reason); err != nil {
				return err
			}
			// Not an error for the transaction: the schedule must commit.
			rule := fmt.Sprintf("a decided live request is kept %d years after its decision", policy.DecidedYears)
			if a.RelationshipEnd != nil {
				rule = fmt.Sprintf("a decided live request is kept %d years after the later of its decision and the relationship end (%s)",
					policy.DecidedYears, *a.RelationshipEnd)
			}
			deferred = &kyc.ErasureDeferred{NotBefore: from, Rule: rule}
			return nil
		}
		if err := s.eng.secureDelete(tx.tx, true); err != nil {
			return err
		}
		rec, err = tx.erase(a, r)
		if e := s.eng.secureDelete(tx.tx, false); e != nil && err == nil {
			err = e
		}
		destroy = err == nil
		return err
	})
	if err != nil {
		return nil, err
	}
	if deferred != nil {
		return nil, deferred
	}
	if destroy {
		if err := s.keys.subjects.destroy(ctx, internalID); err != nil {
			return rec, fmt.Errorf("erasure committed, but the applicant key was not destroyed (SweepErasedKeys retries): %w", err)
		}
	}
	return rec, nil
}

// erase does EraseApplicant's work in its transaction.
func (tx *Tx) erase(a *kyc.Applicant, r ErasureRequest) (*kyc.ErasureReceipt, error) {
	actorType, actorID := tx.actorOrSystem()
	rec := &kyc.ErasureReceipt{ID: "era_" + NewULID(tx.now), Object: "applicant_erasure", ApplicantID: a.ID,
		ExternalRef: a.ExternalRef, Environment: a.Environment, Rule: r.Rule, ActorType: string(actorType), ActorID: actorID,
		Reason: r.Reason, ApplicantSince: kyc.FormatTime(a.CreatedAt), ErasedAt: kyc.FormatTime(tx.now), Requests: []kyc.ErasedRequest{}}
	fields, err := json.Marshal(map[string]any{"firstName": a.FirstName, "lastName": a.LastName, "email": a.Email,
		"phone": a.Phone, "dob": a.DOB, "country": a.Country, "metadata": a.Metadata})
	if err != nil {
		return nil, fmt.Errorf("erase applicant: %w", err)
	}
	rec.FieldsSHA256 = sha256Hex(fields)

	rows, err := tx.q.QueryContext(context.Background(), `SELECT id, status, decision, reason_codes, created_at, decided_at,
		document_data, document_key_id FROM kyc_requests WHERE applicant_id = ? ORDER BY id`, a.ID)
	if err != nil {
		return nil, fmt.Errorf("erase applicant: %w", err)
	}
	type docRow struct {
		data  sql.NullString
		keyID sql.NullInt64
	}
	var docs []docRow
	for rows.Next() {
		var er kyc.ErasedRequest
		var codes, decided sql.NullString
		var d docRow
		if err := rows.Scan(&er.ID, &er.Status, &er.Decision, &codes, &er.CreatedAt, &decided, &d.data, &d.keyID); err != nil {
			rows.Close()
			return nil, fmt.Errorf("erase applicant: %w", err)
		}
		er.ReasonCodes = []string{}
		// reason_codes is space-separated (SaveKYCRequest's reasonCodes,
		// for the queue's index); a JSON array is read too.
		if codes.Valid && !strings.HasPrefix(codes.String, "[") {
			er.ReasonCodes = append(er.ReasonCodes, strings.Fields(codes.String)...)
		} else if codes.Valid && codes.String != "" {
			if err := json.Unmarshal([]byte(codes.String), &er.ReasonCodes); err != nil {
				rows.Close()
				return nil, fmt.Errorf("erase applicant: reason codes of %s: %w", er.ID, err)
			}
		}
		if decided.Valid {
			er.DecidedAt = &decided.String
		}
		er.ImagesSHA256 = []string{}
		rec.Requests = append(rec.Requests, er)
		docs = append(docs, d)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("erase applicant: %w", err)
	}
	for i := range rec.Requests {
		er := &rec.Requests[i]
		if d := docs[i]; d.data.Valid {
			// The hash of the document details as sealed: proves which
			// value was erased without keeping the plaintext.
			h := sha256Hex([]byte(d.data.String))
			er.DocumentSHA256 = &h
			if !d.keyID.Valid || !isSubjectSealedText(d.data.String) {
				rec.SharedKeyRows++
			}
		}
		if err := tx.eraseRequest(er, rec); err != nil {
			return nil, err
		}
	}
	if _, err := tx.exec(`DELETE FROM face_descriptors WHERE applicant_id = ?`, a.ID); err != nil {
		return nil, fmt.Errorf("erase applicant: %w", err)
	}
	if a.Email != nil {
		// The outbox keeps the address of e-mails already sent or given up
		// (their bodies are emptied then); those to the erased address go.
		// One still queued stays, to be sent or to expire: its job expects it.
		if _, err := tx.exec(`DELETE FROM email_outbox WHERE organization_id = ? AND to_address = ?
			AND (sent_at IS NOT NULL OR expired_at IS NOT NULL)`, a.OrganizationID, *a.Email); err != nil {
			return nil, fmt.Errorf("erase applicant: e-mails: %w", err)
		}
	}
	if _, err := tx.exec(`UPDATE applicants SET first_name = '', last_name = '', email = NULL, phone = NULL, dob = NULL,
		country = NULL, metadata = '{}', status = 'archived', archived_at = coalesce(archived_at, ?2), erased_at = ?2,
		erasure_scheduled_at = NULL, updated_at = ?2 WHERE id = ?1`, a.ID, kyc.FormatTime(tx.now)); err != nil {
		return nil, fmt.Errorf("erase applicant: %w", err)
	}
	if _, pg := tx.eng.(pgEngine); pg {
		// Same transaction: the key goes with the data or not at all.
		if _, err := tx.exec(`DELETE FROM subject_keys WHERE applicant_id = ?`, a.ID); err != nil {
			return nil, fmt.Errorf("destroy applicant key: %w", err)
		}
	}
	rec.KeyDestroyed = rec.SharedKeyRows == 0
	body, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("erase applicant: %w", err)
	}
	if _, err := tx.exec(`INSERT INTO erasures (id, organization_id, environment, applicant_id, rule, actor_type, actor_id, reason,
		erased_at, receipt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, rec.ID, a.OrganizationID, string(a.Environment), a.ID,
		string(r.Rule), rec.ActorType, actorID, r.Reason, kyc.FormatTime(tx.now), string(body)); err != nil {
		return nil, fmt.Errorf("record erasure: %w", err)
	}
	if err := tx.auditOperatorAction(a.OrganizationID, a.Environment, "applicant", a.ID, "applicant.erased",
		"erasure "+rec.ID+" ("+string(r.Rule)+")"); err != nil {
		return nil, err
	}
	ev := tx.NewEvent(a.OrganizationID, a.Environment, kyc.EventApplicantErased, a.ID)
	if ev.Payload, err = json.Marshal(map[string]any{"eventId": ev.ID, "eventType": ev.Type, "resourceId": a.ID,
		"publicId": a.PublicID, "externalRef": a.ExternalRef, "erasureId": rec.ID, "rule": rec.Rule,
		"erasedAt": kyc.FormatTime(tx.now), "requestIds": requestIDs(rec), "organizationId": a.OrganizationID,
		"environment": a.Environment, "createdAt": kyc.FormatTime(ev.CreatedAt)}); err != nil {
		return nil, err
	}
	if _, err := tx.RecordEvent(ev, ""); err != nil {
		return nil, err
	}
	return rec, nil
}

// eraseRequest deletes a request's images, liveness evidence and
// personal fields, noting their hashes in the receipt.
func (tx *Tx) eraseRequest(er *kyc.ErasedRequest, rec *kyc.ErasureReceipt) error {
	rows, err := tx.q.QueryContext(context.Background(), `SELECT sha256, substr(data, 1, ?) FROM kyc_captures WHERE request_id = ? ORDER BY id`,
		len(subjectMagic), er.ID)
	if err != nil {
		return fmt.Errorf("erase request %s: %w", er.ID, err)
	}
	for rows.Next() {
		var h string
		var head []byte
		if err := rows.Scan(&h, &head); err != nil {
			rows.Close()
			return fmt.Errorf("erase request %s: %w", er.ID, err)
		}
		er.ImagesSHA256 = append(er.ImagesSHA256, h)
		if string(head) != string(subjectMagic) {
			rec.SharedKeyRows++
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("erase request %s: %w", er.ID, err)
	}
	if err := tx.queryRow(`SELECT count(*) FROM liveness_frames WHERE session_id IN (SELECT id FROM liveness_sessions WHERE request_id = ?)`,
		er.ID).Scan(&er.LivenessFrames); err != nil {
		return fmt.Errorf("erase request %s: %w", er.ID, err)
	}
	for _, q := range []string{
		`DELETE FROM liveness_frames WHERE session_id IN (SELECT id FROM liveness_sessions WHERE request_id = ?)`,
		`DELETE FROM face_descriptors WHERE request_id = ?`,
		`DELETE FROM kyc_captures WHERE request_id = ?`,
		`DELETE FROM liveness_sessions WHERE request_id = ?`,
		// Comments are free text between colleagues, as reviewer notes:
		// they go. Tags and reason codes stay with the tombstone.
		`DELETE FROM case_comments WHERE subject_type = 'kyc_request' AND subject_id = ?`,
		// A reviewer's message to the applicant is free text about them.
		`UPDATE kyc_resubmissions SET message = '' WHERE request_id = ?`,
		// The request row stays as the tombstone: ids, dates, status,
		// decision, reason codes. What identified or described the person
		// goes: document details and number, metadata, results that
		// quote the document, the address read from it, screening
		// results naming the person,
		// reviewer notes (free text) and the sealed portal link.
		`UPDATE kyc_requests SET document_data = NULL, document_number = NULL, document_number_read = NULL,
			document_key_id = NULL, address_read = NULL, address_read_key_id = NULL, metadata = '{}', processing_result = NULL, screenings = NULL, reviewer_note = NULL,
			pending_review = NULL, portal_token_sealed = NULL, portal_token_key_id = NULL WHERE id = ?`,
	} {
		if _, err := tx.exec(q, er.ID); err != nil {
			return fmt.Errorf("erase request %s: %w", er.ID, err)
		}
	}
	return nil
}

func (tx *Tx) findErasure(applicantID string) (*kyc.ErasureReceipt, error) {
	var body string
	if err := tx.queryRow(`SELECT receipt FROM erasures WHERE applicant_id = ?`, applicantID).Scan(&body); err != nil {
		return nil, fmt.Errorf("find erasure: %w", err)
	}
	var rec kyc.ErasureReceipt
	if err := json.Unmarshal([]byte(body), &rec); err != nil {
		return nil, fmt.Errorf("find erasure: %w", err)
	}
	return &rec, nil
}

// isSubjectSealedText reports whether a base64 column value was sealed
// under an applicant key.
func isSubjectSealedText(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return false
	}
	_, _, ok := subjectOf(b)
	return ok
}

func requestIDs(rec *kyc.ErasureReceipt) []string {
	ids := make([]string, 0, len(rec.Requests))
	for _, r := range rec.Requests {
		ids = append(ids, r.ID)
	}
	return ids
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// SetLegalHold puts the applicant under legal hold (hold) or lifts it,
// with the reason for either, and audits the change. While held, no
// erasure runs: neither on request nor scheduled. An erased applicant
// cannot be held (UNPROCESSABLE): there is nothing left to hold.
func (tx *Tx) SetLegalHold(orgID string, env kyc.Environment, idParam string, hold bool, reason string) (*kyc.Applicant, error) {
	a, err := tx.FindApplicant(orgID, env, idParam)
	if err != nil {
		return nil, err
	}
	if a.ErasedAt != nil {
		return nil, &kyc.Error{Code: kyc.EUnprocessable, Reason: "applicant_erased",
			Message: fmt.Sprintf("Applicant %s was erased; there is nothing left to hold.", idParam)}
	}
	var holdReason, since any
	action := "applicant.legal_hold_lifted"
	if hold {
		holdReason, since, action = reason, kyc.FormatTime(tx.now), "applicant.legal_hold_set"
	}
	if _, err := tx.exec(`UPDATE applicants SET legal_hold_reason = ?, legal_hold_at = ?, updated_at = ? WHERE id = ?`,
		holdReason, since, kyc.FormatTime(tx.now), a.ID); err != nil {
		return nil, fmt.Errorf("set legal hold: %w", err)
	}
	if err := tx.auditOperatorAction(a.OrganizationID, a.Environment, "applicant", a.ID, action, reason); err != nil {
		return nil, err
	}
	return tx.FindApplicant(orgID, env, a.ID)
}

// erasableFrom is when retention lets the applicant's data be erased
// (kyc.ErasableFrom), and the organization's policy.
func (tx *Tx) erasableFrom(a *kyc.Applicant) (time.Time, kyc.RetentionPolicy, error) {
	return erasableFrom(context.Background(), tx.q, tx.now, a)
}

// ErasableFrom is when retention lets an applicant's data be erased on
// request (now, when it may be at once), and the organization's policy: what
// the console shows before an admin confirms an erasure.
func (s *Store) ErasableFrom(ctx context.Context, a *kyc.Applicant) (time.Time, kyc.RetentionPolicy, error) {
	return erasableFrom(ctx, readPool{s.readStmts}, s.Now(), a)
}

func erasableFrom(ctx context.Context, q queryer, now time.Time, a *kyc.Applicant) (time.Time, kyc.RetentionPolicy, error) {
	var latest sql.NullString
	if err := q.QueryRowContext(ctx, `SELECT max(decided_at) FROM kyc_requests WHERE applicant_id = ? AND decision IN ('approved', 'rejected')`,
		a.ID).Scan(&latest); err != nil {
		return time.Time{}, kyc.RetentionPolicy{}, fmt.Errorf("erasable from: %w", err)
	}
	policy, err := retentionOf(ctx, q, a.OrganizationID)
	if err != nil {
		return time.Time{}, policy, err
	}
	if !latest.Valid {
		return now, policy, nil
	}
	t := parseTime(latest.String)
	return kyc.ErasableFrom(a.Environment, now, &t, relationshipEnd(a), policy), policy, nil
}

// relationshipEnd is the applicant's relationship end as a time (midnight
// UTC of the date), nil when none is set.
func relationshipEnd(a *kyc.Applicant) *time.Time {
	if a.RelationshipEnd == nil {
		return nil
	}
	t, ok := kyc.ParseDate(*a.RelationshipEnd)
	if !ok {
		return nil // validated on the way in; an unreadable value keeps the decision's date
	}
	return &t
}

// nullTime parses a nullable time column.
func nullTime(v sql.NullString) *time.Time {
	if !v.Valid {
		return nil
	}
	t := parseTime(v.String)
	return &t
}

// FindErasure returns the receipt of an erased applicant of the
// organization's environment (NOT_FOUND when it was not erased).
func (s *Store) FindErasure(ctx context.Context, orgID string, env kyc.Environment, applicantID string) (*kyc.ErasureReceipt, error) {
	var body string
	err := s.reader.QueryRowContext(ctx, `SELECT receipt FROM erasures WHERE applicant_id = ? AND organization_id = ? AND environment = ?`,
		applicantID, orgID, string(env)).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "Applicant %s was not erased.", applicantID)
	}
	if err != nil {
		return nil, fmt.Errorf("find erasure: %w", err)
	}
	var rec kyc.ErasureReceipt
	if err := json.Unmarshal([]byte(body), &rec); err != nil {
		return nil, fmt.Errorf("find erasure: %w", err)
	}
	return &rec, nil
}

// DueErasure is a scheduled erasure whose time has come.
type DueErasure struct {
	OrganizationID string
	Environment    kyc.Environment
	ApplicantID    string
}

// FindDueErasures returns up to limit applicants whose scheduled erasure
// is due at now and who are not under legal hold, oldest first.
func (s *Store) FindDueErasures(ctx context.Context, now time.Time, limit int) ([]DueErasure, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT organization_id, environment, id FROM applicants
		WHERE erasure_scheduled_at IS NOT NULL AND erased_at IS NULL AND erasure_scheduled_at <= ? AND legal_hold_reason IS NULL
		ORDER BY erasure_scheduled_at, id LIMIT ?`, kyc.FormatTime(now), limit)
	if err != nil {
		return nil, fmt.Errorf("find due erasures: %w", err)
	}
	defer rows.Close()
	var out []DueErasure
	for rows.Next() {
		var d DueErasure
		var env string
		if err := rows.Scan(&d.OrganizationID, &env, &d.ApplicantID); err != nil {
			return nil, fmt.Errorf("find due erasures: %w", err)
		}
		d.Environment = kyc.Environment(env)
		out = append(out, d)
	}
	return out, rows.Err()
}

// SweepErasedKeys deletes from the SQLite key store the keys of erased
// applicants that are still there (a crash between an erasure's commit
// and the key's deletion). It returns how many it deleted.
func (s *Store) SweepErasedKeys(ctx context.Context) (int, error) {
	if s.keys == nil {
		return 0, ErrNoMasterKey
	}
	if s.keys.subjects.postgres {
		return 0, nil // deleted in the erasure's transaction
	}
	rows, err := s.keys.subjects.db.QueryContext(ctx, `SELECT applicant_id FROM subject_keys`)
	if err != nil {
		return 0, fmt.Errorf("sweep keys: %w", err)
	}
	ids, err := scanIDs(rows)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		var erased sql.NullString
		err := s.reader.QueryRowContext(ctx, `SELECT erased_at FROM applicants WHERE id = ?`, id).Scan(&erased)
		// Only erased applicants: a key whose applicant is not (yet)
		// committed may belong to a transaction still running.
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err == nil && erased.Valid {
			if err := s.keys.subjects.destroy(ctx, id); err != nil {
				return n, err
			}
			n++
			continue
		}
		if err != nil {
			return n, fmt.Errorf("sweep keys: %w", err)
		}
	}
	return n, nil
}
