package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"kycd/kyc"
)

const captureColumns = `id, request_id, kind, side, document_type, country, content_type, size, width, height, sha256,
	source_sha256, method, user_agent, ip, meta, captured_at, session_id, document_session_id, attempt`

// methodColumn is how kyc_captures.method stores a capture method: its
// CHECK predates liveness sessions (see migration 0014_liveness_sessions), so 'camera' there
// is what the API calls camera_challenge, and a trigger refuses it without
// a session. A camera_session document is stored as 'upload' with its
// document_session_id (migration 0025): the column says what the server
// checked, and no table rebuild was needed to widen the CHECK.
func methodColumn(m string) string {
	if m == kyc.MethodCameraChallenge {
		return "camera"
	}
	return "upload"
}

func methodFromColumn(col string) string {
	if col == "camera" {
		return kyc.MethodCameraChallenge
	}
	return kyc.MethodUpload
}

// SaveCapture stores an image for a request. A retake replaces the
// earlier image of the same kind and side: before submission nothing is
// final, and the engine must judge what the applicant submitted.
func (tx *Tx) SaveCapture(c *kyc.Capture, data []byte) error {
	c.ID, c.CapturedAt, c.Size = "cap_"+NewULID(tx.now), tx.now, len(data)
	// The request's current attempt: a retake replaces the image of its
	// own attempt only, so an earlier attempt's stays in the case.
	if err := tx.queryRow(`SELECT attempt FROM kyc_requests WHERE id = ?`, c.RequestID).Scan(&c.Attempt); err != nil {
		return fmt.Errorf("attempt of %s: %w", c.RequestID, err)
	}
	if _, err := tx.exec(`DELETE FROM kyc_captures WHERE request_id = ? AND kind = ? AND side IS NOT DISTINCT FROM ? AND attempt = ?`,
		c.RequestID, c.Kind, c.Side, c.Attempt); err != nil {
		return fmt.Errorf("replace capture: %w", err)
	}
	meta, err := json.Marshal(orEmptyMap(c.Meta))
	if err != nil {
		return fmt.Errorf("encode capture meta: %w", err)
	}
	// Sealed with the capture id as associated data: a blob moved to
	// another row does not open there.
	applicantID, err := tx.applicantOfRequest(c.RequestID)
	if err != nil {
		return fmt.Errorf("save capture: %w", err)
	}
	keyID, sealed, err := tx.sealFor(applicantID, data, c.ID)
	if err != nil {
		return fmt.Errorf("save capture: %w", err)
	}
	if (c.Method == kyc.MethodCameraSession) != (c.DocumentSessionID != nil) {
		return fmt.Errorf("save capture: a camera_session capture needs its document session, and only it")
	}
	_, err = tx.exec(`INSERT INTO kyc_captures (`+captureColumns+`, data, key_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.RequestID, c.Kind, c.Side, c.DocumentType, c.Country, c.ContentType, c.Size, c.Width, c.Height, c.SHA256,
		c.SourceSHA256, methodColumn(c.Method), c.UserAgent, c.IP, string(meta), kyc.FormatTime(tx.now), c.SessionID, c.DocumentSessionID, c.Attempt, sealed, keyID)
	if err != nil {
		return fmt.Errorf("insert capture: %w", err)
	}
	return nil
}

// FindCaptures returns a request's captures of kind ("" for all), without
// their image data, oldest first.
func (s *Store) FindCaptures(ctx context.Context, requestID, kind string) ([]kyc.Capture, error) {
	return findCaptures(ctx, readPool{s.readStmts}, requestID, kind)
}

// FindCaptures is Store.FindCaptures inside the write transaction.
func (tx *Tx) FindCaptures(requestID, kind string) ([]kyc.Capture, error) {
	return findCaptures(context.Background(), tx.q, requestID, kind)
}

func findCaptures(ctx context.Context, q queryer, requestID, kind string) ([]kyc.Capture, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+captureColumns+` FROM kyc_captures WHERE request_id = ? AND (? = '' OR kind = ?) ORDER BY id`,
		requestID, kind, kind)
	if err != nil {
		return nil, fmt.Errorf("find captures: %w", err)
	}
	defer rows.Close()
	out := []kyc.Capture{}
	for rows.Next() {
		c, err := scanCapture(rows, false, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, *c)
	}
	return out, rows.Err()
}

// FindCaptureData loads one capture with its image, by id alone: callers
// have already proved access (a signed download URL, or a job). An image
// that does not decrypt is an error (wrapping seal.ErrOpen), never bytes.
func (s *Store) FindCaptureData(ctx context.Context, id string) (*kyc.Capture, error) {
	c, err := scanCapture(s.reader.QueryRowContext(ctx, `SELECT `+captureColumns+`, data, key_id FROM kyc_captures WHERE id = ?`, id), true, s.keys)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "File %s not found.", id)
	}
	return c, err
}

// scanCapture scans captureColumns, and withData also data and key_id,
// decrypting the image with keys.
func scanCapture(row scanner, withData bool, keys *keyring) (*kyc.Capture, error) {
	var c kyc.Capture
	var side, docType, country, session, docSession sql.NullString
	var meta, captured, method string
	var keyID sql.NullInt64
	dest := []any{&c.ID, &c.RequestID, &c.Kind, &side, &docType, &country, &c.ContentType, &c.Size, &c.Width, &c.Height,
		&c.SHA256, &c.SourceSHA256, &method, &c.UserAgent, &c.IP, &meta, &captured, &session, &docSession, &c.Attempt}
	if withData {
		dest = append(dest, &c.Data, &keyID)
	}
	if err := row.Scan(dest...); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		return nil, fmt.Errorf("scan capture: %w", err)
	}
	if keyID.Valid { // NULL: stored before encryption at rest
		data, err := keys.open(keyID.Int64, c.Data, c.ID)
		if err != nil {
			return nil, fmt.Errorf("decrypt capture: %w", err)
		}
		c.Data = data
	}
	c.Side, c.DocumentType, c.Country, c.SessionID = ptrString(side), ptrString(docType), ptrString(country), ptrString(session)
	c.Method = methodFromColumn(method)
	if c.DocumentSessionID = ptrString(docSession); c.DocumentSessionID != nil {
		c.Method = kyc.MethodCameraSession
	}
	if err := json.Unmarshal([]byte(meta), &c.Meta); err != nil {
		return nil, fmt.Errorf("decode capture meta: %w", err)
	}
	c.CapturedAt = parseTime(captured)
	return &c, nil
}
