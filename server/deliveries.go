package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// deliveryJSON is a webhook delivery in the API.
type deliveryJSON struct {
	ID          string          `json:"id"`
	Environment kyc.Environment `json:"environment"`
	// Target is endpoint (EndpointID is set) or callback: the delivery
	// went to CallbackURL, the callbackUrl of the KYC request the event is
	// about, signed with the organization's callback secret.
	Target         string        `json:"target"`
	EndpointID     *string       `json:"endpointId"`
	CallbackURL    *string       `json:"callbackUrl"`
	EventID        string        `json:"eventId"`
	EventType      kyc.EventType `json:"eventType"`
	Status         string        `json:"status"`
	AttemptCount   int           `json:"attemptCount"`
	LastStatusCode *int          `json:"lastStatusCode"`
	NextAttemptAt  *string       `json:"nextAttemptAt"`
	DeliveredAt    *string       `json:"deliveredAt"`
	CreatedAt      string        `json:"createdAt"`
	UpdatedAt      string        `json:"updatedAt"`
	// Only on GET one:
	Payload  json.RawMessage `json:"payload,omitempty"`
	Attempts []attemptJSON   `json:"attempts,omitempty"`
}

type attemptJSON struct {
	Attempt        int               `json:"attempt"`
	StartedAt      string            `json:"startedAt"`
	RequestHeaders map[string]string `json:"requestHeaders"`
	ResponseStatus *int              `json:"responseStatus"`
	ResponseBody   string            `json:"responseBody"`
	// ResponseBodyWithheld: the receiver's address was not public (the
	// operator allowed private targets), so its answer was not kept.
	ResponseBodyWithheld bool    `json:"responseBodyWithheld"`
	DurationMs           int64   `json:"durationMs"`
	Error                *string `json:"error"`
	NextRetryAt          *string `json:"nextRetryAt"`
}

func toDeliveryJSON(d *store.Delivery) deliveryJSON {
	j := deliveryJSON{ID: d.ID, Environment: d.Environment, Target: "endpoint", EventID: d.EventID, EventType: d.EventType,
		Status: d.Status, AttemptCount: d.Attempts, LastStatusCode: d.LastStatusCode,
		CreatedAt: kyc.FormatTime(d.CreatedAt), UpdatedAt: kyc.FormatTime(d.UpdatedAt)}
	if d.EndpointID != "" {
		id := d.EndpointID
		j.EndpointID = &id
	} else {
		u := d.CallbackURL
		j.Target, j.CallbackURL = "callback", &u
	}
	if d.NextAttemptAt != nil {
		t := kyc.FormatTime(*d.NextAttemptAt)
		j.NextAttemptAt = &t
	}
	if d.DeliveredAt != nil {
		t := kyc.FormatTime(*d.DeliveredAt)
		j.DeliveredAt = &t
	}
	return j
}

var deliveryStatuses = map[string]bool{"pending": true, "delivered": true, "failed": true}

// handleDeliveryList handles "GET /v1/webhook-deliveries".
func (s *Server) handleDeliveryList(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	p, size := q.paging()
	f := store.DeliveryFilter{Page: p, Size: size, EndpointID: q.str("endpointId"), Status: q.str("status"), EventType: q.str("eventType"),
		Target: q.str("target")}
	q.errs = append(q.errs, CheckDeliveryFilter(&f, q.str("createdFrom"), q.str("createdTo"))...)
	if err := q.check(); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	list, total, err := s.store.FindDeliveries(r.Context(), key.OrganizationID, key.Environment, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newPage(mapAll(list, toDeliveryJSON), p, size, total))
	return nil
}

