package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"kycd/kyc"
)

// IdempotencyTTL is how long a cached response is replayed (spec §7.3).
const IdempotencyTTL = 24 * time.Hour

// IdempotentResponse is a cached 2xx response of a POST.
type IdempotentResponse struct {
	RequestHash []byte
	StatusCode  int
	Body        []byte
	CreatedAt   time.Time
}

// ErrIdempotencyRace is returned by SaveIdempotentResponse when another
// request with the same key committed first. The caller's transaction must
// fail so that nothing it created is kept; the caller then replays.
var ErrIdempotencyRace = errors.New("store: idempotency key used concurrently")

// A stored response is sealed with the data key (datakey.go), bound to its
// organization, environment and key: it may carry a secret shown once (a
// webhook signing secret) or a credential (a portal link), and docs/security.md
// promises those are stored only hashed or encrypted. Sealing every
// response, not only those that carry a secret, means a new endpoint that
// returns one cannot be forgotten.

func idempotencyAAD(orgID string, env kyc.Environment, key string) string {
	return "idempotency\x00" + orgID + "\x00" + string(env) + "\x00" + key
}

// FindIdempotentResponse returns the unexpired cached response for the key,
// or nil.
func (s *Store) FindIdempotentResponse(ctx context.Context, orgID string, env kyc.Environment, key string, now time.Time) (*IdempotentResponse, error) {
	var r IdempotentResponse
	var created string
	var keyID sql.NullInt64
	err := readPool{s.readStmts}.QueryRowContext(ctx, `SELECT request_hash, status_code, response_body, response_key_id, created_at FROM idempotency_keys
		WHERE organization_id = ? AND environment = ? AND key = ? AND expires_at > ?`,
		orgID, string(env), key, kyc.FormatTime(now)).Scan(&r.RequestHash, &r.StatusCode, &r.Body, &keyID, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find idempotency key: %w", err)
	}
	if keyID.Valid { // NULL: stored in clear before the sealed_outbox migration, not yet sealed
		if r.Body, err = s.keys.open(keyID.Int64, r.Body, idempotencyAAD(orgID, env, key)); err != nil {
			return nil, fmt.Errorf("find idempotency key: %w", err)
		}
	}
	r.CreatedAt = parseTime(created)
	return &r, nil
}

// SaveIdempotentResponse stores a 2xx response in the caller's transaction,
// replacing an expired entry for the same key. It returns
// ErrIdempotencyRace when an unexpired entry exists.
func (tx *Tx) SaveIdempotentResponse(orgID string, env kyc.Environment, key string, r *IdempotentResponse) error {
	now := kyc.FormatTime(tx.now)
	keyID, sealed, err := tx.keys.seal(r.Body, idempotencyAAD(orgID, env, key))
	if err != nil {
		return fmt.Errorf("save idempotency key: %w", err)
	}
	res, err := tx.exec(`INSERT INTO idempotency_keys
		(organization_id, environment, key, request_hash, status_code, response_body, response_key_id, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (organization_id, environment, key) DO UPDATE SET
			request_hash = excluded.request_hash, status_code = excluded.status_code, response_body = excluded.response_body,
			response_key_id = excluded.response_key_id, created_at = excluded.created_at, expires_at = excluded.expires_at
		WHERE idempotency_keys.expires_at <= ?`,
		orgID, string(env), key, r.RequestHash, r.StatusCode, sealed, keyID, now,
		kyc.FormatTime(tx.now.Add(IdempotencyTTL)), now)
	if err != nil {
		return fmt.Errorf("save idempotency key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrIdempotencyRace
	}
	return nil
}

// PurgeIdempotencyKeys deletes expired entries, at most limit of them, and
// returns how many it deleted. Small batches keep the write lock short.
func (tx *Tx) PurgeIdempotencyKeys(limit int) (int, error) {
	res, err := tx.exec(`DELETE FROM idempotency_keys WHERE (organization_id, environment, key) IN (
		SELECT organization_id, environment, key FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)`,
		kyc.FormatTime(tx.now), limit)
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}
