package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"kycd/kyc"
)

// CallbackSecret is an organization's signing secret, in one environment,
// for deliveries to the callbackUrl of its KYC requests.
type CallbackSecret struct {
	OrganizationID string
	Environment    kyc.Environment
	// Secret and PreviousSecret are in clear only when read for a delivery
	// and right after creation or rotation (the one time it is shown).
	Secret         string
	PreviousSecret string
	PreviousUntil  *time.Time // end of the last rotation's overlap
	DualSign       bool       // sign with PreviousSecret too until PreviousUntil
	CreatedAt      time.Time
	RotatedAt      *time.Time
}

// callbackAAD binds a sealed callback secret to its row.
func callbackAAD(orgID string, env kyc.Environment) []byte {
	return []byte("callback " + orgID + " " + string(env))
}

// EnsureCallbackSecret returns the organization's callback secret in env,
// creating it when there is none yet. created tells whether it was made
// now; only then is Secret filled in (the one time it is shown).
func (tx *Tx) EnsureCallbackSecret(box Sealer, orgID string, env kyc.Environment) (cs *CallbackSecret, created bool, err error) {
	if box == nil {
		return nil, false, errNoSecrets
	}
	cs, err = findCallbackSecret(context.Background(), tx.q, nil, orgID, env)
	if err == nil {
		return cs, false, nil
	}
	if kyc.ErrorCode(err) != kyc.ENotFound {
		return nil, false, err
	}
	cs = &CallbackSecret{OrganizationID: orgID, Environment: env, Secret: "whsec_" + NewSecret(43), CreatedAt: tx.now}
	if _, err := tx.exec(`INSERT INTO callback_secrets (organization_id, environment, secret, created_at) VALUES (?, ?, ?, ?)`,
		orgID, string(env), box.Seal([]byte(cs.Secret), callbackAAD(orgID, env)), kyc.FormatTime(tx.now)); err != nil {
		return nil, false, fmt.Errorf("insert callback secret: %w", err)
	}
	if err := tx.auditOperatorAction(orgID, env, "callback_secret", callbackResource(orgID, env), "callback_secret.created", ""); err != nil {
		return nil, false, err
	}
	return cs, true, nil
}

// callbackResource names a callback secret in the audit log.
func callbackResource(orgID string, env kyc.Environment) string {
	return "callback_secret/" + orgID + "/" + string(env)
}

// RotateCallbackSecret gives the organization a new callback secret in
// env (creating the first one when there is none) and returns it in
// clear. For overlap after now the previous secret is kept; deliveries
// are signed with it as well only when dualSign is set. dualSign nil
// keeps the current setting.
func (tx *Tx) RotateCallbackSecret(box Sealer, orgID string, env kyc.Environment, overlap time.Duration, dualSign *bool) (*CallbackSecret, error) {
	cs, created, err := tx.EnsureCallbackSecret(box, orgID, env)
	if err != nil {
		return nil, err
	}
	if dualSign != nil {
		cs.DualSign = *dualSign
	}
	if created {
		if _, err := tx.exec(`UPDATE callback_secrets SET dual_sign = ? WHERE organization_id = ? AND environment = ?`,
			boolInt(cs.DualSign), orgID, string(env)); err != nil {
			return nil, fmt.Errorf("rotate callback secret: %w", err)
		}
		return cs, nil
	}
	var current []byte
	if err := tx.queryRow(`SELECT secret FROM callback_secrets WHERE organization_id = ? AND environment = ?`, orgID, string(env)).
		Scan(&current); err != nil {
		return nil, err
	}
	var prev, until any
	cs.PreviousUntil = nil
	if overlap > 0 {
		t := tx.now.Add(overlap)
		prev, until, cs.PreviousUntil = current, kyc.FormatTime(t), &t
	}
	cs.Secret, cs.RotatedAt = "whsec_"+NewSecret(43), &tx.now
	if _, err := tx.exec(`UPDATE callback_secrets SET secret = ?, previous_secret = ?, previous_secret_until = ?, dual_sign = ?, rotated_at = ?
		WHERE organization_id = ? AND environment = ?`, box.Seal([]byte(cs.Secret), callbackAAD(orgID, env)), prev, until,
		boolInt(cs.DualSign), kyc.FormatTime(tx.now), orgID, string(env)); err != nil {
		return nil, fmt.Errorf("rotate callback secret: %w", err)
	}
	reason := "the old secret stops signing now"
	if cs.PreviousUntil != nil {
		reason = "the old secret stays valid until " + kyc.FormatTime(*cs.PreviousUntil)
	}
	if err := tx.auditOperatorAction(orgID, env, "callback_secret", callbackResource(orgID, env), "callback_secret.rotated", reason); err != nil {
		return nil, err
	}
	return cs, nil
}

// FindCallbackSecret returns the organization's callback secret in env
// without the secret itself; NOT_FOUND when it has none yet.
func (s *Store) FindCallbackSecret(ctx context.Context, orgID string, env kyc.Environment) (*CallbackSecret, error) {
	return findCallbackSecret(ctx, readPool{s.readStmts}, nil, orgID, env)
}

// findCallbackSecret reads the row; with box it also opens the secrets.
func findCallbackSecret(ctx context.Context, q queryer, box Sealer, orgID string, env kyc.Environment) (*CallbackSecret, error) {
	cs := &CallbackSecret{OrganizationID: orgID, Environment: env}
	var secret, prev []byte
	var until, rotated sql.NullString
	var created string
	err := q.QueryRowContext(ctx, `SELECT secret, previous_secret, previous_secret_until, dual_sign, created_at, rotated_at
		FROM callback_secrets WHERE organization_id = ? AND environment = ?`, orgID, string(env)).
		Scan(&secret, &prev, &until, &cs.DualSign, &created, &rotated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "There is no %s callback secret yet: it is made with the first KYC request that has a callbackUrl, or by rotating it.", env)
	}
	if err != nil {
		return nil, fmt.Errorf("find callback secret: %w", err)
	}
	cs.CreatedAt, cs.RotatedAt, cs.PreviousUntil = parseTime(created), optTime(rotated), optTime(until)
	if box == nil {
		return cs, nil
	}
	plain, err := box.Open(secret, callbackAAD(orgID, env))
	if err != nil {
		return nil, fmt.Errorf("open callback secret: %w", err)
	}
	cs.Secret = string(plain)
	if prev != nil && cs.PreviousUntil != nil {
		if p, err := box.Open(prev, callbackAAD(orgID, env)); err == nil {
			cs.PreviousSecret = string(p)
		}
	}
	return cs, nil
}
