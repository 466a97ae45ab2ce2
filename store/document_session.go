package store

import (
	"database/sql"
	"errors"
	"fmt"

	"kycd/kyc"
)

// CreateDocumentSession stores a newly opened document camera session of
// s.RequestID with the SHA-256 (hex) of the nonce the page holds; it sets
// s.ID.
func (tx *Tx) CreateDocumentSession(s *kyc.DocumentSession, nonceSHA256 string) error {
	s.ID = "dcs_" + NewULID(tx.now)
	if err := tx.queryRow(`SELECT attempt FROM kyc_requests WHERE id = ?`, s.RequestID).Scan(&s.Attempt); err != nil {
		return fmt.Errorf("attempt of %s: %w", s.RequestID, err)
	}
	_, err := tx.exec(`INSERT INTO document_sessions (id, request_id, nonce_sha256, opened_at, deadline_at, user_agent, ip, attempt)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.RequestID, nonceSHA256, kyc.FormatTime(s.OpenedAt), kyc.FormatTime(s.DeadlineAt), s.UserAgent, s.IP, s.Attempt)
	if err != nil {
		return fmt.Errorf("insert document session: %w", err)
	}
	return nil
}

// CountDocumentSessions is how many document camera sessions a request
// has opened.
func (tx *Tx) CountDocumentSessions(requestID string) (int, error) {
	var n int
	if err := tx.queryRow(`SELECT count(*) FROM document_sessions s JOIN kyc_requests r ON r.id = s.request_id
		WHERE s.request_id = ? AND s.attempt = r.attempt`, requestID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count document sessions: %w", err)
	}
	return n, nil
}

// FindDocumentSession loads session id of a request with its nonce hash.
// NOT_FOUND when the request has no such session.
func (tx *Tx) FindDocumentSession(requestID, id string) (*kyc.DocumentSession, string, error) {
	var s kyc.DocumentSession
	var opened, deadline, nonce string
	err := tx.queryRow(`SELECT id, request_id, opened_at, deadline_at, user_agent, ip, nonce_sha256, attempt FROM document_sessions
		WHERE id = ? AND request_id = ?`, id, requestID).Scan(&s.ID, &s.RequestID, &opened, &deadline, &s.UserAgent, &s.IP, &nonce, &s.Attempt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", kyc.Errorf(kyc.ENotFound, "Camera session not found.")
	}
	if err != nil {
		return nil, "", fmt.Errorf("find document session: %w", err)
	}
	s.OpenedAt, s.DeadlineAt = parseTime(opened), parseTime(deadline)
	return &s, nonce, nil
}
