package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"kycd/kyc"
)

// Escalation is a KYC request a reviewer handed to a senior: who, when,
// and why. It lasts until a senior de-escalates the request or it is
// decided.
type Escalation struct {
	At     time.Time
	ByID   string
	ByName string // "" when the user was deleted
	Reason string
}

// SetEscalation marks a request escalated by a user with a reason.
func (tx *Tx) SetEscalation(requestID, userID, reason string) error {
	if _, err := tx.exec(`UPDATE kyc_requests SET escalated_at = ?, escalated_by = ?, escalation_reason = ? WHERE id = ?`,
		kyc.FormatTime(tx.now), userID, reason, requestID); err != nil {
		return fmt.Errorf("escalate: %w", err)
	}
	return nil
}

// ClearEscalation returns a request to the ordinary queue.
func (tx *Tx) ClearEscalation(requestID string) error {
	if _, err := tx.exec(`UPDATE kyc_requests SET escalated_at = NULL, escalated_by = NULL, escalation_reason = NULL WHERE id = ?`,
		requestID); err != nil {
		return fmt.Errorf("de-escalate: %w", err)
	}
	return nil
}

// FindEscalation returns a request's escalation, or nil.
func (s *Store) FindEscalation(ctx context.Context, requestID string) (*Escalation, error) {
	return findEscalation(ctx, readPool{s.readStmts}, requestID)
}

// FindEscalation is Store.FindEscalation inside the write transaction.
func (tx *Tx) FindEscalation(requestID string) (*Escalation, error) {
	return findEscalation(context.Background(), tx.q, requestID)
}

func findEscalation(ctx context.Context, q queryer, requestID string) (*Escalation, error) {
	var at, by, name, reason sql.NullString
	err := q.QueryRowContext(ctx, `SELECT r.escalated_at, r.escalated_by, u.name, r.escalation_reason FROM kyc_requests r
		LEFT JOIN users u ON u.id = r.escalated_by WHERE r.id = ?`, requestID).Scan(&at, &by, &name, &reason)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "KYC request %s not found.", requestID)
	}
	if err != nil {
		return nil, fmt.Errorf("find escalation: %w", err)
	}
	if !at.Valid {
		return nil, nil
	}
	return &Escalation{At: parseTime(at.String), ByID: by.String, ByName: name.String, Reason: reason.String}, nil
}
