package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
)

// FindWebhookEndpoint returns an endpoint of the organization: NOT_FOUND
// for another organization's or a deleted one, wrong_environment for the
// other environment's.
func (s *Store) FindWebhookEndpoint(ctx context.Context, orgID string, env kyc.Environment, id string) (*kyc.WebhookEndpoint, error) {
	return findWebhookEndpoint(ctx, readPool{s.readStmts}, orgID, env, id)
}

// FindWebhookEndpoint is Store.FindWebhookEndpoint inside a transaction.
func (tx *Tx) FindWebhookEndpoint(orgID string, env kyc.Environment, id string) (*kyc.WebhookEndpoint, error) {
	return findWebhookEndpoint(context.Background(), tx.q, orgID, env, id)
}

// FindWebhookEndpointsPage returns one page of an environment's endpoints,
// newest first, and the total.
func (s *Store) FindWebhookEndpointsPage(ctx context.Context, orgID string, env kyc.Environment, page, size int) ([]*kyc.WebhookEndpoint, int, error) {
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM webhook_endpoints WHERE organization_id = ? AND environment = ? AND deleted_at IS NULL`,
		orgID, string(env)).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count webhook endpoints: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE organization_id = ? AND environment = ? AND deleted_at IS NULL ORDER BY id DESC LIMIT ? OFFSET ?`,
		orgID, string(env), size, (page-1)*size)
	if err != nil {
		return nil, 0, fmt.Errorf("find webhook endpoints: %w", err)
	}
	defer rows.Close()
	list := []*kyc.WebhookEndpoint{}
	for rows.Next() {
		e, err := scanEndpoint(rows)
		if err != nil {
			return nil, 0, err
		}
		list = append(list, e)
	}
	return list, total, rows.Err()
}

// WebhookEndpointUpdate holds the fields a PATCH may change; nil: no change.
type WebhookEndpointUpdate struct {
	URL         *string
	Description *string
	EventTypes  *[]kyc.EventType
	Enabled     *bool
	DualSign    *bool
}

// UpdateWebhookEndpoint applies a validated update. Enabling clears the
// disabled reason; disabling records that the API did it.
func (tx *Tx) UpdateWebhookEndpoint(orgID string, env kyc.Environment, id string, u WebhookEndpointUpdate) (*kyc.WebhookEndpoint, error) {
	e, err := findWebhookEndpoint(context.Background(), tx.q, orgID, env, id)
	if err != nil {
		return nil, err
	}
	var changed []string
	if u.URL != nil && *u.URL != e.URL {
		changed = append(changed, "url: "+e.URL+" → "+*u.URL)
	}
	if u.EventTypes != nil {
		before, _ := json.Marshal(e.EventTypes)
		after, _ := json.Marshal(*u.EventTypes)
		if string(before) != string(after) {
			changed = append(changed, "events: "+string(before)+" → "+string(after))
		}
	}
	if u.Description != nil && *u.Description != e.Description {
		changed = append(changed, "description changed")
	}
	if u.URL != nil {
		e.URL = *u.URL
	}
	if u.Description != nil {
		e.Description = *u.Description
	}
	if u.EventTypes != nil {
		e.EventTypes = *u.EventTypes
	}
	if u.DualSign != nil {
		e.DualSign = *u.DualSign
	}
	types, _ := json.Marshal(e.EventTypes)
	if _, err := tx.exec(`UPDATE webhook_endpoints SET url = ?, description = ?, event_types = ?, dual_sign = ?, updated_at = ? WHERE id = ?`,
		e.URL, e.Description, string(types), boolInt(e.DualSign), kyc.FormatTime(tx.now), e.ID); err != nil {
		return nil, fmt.Errorf("update webhook endpoint: %w", err)
	}
	if len(changed) > 0 {
		if err := tx.auditOperatorAction(orgID, env, "webhook_endpoint", e.ID, "webhook_endpoint.updated", strings.Join(changed, "; ")); err != nil {
			return nil, err
		}
	}
	if u.Enabled != nil && *u.Enabled != e.Enabled {
		return tx.SetWebhookEndpointEnabled(orgID, env, id, *u.Enabled, "disabled through the API")
	}
	return findWebhookEndpoint(context.Background(), tx.q, orgID, env, id)
}

// DeleteWebhookEndpoint removes an endpoint from use; its deliveries and
// their attempts stay, for the record.
func (tx *Tx) DeleteWebhookEndpoint(orgID string, env kyc.Environment, id string) error {
	if _, err := findWebhookEndpoint(context.Background(), tx.q, orgID, env, id); err != nil {
		return err
	}
	if _, err := tx.exec(`UPDATE webhook_endpoints SET deleted_at = ?, enabled = 0, updated_at = ? WHERE id = ?`,
		kyc.FormatTime(tx.now), kyc.FormatTime(tx.now), id); err != nil {
		return err
	}
	return tx.auditOperatorAction(orgID, env, "webhook_endpoint", id, "webhook_endpoint.deleted", "")
}

// RotateWebhookSecret gives the endpoint a new secret and returns it in
// clear. Deliveries are signed with the new secret alone (spec §6.4: one
// sig=), unless the endpoint signs dually: then until now+overlap they
// carry a second signature with the old secret, so receivers can switch
// without dropping any. dualSign, when given, sets that for the endpoint;
// overlap 0 drops the old secret at once.
func (tx *Tx) RotateWebhookSecret(box Sealer, orgID string, env kyc.Environment, id string, overlap time.Duration, dualSign *bool) (*kyc.WebhookEndpoint, error) {
	if box == nil {
		return nil, errNoSecrets
	}
	e, err := findWebhookEndpoint(context.Background(), tx.q, orgID, env, id)
	if err != nil {
		return nil, err
	}
	var current []byte
	if err := tx.queryRow(`SELECT secret FROM webhook_endpoints WHERE id = ?`, id).Scan(&current); err != nil {
		return nil, err
	}
	var prev, until any
	e.PreviousSecretUntil = nil
	if overlap > 0 {
		t := tx.now.Add(overlap)
		prev, until, e.PreviousSecretUntil = current, kyc.FormatTime(t), &t
	}
	if dualSign != nil {
		e.DualSign = *dualSign
	}
	e.Secret = "whsec_" + NewSecret(43)
	if _, err := tx.exec(`UPDATE webhook_endpoints SET secret = ?, previous_secret = ?, previous_secret_until = ?, dual_sign = ?, updated_at = ? WHERE id = ?`,
		box.Seal([]byte(e.Secret), []byte(id)), prev, until, boolInt(e.DualSign), kyc.FormatTime(tx.now), id); err != nil {
		return nil, fmt.Errorf("rotate secret: %w", err)
	}
	e.UpdatedAt = tx.now
	if err := tx.auditOperatorAction(orgID, env, "webhook_endpoint", id, "webhook_endpoint.secret_rotated",
		"the old secret signs until "+kyc.FormatTime(tx.now.Add(overlap))); err != nil {
		return nil, err
	}
	return e, nil
}

// CountEvents counts the organization's events of one type in env.
func (s *Store) CountEvents(ctx context.Context, orgID string, env kyc.Environment, typ string) (int, error) {
	var n int
	err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE organization_id = ? AND environment = ? AND type = ?`,
		orgID, string(env), typ).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count events: %w", err)
	}
	return n, nil
}
