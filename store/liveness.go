package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"kycd/kyc"
)

const livenessColumns = `id, request_id, challenge, status, opened_at, deadline_at, received_at, verdict,
	selfie_capture_id, user_agent, ip, attempt`

// CreateLivenessSession stores a newly opened session of s.RequestID with
// the SHA-256 (hex) of the nonce the page holds; it sets s.ID.
func (tx *Tx) CreateLivenessSession(s *kyc.LivenessSession, nonceSHA256 string) error {
	s.ID = "lvs_" + NewULID(tx.now)
	challenge, err := json.Marshal(s.Challenge)
	if err != nil {
		return fmt.Errorf("encode challenge: %w", err)
	}
	// The session belongs to the request's current attempt.
	if err := tx.queryRow(`SELECT attempt FROM kyc_requests WHERE id = ?`, s.RequestID).Scan(&s.Attempt); err != nil {
		return fmt.Errorf("attempt of %s: %w", s.RequestID, err)
	}
	_, err = tx.exec(`INSERT INTO liveness_sessions (id, request_id, nonce_sha256, challenge, status, opened_at, deadline_at,
		user_agent, ip, attempt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.RequestID, nonceSHA256, string(challenge), s.Status, kyc.FormatTime(s.OpenedAt), kyc.FormatTime(s.DeadlineAt),
		s.UserAgent, s.IP, s.Attempt)
	if err != nil {
		return fmt.Errorf("insert liveness session: %w", err)
	}
	return nil
}

// CountLivenessSessions is how many sessions a request has opened in its
// current attempt: a resubmitted camera check has the same allowance as
// the first.
func (tx *Tx) CountLivenessSessions(requestID string) (int, error) {
	var n int
	if err := tx.queryRow(`SELECT count(*) FROM liveness_sessions s JOIN kyc_requests r ON r.id = s.request_id
		WHERE s.request_id = ? AND s.attempt = r.attempt`, requestID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count liveness sessions: %w", err)
	}
	return n, nil
}

// FindLivenessSession loads session id of a request inside the write
// transaction, with the nonce hash to check the upload against. NOT_FOUND
// when the request has no such session.
func (tx *Tx) FindLivenessSession(requestID, id string) (*kyc.LivenessSession, string, error) {
	var nonce string
	s, err := scanLiveness(tx.queryRow(`SELECT `+livenessColumns+`, nonce_sha256 FROM liveness_sessions
		WHERE id = ? AND request_id = ?`, id, requestID), &nonce)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", kyc.Errorf(kyc.ENotFound, "Capture session not found.")
	}
	return s, nonce, err
}

// FinishLivenessSession records the frames that arrived for s and its
// verdict (s.Status, s.ReceivedAt, s.Verdict, s.SelfieCaptureID), sealing
// each frame's image with the frame id as associated data. It fails with
// CONFLICT when the session's frames were already received: a nonce is
// used once.
func (tx *Tx) FinishLivenessSession(s *kyc.LivenessSession, frames []kyc.LivenessFrame) error {
	res, err := tx.exec(`UPDATE liveness_sessions SET status = ?, received_at = ?, verdict = ?, selfie_capture_id = ?
		WHERE id = ? AND received_at IS NULL`,
		s.Status, kyc.FormatTime(*s.ReceivedAt), nullJSON(s.Verdict), s.SelfieCaptureID, s.ID)
	if err != nil {
		return fmt.Errorf("finish liveness session: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return &kyc.Error{Code: kyc.EConflict, Message: "This camera check was already sent. Start a new one.", Reason: "session_used"}
	}
	applicantID, err := tx.applicantOfRequest(s.RequestID)
	if err != nil {
		return fmt.Errorf("save liveness frames: %w", err)
	}
	for i := range frames {
		f := &frames[i]
		f.ID, f.SessionID, f.Size = "lvf_"+NewULID(tx.now), s.ID, len(f.Data)
		keyID, sealed, err := tx.sealFor(applicantID, f.Data, f.ID)
		if err != nil {
			return fmt.Errorf("save liveness frame: %w", err)
		}
		_, err = tx.exec(`INSERT INTO liveness_frames (id, session_id, seq, step, content_type, size, width, height, sha256,
			key_id, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			f.ID, f.SessionID, f.Seq, f.Step, f.ContentType, f.Size, f.Width, f.Height, f.SHA256, keyID, sealed)
		if err != nil {
			return fmt.Errorf("insert liveness frame: %w", err)
		}
	}
	s.Frames = frames
	return nil
}

