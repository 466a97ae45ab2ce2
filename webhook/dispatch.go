package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/store"
)

// RetryDelays are the waits after failed attempts 1–5 (spec §6.3.2). Each
// is spread by ±10% so that many deliveries failing together do not retry
// together.
var RetryDelays = []time.Duration{time.Second, 16 * time.Second, 2 * time.Minute, 15 * time.Minute, 2 * time.Hour}

// RetryJitter is the spread of RetryDelays.
const RetryJitter = 0.10

// Dispatcher performs webhook.deliver jobs.
type Dispatcher struct {
	Store  *store.Store
	Box    store.Sealer
	Sender *Sender
	Log    *slog.Logger
	Now    func() time.Time
	// Jitter spreads retries; tests set 0 to land on the exact offsets.
	Jitter float64
	// PerEndpoint bounds the attempts in flight to one endpoint (default
	// 4), so that a slow or dead receiver holds at most that many of the
	// runner's slots and never delays other endpoints' deliveries.
	PerEndpoint int
	// OnAttempt, when set, is called after each recorded attempt with its
	// outcome: "delivered", "retry" (failed, another attempt is scheduled)
	// or "failed" (failed for good). The server counts them for /metrics.
	OnAttempt func(outcome string)

	mu   sync.Mutex
	busy map[string]int
}

// acquire takes an in-flight slot for the endpoint if one is free.
func (d *Dispatcher) acquire(endpointID string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.busy == nil {
		d.busy = map[string]int{}
	}
	if d.busy[endpointID] >= d.PerEndpoint {
		return false
	}
	d.busy[endpointID]++
	return true
}

func (d *Dispatcher) release(endpointID string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.busy[endpointID]--; d.busy[endpointID] <= 0 {
		delete(d.busy, endpointID)
	}
}

// busyRetry is how soon a delivery deferred by a busy endpoint looks again.
const busyRetry = 250 * time.Millisecond

// Register adds the webhook.deliver kind to r.
func (d *Dispatcher) Register(r *jobs.Runner) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.PerEndpoint <= 0 {
		d.PerEndpoint = 4
	}
	r.Register(jobs.Kind{Name: store.KindWebhookDeliver, MaxAttempts: store.WebhookMaxAttempts,
		Timeout: AckTimeout + 5*time.Second, Run: d.deliver})
}

