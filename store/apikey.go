package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"kycd/kyc"
)

// NewAPIKeyParams describes a key to create.
type NewAPIKeyParams struct {
	OrganizationID string
	Environment    kyc.Environment
	Tier           kyc.Tier
	RPMOverride    *int
	Name           string
}

// CreateAPIKey creates a key and returns it with the full token, which is
// never stored and so can never be shown again.
func (tx *Tx) CreateAPIKey(p NewAPIKeyParams) (*kyc.APIKey, string, error) {
	if !p.Environment.Valid() {
		return nil, "", kyc.Errorf(kyc.EValidation, "Environment must be sandbox or live.")
	}
	if p.Tier == "" {
		p.Tier = kyc.TierFree
	}
	if !p.Tier.Valid() {
		return nil, "", kyc.Errorf(kyc.EValidation, "Tier must be free, starter or pro.")
	}
	if p.RPMOverride != nil && *p.RPMOverride < 0 {
		return nil, "", kyc.Errorf(kyc.EValidation, "The requests-per-minute override must be 0 (unlimited) or more.")
	}
	if p.RPMOverride != nil && *p.RPMOverride > kyc.MaxRPM {
		return nil, "", kyc.Errorf(kyc.EValidation, "The requests-per-minute override must be at most %d; use 0 for no limit.", kyc.MaxRPM)
	}
	secret := NewSecret(kyc.SecretLen)
	sum := sha256.Sum256([]byte(secret))
	k := &kyc.APIKey{ID: NewULID(tx.now), OrganizationID: p.OrganizationID, Environment: p.Environment,
		Tier: p.Tier, RPMOverride: p.RPMOverride, Name: p.Name, SecretHash: sum[:], CreatedAt: tx.now}
	var rpm any
	if p.RPMOverride != nil {
		rpm = *p.RPMOverride
	}
	_, err := tx.exec(`INSERT INTO api_keys (id, organization_id, environment, tier, rpm_override, name, secret_hash, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.OrganizationID, string(k.Environment), string(k.Tier), rpm, k.Name, k.SecretHash, kyc.FormatTime(tx.now))
	if err != nil {
		if errors.Is(err, errUnique) {
			return nil, "", fmt.Errorf("insert api key: %w", err)
		}
		var n int
		if e := tx.queryRow(`SELECT count(*) FROM organizations WHERE id = ?`, p.OrganizationID).Scan(&n); e == nil && n == 0 {
			return nil, "", kyc.Errorf(kyc.ENotFound, "Organization %s not found.", p.OrganizationID)
		}
		return nil, "", fmt.Errorf("insert api key: %w", err)
	}
	limit := strconv.Itoa(k.RequestsPerMinute()) + "/min"
	if limit == "0/min" {
		limit = "unlimited"
	}
	reason := fmt.Sprintf("%s, tier %s, limit %s, name %q", k.Prefix(), k.Tier, limit, k.Name)
	if err := tx.auditOperatorAction(k.OrganizationID, k.Environment, "api_key", k.ID, "api_key.created", reason); err != nil {
		return nil, "", err
	}
	return k, k.Prefix() + "." + secret, nil
}

// RevokeAPIKey marks the key revoked; the next request with it gets 401.
// Revoking a revoked key keeps the first revocation time (and writes no
// second audit row).
func (tx *Tx) RevokeAPIKey(id string) (*kyc.APIKey, error) {
	res, err := tx.exec(`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?`, kyc.FormatTime(tx.now), id)
	if err != nil {
		return nil, fmt.Errorf("revoke api key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, kyc.Errorf(kyc.ENotFound, "API key %s not found.", id)
	}
	k, err := scanAPIKey(tx.queryRow(`SELECT `+apiKeyColumns+` FROM api_keys WHERE id = ?`, id))
	if err != nil || !k.RevokedAt.Equal(tx.now) {
		return k, err
	}
	return k, tx.auditOperatorAction(k.OrganizationID, k.Environment, "api_key", k.ID, "api_key.revoked", k.Prefix())
}

const apiKeyColumns = `id, organization_id, environment, tier, rpm_override, name, secret_hash, created_at, revoked_at`

// FindAPIKey returns the key with the given id (the ULID part), revoked or
// not, or NOT_FOUND. The auth middleware calls it on every request, on the
// read pool, so a revocation by another process is seen at once.
func (s *Store) FindAPIKey(ctx context.Context, id string) (*kyc.APIKey, error) {
	return scanAPIKey(readPool{s.readStmts}.QueryRowContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE id = ?`, id))
}

// FindAPIKeys lists keys, of one organization when orgID is not empty,
// oldest first.
func (s *Store) FindAPIKeys(ctx context.Context, orgID string) ([]*kyc.APIKey, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+apiKeyColumns+` FROM api_keys
		WHERE ? = '' OR organization_id = ? ORDER BY id`, orgID, orgID)
	if err != nil {
		return nil, fmt.Errorf("find api keys: %w", err)
	}
	defer rows.Close()
	var keys []*kyc.APIKey
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

type scanner interface{ Scan(...any) error }

func scanAPIKey(row scanner) (*kyc.APIKey, error) {
	var k kyc.APIKey
	var env, tier, created string
	var rpm sql.NullInt64
	var revoked sql.NullString
	err := row.Scan(&k.ID, &k.OrganizationID, &env, &tier, &rpm, &k.Name, &k.SecretHash, &created, &revoked)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "API key not found.")
	}
	if err != nil {
		return nil, fmt.Errorf("scan api key: %w", err)
	}
	k.Environment, k.Tier = kyc.Environment(env), kyc.Tier(tier)
	if rpm.Valid {
		v := int(rpm.Int64)
		k.RPMOverride = &v
	}
	k.CreatedAt = parseTime(created)
	if revoked.Valid {
		t := parseTime(revoked.String)
		k.RevokedAt = &t
	}
	return &k, nil
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(kyc.TimeFormat, s) // written by us in this format
	return t
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func ptrString(ns sql.NullString) *string {
	if !ns.Valid {
		return nil
	}
	return &ns.String
}
