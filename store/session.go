package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"kycd/kyc"
)

// SessionStage is how far a console session has got through sign-in.
type SessionStage string

// Session stages: the second factor is due; the organization requires a
// second factor the user must set up first; signed in.
const (
	StageTOTP  SessionStage = "totp"
	StageEnrol SessionStage = "enrol"
	StageFull  SessionStage = "full"
)

// Session is a console session with its user.
type Session struct {
	IDHash      []byte
	User        *kyc.User
	Stage       SessionStage
	RequireTOTP bool // the user's organization requires a second factor
	CreatedAt   time.Time
	LastSeenAt  time.Time
	ExpiresAt   time.Time
}

// CreateSession starts a session for the user and returns the cookie's
// opaque id (only its hash is stored).
func (tx *Tx) CreateSession(userID string, stage SessionStage, lifetime time.Duration, ip, userAgent string) (string, error) {
	id := NewSecret(32)
	if len(userAgent) > 300 {
		userAgent = userAgent[:300]
	}
	_, err := tx.exec(`INSERT INTO console_sessions (id_hash, user_id, stage, created_at, last_seen_at, expires_at, ip, user_agent)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, hashSecret(id), userID, string(stage), kyc.FormatTime(tx.now), kyc.FormatTime(tx.now),
		kyc.FormatTime(tx.now.Add(lifetime)), ip, userAgent)
	if err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	return id, nil
}

// errNoSession is the answer for a cookie that names no live session.
var errNoSession = kyc.Errorf(kyc.ENotFound, "No such session.")

// FindSession returns the session a cookie's id names, with its user. An
// unknown id, or a session of a disabled user, is NOT_FOUND; the caller
// checks the idle and absolute timeouts.
func (s *Store) FindSession(ctx context.Context, id string) (*Session, error) {
	var stage, created, seen, expires string
	var require int
	sess := &Session{IDHash: hashSecret(id)}
	row := readPool{s.readStmts}.QueryRowContext(ctx, `SELECT `+userColumns+`, s.stage, s.created_at, s.last_seen_at, s.expires_at, o.require_totp
		FROM console_sessions s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.id = u.organization_id
		WHERE s.id_hash = ? AND u.disabled_at IS NULL`, sess.IDHash)
	u, err := scanUser(scannerWith{row, []any{&stage, &created, &seen, &expires, &require}})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("find session: %w", err)
	}
	sess.User, sess.Stage, sess.RequireTOTP = u, SessionStage(stage), require == 1
	sess.CreatedAt, sess.LastSeenAt, sess.ExpiresAt = parseTime(created), parseTime(seen), parseTime(expires)
	return sess, nil
}

// TouchSession records activity on a session (the idle timeout counts
// from it).
func (tx *Tx) TouchSession(idHash []byte) error {
	if _, err := tx.exec(`UPDATE console_sessions SET last_seen_at = ? WHERE id_hash = ?`, kyc.FormatTime(tx.now), idHash); err != nil {
		return fmt.Errorf("touch session: %w", err)
	}
	return nil
}

// DeleteSession ends one session.
func (tx *Tx) DeleteSession(idHash []byte) error {
	if _, err := tx.exec(`DELETE FROM console_sessions WHERE id_hash = ?`, idHash); err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	return nil
}

// DeleteUserSessions ends every session of a user except keep (nil: all).
func (tx *Tx) DeleteUserSessions(userID string, keep []byte) error {
	if _, err := tx.exec(`DELETE FROM console_sessions WHERE user_id = ? AND id_hash IS DISTINCT FROM ?`, userID, keep); err != nil {
		return fmt.Errorf("delete sessions: %w", err)
	}
	return nil
}

// Throttle scopes: failures per account (the e-mail address typed) and per
// client address.
const (
	ThrottleAccount = "account"
	ThrottleAddress = "address"
)

// CountLoginFailures counts failed sign-ins of subject in scope since a
// time, and returns the oldest of them (zero when none).
func (s *Store) CountLoginFailures(ctx context.Context, scope, subject string, since time.Time) (int, time.Time, error) {
	var n int
	var oldest sql.NullString
	err := readPool{s.readStmts}.QueryRowContext(ctx, `SELECT count(*), min(at) FROM login_failures WHERE scope = ? AND subject = ? AND at >= ?`,
		scope, subject, kyc.FormatTime(since)).Scan(&n, &oldest)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("count login failures: %w", err)
	}
	var t time.Time
	if oldest.Valid {
		t = parseTime(oldest.String)
	}
	return n, t, nil
}

// RecordLoginFailure notes one failed sign-in in scope.
func (tx *Tx) RecordLoginFailure(scope, subject string) error {
	if _, err := tx.exec(`INSERT INTO login_failures (scope, subject, at) VALUES (?, ?, ?)`, scope, subject, kyc.FormatTime(tx.now)); err != nil {
		return fmt.Errorf("record login failure: %w", err)
	}
	return nil
}

// ClearLoginFailures forgets an account's failures after it signed in.
func (tx *Tx) ClearLoginFailures(scope, subject string) error {
	if _, err := tx.exec(`DELETE FROM login_failures WHERE scope = ? AND subject = ?`, scope, subject); err != nil {
		return fmt.Errorf("clear login failures: %w", err)
	}
	return nil
}

// PurgeConsole deletes what the console no longer needs: sessions past
// their absolute end or idle since before idleSince, failures older than
// failuresSince, used or expired one-time tokens, and expired claims.
func (tx *Tx) PurgeConsole(idleSince, failuresSince time.Time) (int64, error) {
	var total int64
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`DELETE FROM console_sessions WHERE expires_at <= ? OR last_seen_at < ?`, []any{kyc.FormatTime(tx.now), kyc.FormatTime(idleSince)}},
		{`DELETE FROM login_failures WHERE at < ?`, []any{kyc.FormatTime(failuresSince)}},
		{`DELETE FROM user_tokens WHERE used_at IS NOT NULL OR expires_at <= ?`, []any{kyc.FormatTime(tx.now)}},
		{`DELETE FROM case_claims WHERE expires_at <= ?`, []any{kyc.FormatTime(tx.now)}},
	} {
		res, err := tx.exec(q.sql, q.args...)
		if err != nil {
			return total, fmt.Errorf("purge console: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
	}
	return total, nil
}
