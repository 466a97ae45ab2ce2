package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
)

const userColumns = `u.id, u.organization_id, u.email, u.name, u.role, u.password_hash IS NOT NULL, u.totp_secret IS NOT NULL,
	u.installation_admin, u.senior, u.disabled_at, u.last_login_at, u.created_at, u.updated_at, u.review_available`

// CreateUser adds a user without a password (they set it through a
// one-time link). An e-mail address already used by any user is CONFLICT.
func (tx *Tx) CreateUser(orgID, email, name string, role kyc.Role) (*kyc.User, error) {
	u := &kyc.User{ID: "usr_" + NewULID(tx.now), OrganizationID: orgID, Email: strings.TrimSpace(email), Name: strings.TrimSpace(name),
		Role: role, CreatedAt: tx.now, UpdatedAt: tx.now}
	_, err := tx.exec(`INSERT INTO users (id, organization_id, email, name, role, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		u.ID, orgID, u.Email, u.Name, string(role), kyc.FormatTime(tx.now), kyc.FormatTime(tx.now))
	if errors.Is(err, errUnique) {
		return nil, &kyc.Error{Code: kyc.EConflict, Message: fmt.Sprintf("A user with the e-mail address %s already exists.", u.Email),
			Details: []kyc.FieldError{{Field: "email", Message: "is already used by another user"}}, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("insert user: %w", err)
	}
	return u, nil
}

func scanUser(row scanner) (*kyc.User, error) {
	var u kyc.User
	var role, created, updated string
	var disabled, lastLogin sql.NullString
	var installation, senior, available int
	if err := row.Scan(&u.ID, &u.OrganizationID, &u.Email, &u.Name, &role, &u.PasswordSet, &u.TOTPEnabled, &installation, &senior, &disabled,
		&lastLogin, &created, &updated, &available); err != nil {
		return nil, err
	}
	u.InstallationAdmin, u.Senior, u.ReviewAvailable = installation == 1, senior == 1, available == 1
	u.Role, u.CreatedAt, u.UpdatedAt = kyc.Role(role), parseTime(created), parseTime(updated)
	u.DisabledAt, u.LastLoginAt = parseTimePtr(disabled), parseTimePtr(lastLogin)
	return &u, nil
}

// FindUser returns the organization's user with id: NOT_FOUND for another
// organization's.
func (s *Store) FindUser(ctx context.Context, orgID, id string) (*kyc.User, error) {
	return findUser(ctx, readPool{s.readStmts}, orgID, id)
}

// FindUser is Store.FindUser inside the write transaction.
func (tx *Tx) FindUser(orgID, id string) (*kyc.User, error) {
	return findUser(context.Background(), tx.q, orgID, id)
}

func findUser(ctx context.Context, q queryer, orgID, id string) (*kyc.User, error) {
	u, err := scanUser(q.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = ? AND u.organization_id = ?`, id, orgID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "User %s not found.", id)
	}
	if err != nil {
		return nil, fmt.Errorf("find user: %w", err)
	}
	return u, nil
}

// FindUserByID returns the user with id whatever their organization, for
// installation-wide pages that name who did something (watch lists).
func (s *Store) FindUserByID(ctx context.Context, id string) (*kyc.User, error) {
	u, err := scanUser(readPool{s.readStmts}.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users u WHERE u.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "User %s not found.", id)
	}
	if err != nil {
		return nil, fmt.Errorf("find user: %w", err)
	}
	return u, nil
}