func nullJSON(b json.RawMessage) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// FindLivenessSessions returns a request's sessions, oldest first, each
// with its frames (without image data).
func (s *Store) FindLivenessSessions(ctx context.Context, requestID string) ([]kyc.LivenessSession, error) {
	return findLivenessSessions(ctx, readPool{s.readStmts}, requestID)
}

// FindLivenessSessions is Store.FindLivenessSessions inside the write
// transaction.
func (tx *Tx) FindLivenessSessions(requestID string) ([]kyc.LivenessSession, error) {
	return findLivenessSessions(context.Background(), tx.q, requestID)
}

func findLivenessSessions(ctx context.Context, q queryer, requestID string) ([]kyc.LivenessSession, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+livenessColumns+` FROM liveness_sessions WHERE request_id = ? ORDER BY id`, requestID)
	if err != nil {
		return nil, fmt.Errorf("find liveness sessions: %w", err)
	}
	out := []kyc.LivenessSession{}
	byID := map[string]int{}
	for rows.Next() {
		s, err := scanLiveness(rows, nil)
		if err != nil {
			rows.Close()
			return nil, err
		}
		s.Frames = []kyc.LivenessFrame{}
		byID[s.ID] = len(out)
		out = append(out, *s)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return out, nil
	}
	frames, err := q.QueryContext(ctx, `SELECT f.id, f.session_id, f.seq, f.step, f.content_type, f.size, f.width, f.height, f.sha256
		FROM liveness_frames f JOIN liveness_sessions s ON s.id = f.session_id WHERE s.request_id = ? ORDER BY f.session_id, f.seq`, requestID)
	if err != nil {
		return nil, fmt.Errorf("find liveness frames: %w", err)
	}
	defer frames.Close()
	for frames.Next() {
		var f kyc.LivenessFrame
		if err := frames.Scan(&f.ID, &f.SessionID, &f.Seq, &f.Step, &f.ContentType, &f.Size, &f.Width, &f.Height, &f.SHA256); err != nil {
			return nil, fmt.Errorf("scan liveness frame: %w", err)
		}
		if i, ok := byID[f.SessionID]; ok {
			out[i].Frames = append(out[i].Frames, f)
		}
	}
	return out, frames.Err()
}

// FindLivenessFrameData loads one frame with its image, by id alone:
// callers have already proved access (a signed download URL). An image
// that does not decrypt is an error, never bytes.
func (s *Store) FindLivenessFrameData(ctx context.Context, id string) (*kyc.LivenessFrame, string, error) {
	var f kyc.LivenessFrame
	var requestID string
	var keyID int64
	err := s.reader.QueryRowContext(ctx, `SELECT f.id, f.session_id, f.seq, f.step, f.content_type, f.size, f.width, f.height,
		f.sha256, f.key_id, f.data, s.request_id FROM liveness_frames f JOIN liveness_sessions s ON s.id = f.session_id WHERE f.id = ?`, id).
		Scan(&f.ID, &f.SessionID, &f.Seq, &f.Step, &f.ContentType, &f.Size, &f.Width, &f.Height, &f.SHA256, &keyID, &f.Data, &requestID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", kyc.Errorf(kyc.ENotFound, "File %s not found.", id)
	}
	if err != nil {
		return nil, "", fmt.Errorf("find liveness frame: %w", err)
	}
	data, err := s.keys.open(keyID, f.Data, f.ID)
	if err != nil {
		return nil, "", fmt.Errorf("decrypt liveness frame: %w", err)
	}
	f.Data = data
	return &f, requestID, nil
}

// scanLiveness scans livenessColumns, and the nonce hash into nonce when
// it is not nil.
func scanLiveness(row scanner, nonce *string) (*kyc.LivenessSession, error) {
	var s kyc.LivenessSession
	var challenge, opened, deadline string
	var received, verdict, selfie sql.NullString
	dest := []any{&s.ID, &s.RequestID, &challenge, &s.Status, &opened, &deadline, &received, &verdict, &selfie, &s.UserAgent, &s.IP, &s.Attempt}
	if nonce != nil {
		dest = append(dest, nonce)
	}
	if err := row.Scan(dest...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("scan liveness session: %w", err)
	}
	if err := json.Unmarshal([]byte(challenge), &s.Challenge); err != nil {
		return nil, fmt.Errorf("decode challenge: %w", err)
	}
	s.OpenedAt, s.DeadlineAt, s.ReceivedAt = parseTime(opened), parseTime(deadline), parseTimePtr(received)
	if verdict.Valid {
		s.Verdict = json.RawMessage(verdict.String)
	}
	s.SelfieCaptureID = ptrString(selfie)
	return &s, nil
}