// handleDeliveryGet handles "GET /v1/webhook-deliveries/{id}": the delivery
// with the exact body it sends and every attempt.
func (s *Server) handleDeliveryGet(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	d, err := s.store.FindDelivery(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	attempts, err := s.store.FindAttempts(r.Context(), d.ID)
	if err != nil {
		return err
	}
	j := toDeliveryJSON(d)
	j.Payload = d.Payload
	j.Attempts = make([]attemptJSON, len(attempts))
	for i, a := range attempts {
		aj := attemptJSON{Attempt: a.Attempt, StartedAt: kyc.FormatTime(a.StartedAt), RequestHeaders: a.RequestHeaders,
			ResponseBody: a.ResponseExcerpt, ResponseBodyWithheld: a.BodyWithheld, DurationMs: a.Duration.Milliseconds()}
		if aj.RequestHeaders == nil {
			aj.RequestHeaders = map[string]string{}
		}
		if a.ResponseStatus != 0 {
			st := a.ResponseStatus
			aj.ResponseStatus = &st
		}
		if a.Error != "" {
			e := a.Error
			aj.Error = &e
		}
		if a.NextRetryAt != nil {
			t := kyc.FormatTime(*a.NextRetryAt)
			aj.NextRetryAt = &t
		}
		j.Attempts[i] = aj
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

// CheckDeliveryFilter checks a deliveries filter's fields (the console's
// filters too) and reads its time bounds (RFC 3339) into f.
func CheckDeliveryFilter(f *store.DeliveryFilter, from, to string) []kyc.FieldError {
	var errs []kyc.FieldError
	if f.Target != "" && f.Target != "endpoint" && f.Target != "callback" {
		errs = append(errs, kyc.FieldError{Field: "target", Message: "must be endpoint or callback"})
	}
	if f.Status != "" && !deliveryStatuses[f.Status] {
		errs = append(errs, kyc.FieldError{Field: "status", Message: "must be pending, delivered or failed"})
	}
	if f.EventType != "" && !kyc.EventType(f.EventType).Valid() {
		errs = append(errs, kyc.FieldError{Field: "eventType", Message: "is not an event type"})
	}
	for _, b := range []struct {
		name, v string
		t       *time.Time
	}{{"createdFrom", from, &f.From}, {"createdTo", to, &f.To}} {
		if b.v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, b.v)
		if err != nil {
			errs = append(errs, kyc.FieldError{Field: b.name, Message: "must be an RFC 3339 date-time"})
			continue
		}
		*b.t = t
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		errs = append(errs, kyc.FieldError{Field: "createdTo", Message: "must be after createdFrom"})
	}
	return errs
}

// replayBatchJSON answers a batch replay.
type replayBatchJSON struct {
	Replayed int              `json:"replayed"`
	Skipped  []replaySkipJSON `json:"skipped"`
	Data     []deliveryJSON   `json:"data"`
}

type replaySkipJSON struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// handleDeliveryReplayBatch handles "POST /v1/webhook-deliveries/replay":
// every delivered or failed delivery the filters select (at most limit,
// oldest first) gets one new attempt, as the one-delivery replay does.
// Deliveries still pending are skipped, so repeating the request replays
// nothing twice while the new attempts run; an Idempotency-Key replays the
// first answer.
func (s *Server) handleDeliveryReplayBatch(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	f := store.DeliveryFilter{}
	str := func(name string) string {
		if v := o.str(name); v != nil {
			return *v
		}
		return ""
	}
	f.EndpointID, f.Status, f.EventType, f.Target = str("endpointId"), str("status"), str("eventType"), str("target")
	errs := CheckDeliveryFilter(&f, str("createdFrom"), str("createdTo"))
	if f.Status == "pending" {
		errs = append(errs, kyc.FieldError{Field: "status", Message: "must be delivered or failed: pending deliveries are being attempted"})
	}
	limit := store.MaxReplayBatch
	if n, ok := o.integer("limit"); ok {
		if n < 1 || n > store.MaxReplayBatch {
			errs = append(errs, kyc.FieldError{Field: "limit", Message: fmt.Sprintf("must be from 1 to %d", store.MaxReplayBatch)})
		}
		limit = n
	}
	if err := o.check(errs); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusAccepted, func(tx *store.Tx) (any, error) {
		res, err := tx.ReplayDeliveries(key.OrganizationID, key.Environment, f, limit)
		if err != nil {
			return nil, err
		}
		j := replayBatchJSON{Replayed: len(res.Replayed), Skipped: []replaySkipJSON{}, Data: mapAll(res.Replayed, toDeliveryJSON)}
		for _, sk := range res.Skipped {
			j.Skipped = append(j.Skipped, replaySkipJSON{ID: sk.ID, Reason: sk.Reason})
		}
		return j, nil
	})
}

// handleDeliveryReplay handles "POST /v1/webhook-deliveries/{id}/replay":
// one new attempt now (202).
func (s *Server) handleDeliveryReplay(w http.ResponseWriter, r *http.Request) error {
	if err := readEmptyObject(w, r); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusAccepted, func(tx *store.Tx) (any, error) {
		d, err := tx.ReplayDelivery(key.OrganizationID, key.Environment, r.PathValue("id"))
		if err != nil {
			return nil, err
		}
		return toDeliveryJSON(d), nil
	})
}