// FindUsers lists the organization's users, oldest first.
func (s *Store) FindUsers(ctx context.Context, orgID string) ([]*kyc.User, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+userColumns+` FROM users u WHERE u.organization_id = ? ORDER BY u.id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("find users: %w", err)
	}
	defer rows.Close()
	var out []*kyc.User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, fmt.Errorf("scan user: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// UserCredentials are what signing in checks.
type UserCredentials struct {
	User         *kyc.User
	PasswordHash string // "" before the password is set
}

// FindUserByEmail returns the user with this address (any case) and
// their password hash: NOT_FOUND when there is none.
func (s *Store) FindUserByEmail(ctx context.Context, email string) (*UserCredentials, error) {
	var hash sql.NullString
	row := readPool{s.readStmts}.QueryRowContext(ctx, `SELECT `+userColumns+`, u.password_hash FROM users u WHERE u.email = ?`, strings.TrimSpace(email))
	u, err := scanUser(scannerWith{row, []any{&hash}})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "No user with this e-mail address.")
	}
	if err != nil {
		return nil, fmt.Errorf("find user by e-mail: %w", err)
	}
	return &UserCredentials{User: u, PasswordHash: hash.String}, nil
}

// scannerWith scans a row whose leading columns a scan function reads,
// followed by extra columns.
type scannerWith struct {
	row   scanner
	extra []any
}

func (s scannerWith) Scan(dest ...any) error { return s.row.Scan(append(dest, s.extra...)...) }

// UserUpdate changes a user; nil fields stay as they are.
type UserUpdate struct {
	Name     *string
	Role     *kyc.Role
	Disabled *bool
	Senior   *bool
}

// UpdateUser applies u to the organization's user. Disabling a user ends
// all of their sessions in the same transaction.
func (tx *Tx) UpdateUser(orgID, id string, up UserUpdate) (*kyc.User, error) {
	u, err := tx.FindUser(orgID, id)
	if err != nil {
		return nil, err
	}
	if up.Name != nil {
		u.Name = strings.TrimSpace(*up.Name)
	}
	if up.Role != nil {
		u.Role = *up.Role
	}
	// A user who stops being an admin stops being an installation admin:
	// made admin again, they do not get it back without the operator.
	if u.Role != kyc.RoleAdmin {
		u.InstallationAdmin = false
	}
	if up.Senior != nil {
		u.Senior = *up.Senior
	}
	// The flag is a reviewer's: an admin has what it gives anyway, and an
	// analyst or viewer may not decide at all.
	if u.Role != kyc.RoleReviewer {
		u.Senior = false
	}
	if up.Disabled != nil {
		switch {
		case *up.Disabled && u.DisabledAt == nil:
			now := tx.now
			u.DisabledAt = &now
		case !*up.Disabled:
			u.DisabledAt = nil
		}
	}
	u.UpdatedAt = tx.now
	if _, err := tx.exec(`UPDATE users SET name = ?, role = ?, installation_admin = ?, senior = ?, disabled_at = ?, updated_at = ? WHERE id = ?`,
		u.Name, string(u.Role), boolInt(u.InstallationAdmin), boolInt(u.Senior), timeOrNil(u.DisabledAt), kyc.FormatTime(tx.now), u.ID); err != nil {
		return nil, fmt.Errorf("update user: %w", err)
	}
	if u.DisabledAt != nil {
		if err := tx.DeleteUserSessions(u.ID, nil); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// SetInstallationAdmin grants (on) or revokes an admin's installation-admin
// flag (PermInstallation). A user who is not an admin cannot have it:
// UNPROCESSABLE.
func (tx *Tx) SetInstallationAdmin(orgID, id string, on bool) (*kyc.User, error) {
	u, err := tx.FindUser(orgID, id)
	if err != nil {
		return nil, err
	}
	if on && u.Role != kyc.RoleAdmin {
		return nil, kyc.Errorf(kyc.EUnprocessable, "%s is a %s: only an admin can be an installation admin (make them an admin first).", u.Email, u.Role)
	}
	u.InstallationAdmin, u.UpdatedAt = on, tx.now
	if _, err := tx.exec(`UPDATE users SET installation_admin = ?, updated_at = ? WHERE id = ?`,
		boolInt(on), kyc.FormatTime(tx.now), u.ID); err != nil {
		return nil, fmt.Errorf("set installation admin: %w", err)
	}
	return u, nil
}

// CountActiveAdmins counts the organization's enabled admins.
func (tx *Tx) CountActiveAdmins(orgID string) (int, error) {
	var n int
	err := tx.queryRow(`SELECT count(*) FROM users WHERE organization_id = ? AND role = 'admin' AND disabled_at IS NULL`, orgID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count admins: %w", err)
	}
	return n, nil
}

// SetPasswordHash stores a user's new password hash. Their other sessions
// end (keep is the session that changed it, or nil).
func (tx *Tx) SetPasswordHash(userID, hash string, keep []byte) error {
	if _, err := tx.exec(`UPDATE users SET password_hash = ?, password_set_at = ?, updated_at = ? WHERE id = ?`,
		hash, kyc.FormatTime(tx.now), kyc.FormatTime(tx.now), userID); err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	return tx.DeleteUserSessions(userID, keep)
}

// RecordLogin notes a successful sign-in.
func (tx *Tx) RecordLogin(userID string) error {
	if _, err := tx.exec(`UPDATE users SET last_login_at = ? WHERE id = ?`, kyc.FormatTime(tx.now), userID); err != nil {
		return fmt.Errorf("record login: %w", err)
	}
	return nil
}

// SetTOTPSecret stores (sealed under the data key) or, with nil, removes
// a user's second-factor secret.
func (tx *Tx) SetTOTPSecret(userID string, secret []byte) error {
	var sealed, keyID any
	if secret != nil {
		id, b, err := tx.keys.seal(secret, "totp:"+userID)
		if err != nil {
			return fmt.Errorf("seal totp secret: %w", err)
		}
		sealed, keyID = b, id
	}
	if _, err := tx.exec(`UPDATE users SET totp_secret = ?, totp_key_id = ?, totp_last_step = NULL, updated_at = ? WHERE id = ?`,
		sealed, keyID, kyc.FormatTime(tx.now), userID); err != nil {
		return fmt.Errorf("set totp secret: %w", err)
	}
	return nil
}

// FindTOTPSecret returns a user's second-factor secret and the last time
// step a code was accepted for (-1 for none); nil when they have none.
func (tx *Tx) FindTOTPSecret(userID string) ([]byte, int64, error) {
	var sealed []byte
	var keyID, last sql.NullInt64
	err := tx.queryRow(`SELECT totp_secret, totp_key_id, totp_last_step FROM users WHERE id = ?`, userID).Scan(&sealed, &keyID, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, kyc.Errorf(kyc.ENotFound, "User %s not found.", userID)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("find totp secret: %w", err)
	}
	if sealed == nil {
		return nil, -1, nil
	}
	secret, err := tx.keys.open(keyID.Int64, sealed, "totp:"+userID)
	if err != nil {
		return nil, 0, fmt.Errorf("open totp secret: %w", err)
	}
	if !last.Valid {
		return secret, -1, nil
	}
	return secret, last.Int64, nil
}

// UseTOTPStep records that a code of time step step was accepted, so the
// same code cannot be used again.
func (tx *Tx) UseTOTPStep(userID string, step int64) error {
	if _, err := tx.exec(`UPDATE users SET totp_last_step = ? WHERE id = ?`, step, userID); err != nil {
		return fmt.Errorf("use totp step: %w", err)
	}
	return nil
}

// SetRequireTOTP makes a second factor mandatory (or optional) for every
// user of the organization.
func (tx *Tx) SetRequireTOTP(orgID string, on bool) error {
	return tx.updateOrg(`UPDATE organizations SET require_totp = ? WHERE id = ?`, boolInt(on), orgID)
}

// RequireTOTP reports whether the organization requires a second factor.
func (s *Store) RequireTOTP(ctx context.Context, orgID string) (bool, error) {
	var on int
	err := readPool{s.readStmts}.QueryRowContext(ctx, `SELECT require_totp FROM organizations WHERE id = ?`, orgID).Scan(&on)
	if errors.Is(err, sql.ErrNoRows) {
		return false, kyc.Errorf(kyc.ENotFound, "Organization %s not found.", orgID)
	}
	if err != nil {
		return false, fmt.Errorf("find require_totp: %w", err)
	}
	return on == 1, nil
}

// Token purposes of user_tokens.
const TokenSetPassword = "set_password"

// IssueUserToken makes a one-time link token for the user, valid for ttl;
// earlier unused tokens of the same purpose stop working.
func (tx *Tx) IssueUserToken(userID, purpose string, ttl time.Duration) (string, error) {
	if _, err := tx.exec(`DELETE FROM user_tokens WHERE user_id = ? AND purpose = ?`, userID, purpose); err != nil {
		return "", fmt.Errorf("issue token: %w", err)
	}
	token := NewSecret(32)
	if _, err := tx.exec(`INSERT INTO user_tokens (token_hash, user_id, purpose, expires_at, created_at) VALUES (?, ?, ?, ?, ?)`,
		hashSecret(token), userID, purpose, kyc.FormatTime(tx.now.Add(ttl)), kyc.FormatTime(tx.now)); err != nil {
		return "", fmt.Errorf("issue token: %w", err)
	}
	return token, nil
}

// errBadToken is the one answer for a token that is unknown, used or
// expired: which one is nobody's business but the log's.
var errBadToken = &kyc.Error{Code: kyc.ENotFound, Message: "This link is not valid any more. Ask an administrator for a new one."}

// FindUserByToken returns the enabled user a valid, unused token belongs to.
func (s *Store) FindUserByToken(ctx context.Context, token, purpose string, now time.Time) (*kyc.User, error) {
	return findUserByToken(ctx, readPool{s.readStmts}, token, purpose, now)
}

func findUserByToken(ctx context.Context, q queryer, token, purpose string, now time.Time) (*kyc.User, error) {
	u, err := scanUser(q.QueryRowContext(ctx, `SELECT `+userColumns+` FROM user_tokens t JOIN users u ON u.id = t.user_id
		WHERE t.token_hash = ? AND t.purpose = ? AND t.used_at IS NULL AND t.expires_at > ? AND u.disabled_at IS NULL`,
		hashSecret(token), purpose, kyc.FormatTime(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errBadToken
	}
	if err != nil {
		return nil, fmt.Errorf("find user by token: %w", err)
	}
	return u, nil
}

// UseUserToken consumes a valid token and returns its user.
func (tx *Tx) UseUserToken(token, purpose string) (*kyc.User, error) {
	u, err := findUserByToken(context.Background(), tx.q, token, purpose, tx.now)
	if err != nil {
		return nil, err
	}
	if _, err := tx.exec(`UPDATE user_tokens SET used_at = ? WHERE token_hash = ?`, kyc.FormatTime(tx.now), hashSecret(token)); err != nil {
		return nil, fmt.Errorf("use token: %w", err)
	}
	return u, nil
}

func hashSecret(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}
