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

// Delivery is one event's delivery to one endpoint.
type Delivery struct {
	ID             string
	EndpointID     string // "" for a delivery to CallbackURL
	CallbackURL    string // the KYC request's callbackUrl, for a delivery that goes there
	EventID        string
	EventType      kyc.EventType
	Environment    kyc.Environment
	Status         string // pending, delivered, failed
	Attempts       int
	LastStatusCode *int
	NextAttemptAt  *time.Time
	DeliveredAt    *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
	Payload        []byte // only from FindDelivery
}

// DeliveryFilter selects deliveries for a list; empty fields match all.
type DeliveryFilter struct {
	EndpointID string
	Target     string // "endpoint" or "callback"
	Status     string
	EventType  string
	// From and To bound created_at (From inclusive, To exclusive); zero:
	// unbounded.
	From, To   time.Time
	Page, Size int
}

// where is the filter as a WHERE clause over webhook_deliveries d.
func (f DeliveryFilter) where(orgID string, env kyc.Environment) (string, []any) {
	where := `d.organization_id = ? AND d.environment = ? AND (? = '' OR d.endpoint_id = ?) AND (? = '' OR d.status = ?) AND (? = '' OR d.event_type = ?)
		AND (? = '' OR (? = 'callback') = (d.endpoint_id IS NULL)) AND (? = '' OR d.created_at >= ?) AND (? = '' OR d.created_at < ?)`
	from, to := "", ""
	if !f.From.IsZero() {
		from = kyc.FormatTime(f.From)
	}
	if !f.To.IsZero() {
		to = kyc.FormatTime(f.To)
	}
	return where, []any{orgID, string(env), f.EndpointID, f.EndpointID, f.Status, f.Status, f.EventType, f.EventType, f.Target, f.Target,
		from, from, to, to}
}

const deliveryColumns = `d.id, coalesce(d.endpoint_id, ''), coalesce(d.callback_url, ''), d.event_id, d.event_type, d.environment, d.status, d.attempts, d.last_status_code,
	d.next_attempt_at, d.delivered_at, d.created_at, d.updated_at`

// FindDeliveries returns one page of the environment's deliveries, newest
// first, and the total matching the filter.
func (s *Store) FindDeliveries(ctx context.Context, orgID string, env kyc.Environment, f DeliveryFilter) ([]*Delivery, int, error) {
	where, args := f.where(orgID, env)
	var total int
	if err := s.reader.QueryRowContext(ctx, `SELECT count(*) FROM webhook_deliveries d WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count deliveries: %w", err)
	}
	rows, err := s.reader.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM webhook_deliveries d WHERE `+where+`
		ORDER BY d.id DESC LIMIT ? OFFSET ?`, append(args, f.Size, (f.Page-1)*f.Size)...)
	if err != nil {
		return nil, 0, fmt.Errorf("find deliveries: %w", err)
	}
	defer rows.Close()
	list := []*Delivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, 0, err
		}
		list = append(list, d)
	}
	return list, total, rows.Err()
}

// FindDelivery returns a delivery with the body it sends: NOT_FOUND for
// another organization's, wrong_environment for the other environment's.
func (s *Store) FindDelivery(ctx context.Context, orgID string, env kyc.Environment, id string) (*Delivery, error) {
	return findDelivery(ctx, readPool{s.readStmts}, orgID, env, id)
}

func findDelivery(ctx context.Context, q queryer, orgID string, env kyc.Environment, id string) (*Delivery, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+deliveryColumns+`, e.payload FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
		WHERE d.id = ? AND d.organization_id = ?`, id, orgID)
	if err != nil {
		return nil, fmt.Errorf("find delivery: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, kyc.Errorf(kyc.ENotFound, "Webhook delivery %s not found.", id)
	}
	var payload []byte
	d, err := scanDelivery(rows, &payload)
	if err != nil {
		return nil, err
	}
	d.Payload = payload
	if d.Environment != env {
		return nil, wrongEnvironment("Webhook delivery", id, d.Environment, env)
	}
	return d, nil
}

func scanDelivery(row scanner, extra ...any) (*Delivery, error) {
	var d Delivery
	var env, created, updated string
	var code sql.NullInt64
	var next, delivered sql.NullString
	dest := append([]any{&d.ID, &d.EndpointID, &d.CallbackURL, &d.EventID, &d.EventType, &env, &d.Status, &d.Attempts, &code, &next, &delivered, &created, &updated}, extra...)
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	d.Environment = kyc.Environment(env)
	d.CreatedAt, d.UpdatedAt = parseTime(created), parseTime(updated)
	if code.Valid {
		c := int(code.Int64)
		d.LastStatusCode = &c
	}
	d.NextAttemptAt, d.DeliveredAt = optTime(next), optTime(delivered)
	return &d, nil
}