func (d *Dispatcher) deliver(ctx context.Context, j store.Job) error {
	var p store.DeliveryJob
	if err := json.Unmarshal(j.Payload, &p); err != nil {
		return jobs.Permanent(fmt.Errorf("bad payload: %w", err))
	}
	w, err := d.Store.LoadDeliveryWork(ctx, d.Box, p.DeliveryID)
	if kyc.ErrorCode(err) == kyc.ENotFound {
		return nil // deleted with its endpoint
	}
	if err != nil {
		return err
	}
	if w.Status != "pending" {
		return nil // already settled (e.g. a replay raced it)
	}
	if w.Endpoint != nil && !w.Endpoint.Enabled {
		return d.Store.InTx(ctx, func(tx *store.Tx) error { return tx.FailUndeliverable(w.DeliveryID) })
	}
	slot := busyKey(w)
	if !d.acquire(slot) {
		return jobs.Defer(d.Now().Add(busyRetry)) // not an attempt: the receiver is busy
	}
	defer d.release(slot)
	now := d.Now()
	a := store.Attempt{DeliveryID: w.DeliveryID, Attempt: w.Attempts + 1, StartedAt: now}
	var res Result
	if secrets := signingSecrets(w, now); secrets == nil {
		// Only a request made before callback secrets existed meets this;
		// rotating the secret (API or CLI) makes one, and a retry sends.
		res.Err = errNoCallbackSecret
	} else {
		headers := http.Header{}
		headers.Set("Content-Type", "application/json")
		headers.Set("User-Agent", UserAgent)
		headers.Set("X-Svc-Event", string(w.EventType))
		headers.Set("X-Svc-Delivery", w.DeliveryID)
		headers.Set("X-Svc-Signature", SignAll(secrets, now, w.Body))
		a.RequestHeaders = flatten(headers)
		res = d.Sender.Post(ctx, w.URL(), headers, w.Body)
	}
	// Retry delays count from the end of the failed attempt (spec §6.3):
	// a receiver that timed out after 10 s gets its "1 s" retry 1 s later,
	// not at once.
	end := d.Now()
	a.ResponseStatus, a.ResponseExcerpt, a.BodyWithheld, a.Duration = res.Status, res.Excerpt, res.Withheld, res.Duration
	outcome, reason := store.AttemptDelivered, ""
	var next time.Time
	if res.Err != nil {
		a.Error = res.Err.Error()
		if p.Replay {
			outcome = store.AttemptFailed // one-off: no retries, the endpoint stays enabled
		} else if j.Attempt >= store.WebhookMaxAttempts {
			outcome = store.AttemptFailed
			if w.Endpoint != nil { // a callback URL has no endpoint to disable
				reason = fmt.Sprintf("%d attempts failed (the first and %d retries); the last: %s", j.Attempt, j.Attempt-1, a.Error)
			}
		} else {
			outcome = store.AttemptRetry
			delay := RetryDelays[j.Attempt-1]
			if d.Jitter > 0 {
				delay = time.Duration(float64(delay) * (1 + d.Jitter*(2*rand.Float64()-1)))
			}
			next = end.Add(delay)
			a.NextRetryAt = &next
		}
	}
	err = d.Store.InTx(context.WithoutCancel(ctx), func(tx *store.Tx) error { return tx.RecordAttempt(a, outcome, w, reason) })
	if err != nil {
		return err
	}
	if d.OnAttempt != nil {
		d.OnAttempt(outcomeNames[outcome])
	}
	switch {
	case outcome == store.AttemptRetry:
		return jobs.RetryAt(next, res.Err)
	case reason != "":
		if store.NotifiedDisable(w) {
			d.Log.Warn("webhook endpoint disabled; an e-mail to the organization's contact address is queued", "endpoint_id", w.Endpoint.ID,
				"delivery_id", w.DeliveryID, "organization_id", w.OrganizationID, "reason", reason)
		} else {
			d.Log.Warn("webhook endpoint disabled; nobody is notified by e-mail: the organization has no contact address "+
				"(set one with kycd orgs update --contact-email or in the console's Settings)", "endpoint_id", w.Endpoint.ID,
				"delivery_id", w.DeliveryID, "organization_id", w.OrganizationID, "reason", reason)
		}
	}
	return nil
}

var errNoCallbackSecret = errors.New("the organization has no callback secret to sign with; create one with POST /v1/callback-secret/rotate or kycd orgs callback-secret rotate")

// signingSecrets are the secrets a delivery is signed with: the newest
// alone, as spec §6.4 defines one sig=, or, for a target that asked for
// dual signing, the previous one too until its rotation's overlap ends.
// Nil when there is none (a callback without a secret).
func signingSecrets(w *store.DeliveryWork, now time.Time) []string {
	var current, previous string
	var dual bool
	switch {
	case w.Endpoint != nil:
		current, previous, dual = w.Endpoint.Secret, w.Endpoint.PreviousSecret, w.Endpoint.DualSign
	case w.Callback != nil:
		current, previous, dual = w.Callback.Secret, w.Callback.PreviousSecret, w.Callback.DualSign
	default:
		return nil
	}
	secrets := []string{current}
	if dual && previous != "" && w.PreviousUntil != nil && now.Before(*w.PreviousUntil) {
		secrets = append(secrets, previous)
	}
	return secrets
}

// busyKey names the receiver whose in-flight attempts PerEndpoint bounds:
// the endpoint, or a callback URL's host (requests of one integrator
// share it).
func busyKey(w *store.DeliveryWork) string {
	if w.Endpoint != nil {
		return w.Endpoint.ID
	}
	if u, err := url.Parse(w.CallbackURL); err == nil {
		return "callback:" + u.Host
	}
	return "callback:" + w.CallbackURL
}

// outcomeNames are the outcomes OnAttempt reports.
var outcomeNames = map[store.AttemptOutcome]string{
	store.AttemptDelivered: "delivered",
	store.AttemptRetry:     "retry",
	store.AttemptFailed:    "failed",
}

func flatten(h http.Header) map[string]string {
	m := make(map[string]string, len(h))
	for k := range h {
		m[k] = h.Get(k)
	}
	return m
}
