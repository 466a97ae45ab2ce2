package server

import (
	"encoding/json"
	"net/http"

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
	if f.Target != "" && f.Target != "endpoint" && f.Target != "callback" {
		q.errs = append(q.errs, kyc.FieldError{Field: "target", Message: "must be endpoint or callback"})
	}
	if f.Status != "" && !deliveryStatuses[f.Status] {
		q.errs = append(q.errs, kyc.FieldError{Field: "status", Message: "must be pending, delivered or failed"})
	}
	if f.EventType != "" && !kyc.EventType(f.EventType).Valid() {
		q.errs = append(q.errs, kyc.FieldError{Field: "eventType", Message: "is not an event type"})
	}
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