func optTime(ns sql.NullString) *time.Time {
	if !ns.Valid {
		return nil
	}
	t := parseTime(ns.String)
	return &t
}

// ReplayDelivery schedules one new attempt of a delivery now: the same
// event id and body, a fresh signature. An endpoint's must be enabled
// (UNPROCESSABLE otherwise); a callback URL's always can be.
func (tx *Tx) ReplayDelivery(orgID string, env kyc.Environment, id string) (*Delivery, error) {
	d, err := findDelivery(context.Background(), tx.q, orgID, env, id)
	if err != nil {
		return nil, err
	}
	if d.EndpointID != "" {
		ep, err := findWebhookEndpoint(context.Background(), tx.q, orgID, env, d.EndpointID)
		if kyc.ErrorCode(err) == kyc.ENotFound {
			return nil, kyc.Errorf(kyc.EUnprocessable, "The endpoint of delivery %s was deleted; it cannot be replayed.", id)
		}
		if err != nil {
			return nil, err
		}
		if !ep.Enabled {
			return nil, kyc.Errorf(kyc.EUnprocessable, "Webhook endpoint %s is disabled; enable it before replaying.", ep.ID)
		}
	}
	if d.Status == "pending" {
		return nil, kyc.Errorf(kyc.EConflict, "Delivery %s is still being attempted; replay it once it is delivered or failed.", id)
	}
	if _, err := tx.exec(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ?, updated_at = ? WHERE id = ?`,
		kyc.FormatTime(tx.now), kyc.FormatTime(tx.now), id); err != nil {
		return nil, fmt.Errorf("replay delivery: %w", err)
	}
	payload, _ := json.Marshal(DeliveryJob{DeliveryID: id, Replay: true})
	if _, err := tx.EnqueueJob(NewJob{Kind: KindWebhookDeliver, Payload: payload, MaxAttempts: 1}); err != nil {
		return nil, err
	}
	from := d.Status
	if err := tx.auditChange(orgID, env, "webhook_delivery", id, "webhook_delivery.replayed", &from, "pending", ""); err != nil {
		return nil, err
	}
	d.Status, d.NextAttemptAt, d.UpdatedAt = "pending", &tx.now, tx.now
	return d, nil
}

// ReplayResult is what a batch replay did.
type ReplayResult struct {
	Replayed []*Delivery
	// Skipped: matching deliveries not replayed, with why (still being
	// attempted, endpoint disabled or deleted).
	Skipped []ReplaySkip
}

// ReplaySkip is one delivery a batch replay left alone.
type ReplaySkip struct {
	ID, Reason string
}

// MaxReplayBatch bounds one batch replay, so that it stays one short
// transaction; the rest is replayed by asking again.
const MaxReplayBatch = 500

// ReplayDeliveries replays, as ReplayDelivery does one, every delivered or
// failed delivery the filter selects (its Page and Size are ignored), up to
// limit of them, oldest first. Deliveries still pending are skipped, so
// asking twice replays each once until its new attempt has finished.
func (tx *Tx) ReplayDeliveries(orgID string, env kyc.Environment, f DeliveryFilter, limit int) (*ReplayResult, error) {
	if limit <= 0 || limit > MaxReplayBatch {
		limit = MaxReplayBatch
	}
	where, args := f.where(orgID, env)
	rows, err := tx.q.QueryContext(context.Background(), `SELECT d.id, d.status FROM webhook_deliveries d WHERE `+where+`
		ORDER BY d.id LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("select deliveries to replay: %w", err)
	}
	type cand struct{ id, status string }
	var cands []cand
	for rows.Next() {
		var c cand
		if err := rows.Scan(&c.id, &c.status); err != nil {
			rows.Close()
			return nil, fmt.Errorf("select deliveries to replay: %w", err)
		}
		cands = append(cands, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	res := &ReplayResult{Replayed: []*Delivery{}, Skipped: []ReplaySkip{}}
	for _, c := range cands {
		d, err := tx.ReplayDelivery(orgID, env, c.id)
		switch code := kyc.ErrorCode(err); {
		case err == nil:
			res.Replayed = append(res.Replayed, d)
		case code == kyc.EConflict || code == kyc.EUnprocessable:
			var ke *kyc.Error
			errors.As(err, &ke)
			res.Skipped = append(res.Skipped, ReplaySkip{ID: c.id, Reason: ke.Message})
		default:
			return nil, err
		}
	}
	return res, nil
}
