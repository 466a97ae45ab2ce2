package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"kycd/kyc"
)

// KindWebhookDeliver is the job that makes one delivery's attempts.
const KindWebhookDeliver = "webhook.deliver"

// WebhookMaxAttempts is the first attempt plus the five retries of §6.3.
const WebhookMaxAttempts = 6

// DeliveryJob is the payload of a webhook.deliver job.
type DeliveryJob struct {
	DeliveryID string `json:"deliveryId"`
	// Replay marks a one-off attempt asked for through the API: it is not
	// retried and its failure does not disable the endpoint.
	Replay bool `json:"replay,omitempty"`
}

var errNoSecrets = errors.New("store: no secrets key configured: webhook secrets cannot be sealed")

// NewWebhookEndpoint describes an endpoint to create.
type NewWebhookEndpoint struct {
	OrganizationID string
	Environment    kyc.Environment
	URL            string
	Description    string
	EventTypes     []kyc.EventType
	DualSign       bool // sign with the previous secret too during a rotation's overlap
}

// CreateWebhookEndpoint stores an endpoint with a new signing secret and
// returns it with the secret in clear, the only time it is available.
func (tx *Tx) CreateWebhookEndpoint(box Sealer, n NewWebhookEndpoint) (*kyc.WebhookEndpoint, error) {
	if box == nil {
		return nil, errNoSecrets
	}
	e := &kyc.WebhookEndpoint{ID: "we_" + NewULID(tx.now), OrganizationID: n.OrganizationID, Environment: n.Environment,
		URL: n.URL, Description: n.Description, EventTypes: n.EventTypes, Enabled: true, DualSign: n.DualSign,
		CreatedAt: tx.now, UpdatedAt: tx.now, Secret: "whsec_" + NewSecret(43)}
	if e.EventTypes == nil {
		e.EventTypes = []kyc.EventType{}
	}
	types, _ := json.Marshal(e.EventTypes)
	_, err := tx.exec(`INSERT INTO webhook_endpoints (id, organization_id, environment, url, description, event_types, secret, dual_sign, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, e.ID, e.OrganizationID, string(e.Environment), e.URL, e.Description, string(types),
		box.Seal([]byte(e.Secret), []byte(e.ID)), boolInt(e.DualSign), kyc.FormatTime(tx.now), kyc.FormatTime(tx.now))
	if err != nil {
		return nil, fmt.Errorf("insert webhook endpoint: %w", err)
	}
	if err := tx.auditOperatorAction(e.OrganizationID, e.Environment, "webhook_endpoint", e.ID, "webhook_endpoint.created",
		"url: "+e.URL+"; events: "+string(types)); err != nil {
		return nil, err
	}
	return e, nil
}

// Sealer seals and opens secrets (seal.Box).
type Sealer interface {
	Seal(plaintext, aad []byte) []byte
	Open(sealed, aad []byte) ([]byte, error)
}

// SetWebhookEndpointEnabled enables or disables an endpoint; reason is kept
// for a disabled one.
func (tx *Tx) SetWebhookEndpointEnabled(orgID string, env kyc.Environment, id string, enabled bool, reason string) (*kyc.WebhookEndpoint, error) {
	var disabledAt any
	var why any
	if !enabled {
		disabledAt, why = kyc.FormatTime(tx.now), reason
	}
	res, err := tx.exec(`UPDATE webhook_endpoints SET enabled = ?, disabled_reason = ?, disabled_at = ?, updated_at = ?
		WHERE id = ? AND organization_id = ? AND environment = ? AND deleted_at IS NULL`, enabled, why, disabledAt, kyc.FormatTime(tx.now), id, orgID, string(env))
	if err != nil {
		return nil, fmt.Errorf("update webhook endpoint: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, kyc.Errorf(kyc.ENotFound, "Webhook endpoint %s not found.", id)
	}
	action, note := "webhook_endpoint.enabled", ""
	if !enabled {
		action, note = "webhook_endpoint.disabled", reason
	}
	if err := tx.auditOperatorAction(orgID, env, "webhook_endpoint", id, action, note); err != nil {
		return nil, err
	}
	return findWebhookEndpoint(context.Background(), tx.q, orgID, env, id)
}

const endpointColumns = `id, organization_id, environment, url, description, event_types, enabled, coalesce(disabled_reason, ''), disabled_at,
	dual_sign, previous_secret_until, created_at, updated_at`

// FindWebhookEndpoints lists the endpoints of an organization's environment
// (orgID empty: every organization, for the operator CLI), oldest first.
func (s *Store) FindWebhookEndpoints(ctx context.Context, orgID string, env kyc.Environment) ([]*kyc.WebhookEndpoint, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE (?1 = '' OR organization_id = ?1) AND (?2 = '' OR environment = ?2) AND deleted_at IS NULL ORDER BY id`, orgID, string(env))
	if err != nil {
		return nil, fmt.Errorf("find webhook endpoints: %w", err)
	}
	defer rows.Close()
	var out []*kyc.WebhookEndpoint
	for rows.Next() {
		e, err := scanEndpoint(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func findWebhookEndpoint(ctx context.Context, q queryer, orgID string, env kyc.Environment, id string) (*kyc.WebhookEndpoint, error) {
	e, err := scanEndpoint(q.QueryRowContext(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints
		WHERE id = ? AND organization_id = ? AND deleted_at IS NULL`, id, orgID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "Webhook endpoint %s not found.", id)
	}
	if err != nil {
		return nil, err
	}
	if e.Environment != env {
		return nil, wrongEnvironment("Webhook endpoint", id, e.Environment, env)
	}
	return e, nil
}

func scanEndpoint(row scanner) (*kyc.WebhookEndpoint, error) {
	var e kyc.WebhookEndpoint
	var env, types, created, updated string
	var disabledAt, prevUntil sql.NullString
	if err := row.Scan(&e.ID, &e.OrganizationID, &env, &e.URL, &e.Description, &types, &e.Enabled, &e.DisabledReason,
		&disabledAt, &e.DualSign, &prevUntil, &created, &updated); err != nil {
		return nil, err
	}
	e.PreviousSecretUntil = optTime(prevUntil)
	e.Environment = kyc.Environment(env)
	if err := json.Unmarshal([]byte(types), &e.EventTypes); err != nil {
		return nil, fmt.Errorf("decode event types: %w", err)
	}
	e.CreatedAt, e.UpdatedAt = parseTime(created), parseTime(updated)
	if disabledAt.Valid {
		t := parseTime(disabledAt.String)
		e.DisabledAt = &t
	}
	return &e, nil
}

// NewEvent starts an event with its id and time, so that its payload can
// carry them (eventId, createdAt) before RecordEvent stores it.
func (tx *Tx) NewEvent(orgID string, env kyc.Environment, typ kyc.EventType, resourceID string) *kyc.Event {
	return &kyc.Event{ID: "kev_" + NewULID(tx.now), OrganizationID: orgID, Environment: env, Type: typ,
		ResourceID: resourceID, CreatedAt: tx.now}
}

// RecordEvent stores an event and, in the same transaction, a delivery and
// its job for every enabled endpoint of the event's organization and
// environment that subscribes to its type, and one to ev.CallbackURL when
// set. With onlyEndpoint set (test events) only that endpoint gets it,
// whatever it subscribes to: "Send test event" (spec §6.2) tests the
// endpoint, and an endpoint that subscribes only to, say, approvals must
// be testable too. It returns the delivery ids, the callback's last.
func (tx *Tx) RecordEvent(ev *kyc.Event, onlyEndpoint string) ([]string, error) {
	if ev.ID == "" {
		ev.ID, ev.CreatedAt = "kev_"+NewULID(tx.now), tx.now
	}
	if _, err := tx.exec(`INSERT INTO events (id, organization_id, environment, type, resource_id, payload, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, ev.ID, ev.OrganizationID, string(ev.Environment), string(ev.Type), ev.ResourceID,
		ev.Payload, kyc.FormatTime(tx.now)); err != nil {
		return nil, fmt.Errorf("insert event: %w", err)
	}
	rows, err := tx.q.QueryContext(context.Background(), `SELECT id FROM webhook_endpoints
		WHERE organization_id = ? AND environment = ? AND enabled = 1 AND deleted_at IS NULL AND (? = '' OR id = ?)
		AND (? <> '' OR event_types = '[]' OR `+tx.eng.jsonArrayHas("event_types")+`) ORDER BY id`,
		ev.OrganizationID, string(ev.Environment), onlyEndpoint, onlyEndpoint, onlyEndpoint, string(ev.Type))
	if err != nil {
		return nil, fmt.Errorf("find subscribers: %w", err)
	}
	var endpoints []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		endpoints = append(endpoints, id)
	}
	rows.Close()
	var ids []string
	for _, ep := range endpoints {
		id, err := tx.createDelivery(ev, ep, "")
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if ev.CallbackURL != "" && onlyEndpoint == "" {
		id, err := tx.createDelivery(ev, "", ev.CallbackURL)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// createDelivery queues ev for an endpoint or, with endpointID empty, for
// callbackURL.
func (tx *Tx) createDelivery(ev *kyc.Event, endpointID, callbackURL string) (string, error) {
	id := "whd_" + NewULID(tx.now)
	if _, err := tx.exec(`INSERT INTO webhook_deliveries (id, organization_id, environment, endpoint_id, callback_url, event_id, event_type, status, next_attempt_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`, id, ev.OrganizationID, string(ev.Environment), nullString(endpointID),
		nullString(callbackURL), ev.ID, string(ev.Type), kyc.FormatTime(tx.now), kyc.FormatTime(tx.now), kyc.FormatTime(tx.now)); err != nil {
		return "", fmt.Errorf("insert delivery: %w", err)
	}
	payload, _ := json.Marshal(DeliveryJob{DeliveryID: id})
	if _, err := tx.EnqueueJob(NewJob{Kind: KindWebhookDeliver, Payload: payload, MaxAttempts: WebhookMaxAttempts}); err != nil {
		return "", err
	}
	return id, nil
}

// DeliveryWork is what one attempt needs: the delivery, where it goes,
// the secrets to sign with in clear, and the body to send.
type DeliveryWork struct {
	DeliveryID     string
	Status         string
	EventID        string
	EventType      kyc.EventType
	Body           []byte
	OrganizationID string
	Environment    kyc.Environment
	Attempts       int // attempts made so far (replays continue the count)
	// Endpoint is the endpoint it goes to, with its secrets; nil for a
	// delivery to CallbackURL.
	Endpoint     *kyc.WebhookEndpoint
	ContactEmail string
	// CallbackURL is the request's callbackUrl, for a delivery that goes
	// there; Callback then holds the organization's callback secrets (nil
	// when it has none, which only a request from before callback
	// secrets existed can meet).
	CallbackURL string
	Callback    *CallbackSecret
	// PreviousUntil ends the overlap of the last rotation of the secret
	// in use, nil when there is none.
	PreviousUntil *time.Time
}

// URL is where the delivery goes.
func (w *DeliveryWork) URL() string {
	if w.Endpoint != nil {
		return w.Endpoint.URL
	}
	return w.CallbackURL
}

// LoadDeliveryWork reads a delivery for its next attempt.
func (s *Store) LoadDeliveryWork(ctx context.Context, box Sealer, deliveryID string) (*DeliveryWork, error) {
	if box == nil {
		return nil, errNoSecrets
	}
	var w DeliveryWork
	var env string
	var endpointID, callbackURL, email sql.NullString
	err := s.reader.QueryRowContext(ctx, `SELECT d.status, d.attempts, d.event_id, d.event_type, d.organization_id, d.environment,
			d.endpoint_id, d.callback_url, e.payload, o.contact_email
		FROM webhook_deliveries d JOIN events e ON e.id = d.event_id JOIN organizations o ON o.id = d.organization_id WHERE d.id = ?`, deliveryID).
		Scan(&w.Status, &w.Attempts, &w.EventID, &w.EventType, &w.OrganizationID, &env, &endpointID, &callbackURL, &w.Body, &email)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "Delivery %s not found.", deliveryID)
	}
	if err != nil {
		return nil, fmt.Errorf("load delivery: %w", err)
	}
	w.DeliveryID, w.Environment, w.ContactEmail = deliveryID, kyc.Environment(env), email.String
	if !endpointID.Valid {
		w.CallbackURL = callbackURL.String
		w.Callback, err = findCallbackSecret(ctx, readPool{s.readStmts}, box, w.OrganizationID, w.Environment)
		if kyc.ErrorCode(err) == kyc.ENotFound {
			return &w, nil
		}
		if err != nil {
			return nil, err
		}
		w.PreviousUntil = w.Callback.PreviousUntil
		return &w, nil
	}
	var secret, prev []byte
	if err := s.reader.QueryRowContext(ctx, `SELECT secret, previous_secret FROM webhook_endpoints WHERE id = ?`, endpointID.String).
		Scan(&secret, &prev); err != nil {
		return nil, fmt.Errorf("load endpoint secrets: %w", err)
	}
	if w.Endpoint, err = findWebhookEndpoint(ctx, readPool{s.readStmts}, w.OrganizationID, w.Environment, endpointID.String); err != nil {
		return nil, err
	}
	plain, err := box.Open(secret, []byte(endpointID.String))
	if err != nil {
		return nil, fmt.Errorf("open endpoint secret: %w", err)
	}
	w.Endpoint.Secret = string(plain)
	if prev != nil && w.Endpoint.PreviousSecretUntil != nil {
		if p, err := box.Open(prev, []byte(endpointID.String)); err == nil {
			w.Endpoint.PreviousSecret, w.PreviousUntil = string(p), w.Endpoint.PreviousSecretUntil
		}
	}
	return &w, nil
}

// Attempt is one recorded delivery attempt.
type Attempt struct {
	DeliveryID      string
	Attempt         int
	RequestHeaders  map[string]string
	ResponseStatus  int // 0: no response
	ResponseExcerpt string
	BodyWithheld    bool // the receiver's address was not public: its answer was not kept
	Duration        time.Duration
	Error           string
	StartedAt       time.Time
	NextRetryAt     *time.Time
}

// AttemptOutcome is what an attempt did to its delivery.
type AttemptOutcome int

// Outcomes of RecordAttempt.
const (
	AttemptDelivered AttemptOutcome = iota
	AttemptRetry
	AttemptFailed // the last attempt failed: the delivery is failed
)

// NotifiedDisable reports whether RecordAttempt, disabling w's endpoint,
// queues an e-mail about it: only to an organization with a contact
// address.
func NotifiedDisable(w *DeliveryWork) bool { return w.ContactEmail != "" }

// RecordAttempt stores an attempt and moves the delivery on. A final
// failure with a disableReason also disables the endpoint with it and
// queues the e-mail to the organization's contact address, in the same
// transaction; a delivery to a callback URL has no endpoint to disable.
func (tx *Tx) RecordAttempt(a Attempt, outcome AttemptOutcome, w *DeliveryWork, disableReason string) error {
	headers, _ := json.Marshal(a.RequestHeaders)
	var status, next any
	if a.ResponseStatus != 0 {
		status = a.ResponseStatus
	}
	if a.NextRetryAt != nil {
		next = kyc.FormatTime(*a.NextRetryAt)
	}
	if _, err := tx.exec(`INSERT INTO webhook_attempts (delivery_id, attempt, request_headers, response_status, response_excerpt,
			response_body_withheld, duration_ms, error, started_at, next_retry_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.DeliveryID, a.Attempt, string(headers), status, a.ResponseExcerpt,
		boolInt(a.BodyWithheld), a.Duration.Milliseconds(), a.Error, kyc.FormatTime(a.StartedAt), next); err != nil {
		return fmt.Errorf("insert attempt: %w", err)
	}
	newStatus, delivered := "pending", any(nil)
	switch outcome {
	case AttemptDelivered:
		newStatus, delivered, next = "delivered", kyc.FormatTime(tx.now), nil
	case AttemptFailed:
		newStatus, next = "failed", nil
	}
	if _, err := tx.exec(`UPDATE webhook_deliveries SET status = ?, attempts = ?, last_status_code = ?, next_attempt_at = ?,
		delivered_at = ?, updated_at = ? WHERE id = ?`, newStatus, a.Attempt, status, next, delivered, kyc.FormatTime(tx.now), a.DeliveryID); err != nil {
		return fmt.Errorf("update delivery: %w", err)
	}
	if outcome != AttemptFailed || disableReason == "" || w.Endpoint == nil {
		return nil
	}
	ep := w.Endpoint
	if _, err := tx.SetWebhookEndpointEnabled(ep.OrganizationID, ep.Environment, ep.ID, false, disableReason); err != nil {
		return err
	}
	if w.ContactEmail == "" {
		// Nobody to write to: queuing it would fail for good at the relay
		// ("failed to parse mail address"). The dispatcher logs it, and
		// the console's webhooks page says so (NotifiedDisable).
		return nil
	}
	return tx.QueueEmail(ep.OrganizationID, w.ContactEmail, "kycd: webhook endpoint disabled: "+ep.URL,
		fmt.Sprintf("The %s webhook endpoint %s (%s) was disabled at %s.\n\nReason: %s\n\nDelivery %s of event %s (%s) failed on every attempt. "+
			"Fix the receiver, enable the endpoint again and replay the failed deliveries.\n",
			ep.Environment, ep.ID, ep.URL, kyc.FormatTime(tx.now), disableReason, w.DeliveryID, w.EventID, w.EventType))
}

// FailUndeliverable marks a delivery failed without an attempt (its
// endpoint was disabled or removed meanwhile).
func (tx *Tx) FailUndeliverable(deliveryID string) error {
	_, err := tx.exec(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, updated_at = ? WHERE id = ? AND status = 'pending'`,
		kyc.FormatTime(tx.now), deliveryID)
	return err
}

// FindAttempts lists a delivery's attempts in order.
func (s *Store) FindAttempts(ctx context.Context, deliveryID string) ([]Attempt, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT attempt, request_headers, coalesce(response_status, 0), response_excerpt, response_body_withheld,
			duration_ms, error, started_at, next_retry_at
		FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt`, deliveryID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Attempt
	for rows.Next() {
		a := Attempt{DeliveryID: deliveryID}
		var headers, started string
		var ms int64
		var next sql.NullString
		if err := rows.Scan(&a.Attempt, &headers, &a.ResponseStatus, &a.ResponseExcerpt, &a.BodyWithheld, &ms, &a.Error, &started, &next); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(headers), &a.RequestHeaders)
		a.Duration, a.StartedAt = time.Duration(ms)*time.Millisecond, parseTime(started)
		if next.Valid {
			t := parseTime(next.String)
			a.NextRetryAt = &t
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// DeliveryStatus returns a delivery's status and attempt count.
func (s *Store) DeliveryStatus(ctx context.Context, id string) (status string, attempts int, err error) {
	err = s.reader.QueryRowContext(ctx, `SELECT status, attempts FROM webhook_deliveries WHERE id = ?`, id).Scan(&status, &attempts)
	return status, attempts, err
}

// FindWebhookEndpointByID finds an endpoint in any organization, for the
// operator CLI; API handlers use the organization-scoped lookups.
func (s *Store) FindWebhookEndpointByID(ctx context.Context, id string) (*kyc.WebhookEndpoint, error) {
	e, err := scanEndpoint(s.reader.QueryRowContext(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints WHERE id = ? AND deleted_at IS NULL`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, kyc.Errorf(kyc.ENotFound, "Webhook endpoint %s not found.", id)
	}
	return e, err
}
