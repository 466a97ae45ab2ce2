package server

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"kycd/kyc"
	"kycd/store"
	"kycd/webhook"
)

// endpointJSON is a webhook endpoint in the API; secret appears only in
// the answers to create and rotate-secret.
type endpointJSON struct {
	ID             string          `json:"id"`
	Environment    kyc.Environment `json:"environment"`
	URL            string          `json:"url"`
	Description    string          `json:"description"`
	EventTypes     []kyc.EventType `json:"eventTypes"`
	Enabled        bool            `json:"enabled"`
	DisabledReason *string         `json:"disabledReason"`
	DisabledAt     *string         `json:"disabledAt"`
	// DualSignDuringOverlap: after a rotation, until
	// PreviousSecretExpiresAt, deliveries carry a second sig= made with
	// the previous secret. Off (the default): one sig=, the newest secret.
	DualSignDuringOverlap   bool    `json:"dualSignDuringOverlap"`
	PreviousSecretExpiresAt *string `json:"previousSecretExpiresAt"`
	CreatedAt               string  `json:"createdAt"`
	UpdatedAt               string  `json:"updatedAt"`
	Secret                  string  `json:"secret,omitempty"`
}

func toEndpointJSON(e *kyc.WebhookEndpoint, withSecret bool) endpointJSON {
	j := endpointJSON{ID: e.ID, Environment: e.Environment, URL: e.URL, Description: e.Description, EventTypes: e.EventTypes,
		Enabled: e.Enabled, DualSignDuringOverlap: e.DualSign, PreviousSecretExpiresAt: timePtr(e.PreviousSecretUntil),
		CreatedAt: kyc.FormatTime(e.CreatedAt), UpdatedAt: kyc.FormatTime(e.UpdatedAt)}
	if j.EventTypes == nil {
		j.EventTypes = []kyc.EventType{}
	}
	if !e.Enabled {
		reason := e.DisabledReason
		j.DisabledReason = &reason
		if e.DisabledAt != nil {
			t := kyc.FormatTime(*e.DisabledAt)
			j.DisabledAt = &t
		}
	}
	if withSecret {
		j.Secret = e.Secret
	}
	return j
}

// readEventTypes reads eventTypes: an array of known event types.
func readEventTypes(o *object) *[]kyc.EventType {
	list, ok := o.strList("eventTypes")
	if !ok {
		return nil
	}
	types := []kyc.EventType{}
	for i, v := range list {
		if !kyc.EventType(v).Valid() {
			o.fail(fmt.Sprintf("eventTypes[%d]", i), fmt.Sprintf("%q is not an event type (see the EventType enum)", v))
			continue
		}
		types = append(types, kyc.EventType(v))
	}
	return &types
}

// checkTarget applies webhook.CheckTarget to a webhook or callback URL
// field: its form and, unless the operator allowed private targets, that
// it reaches only public addresses, in both environments (checked again
// at every connection).
func (s *Server) checkTarget(ctx context.Context, o *object, field, raw string, env kyc.Environment) {
	if err := webhook.CheckTarget(ctx, raw, env, s.allowPrivateWebhooks); err != nil {
		o.fail(field, err.Error())
	}
}

// handleWebhookEndpointCreate handles "POST /v1/webhook-endpoints".
func (s *Server) handleWebhookEndpointCreate(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	envErr := checkEnvironment(o, key)
	u := o.str("url")
	desc := o.str("description")
	types := readEventTypes(o)
	dual := o.boolean("dualSignDuringOverlap")
	if u == nil {
		o.fail("url", "is required")
	} else {
		s.checkTarget(r.Context(), o, "url", *u, key.Environment)
	}
	if desc != nil && utf8.RuneCountInString(*desc) > webhook.MaxDescriptionLen {
		o.fail("description", fmt.Sprintf("must be at most %d characters", webhook.MaxDescriptionLen))
	}
	if err := o.check(nil); err != nil {
		return err
	}
	if envErr != nil {
		return envErr
	}
	n := store.NewWebhookEndpoint{OrganizationID: key.OrganizationID, Environment: key.Environment, URL: *u}
	if desc != nil {
		n.Description = *desc
	}
	if types != nil {
		n.EventTypes = *types
	}
	if dual != nil {
		n.DualSign = *dual
	}
	return s.commit(w, r, http.StatusCreated, func(tx *store.Tx) (any, error) {
		e, err := tx.CreateWebhookEndpoint(s.secrets, n)
		if err != nil {
			return nil, err
		}
		return toEndpointJSON(e, true), nil
	})
}

// handleWebhookEndpointList handles "GET /v1/webhook-endpoints".
func (s *Server) handleWebhookEndpointList(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	p, size := q.paging()
	if err := q.check(); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	list, total, err := s.store.FindWebhookEndpointsPage(r.Context(), key.OrganizationID, key.Environment, p, size)
	if err != nil {
		return err
	}
	withoutSecret := func(e *kyc.WebhookEndpoint) endpointJSON { return toEndpointJSON(e, false) }
	writeJSON(w, http.StatusOK, newPage(mapAll(list, withoutSecret), p, size, total))
	return nil
}

// handleWebhookEndpointGet handles "GET /v1/webhook-endpoints/{id}".
func (s *Server) handleWebhookEndpointGet(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	e, err := s.store.FindWebhookEndpoint(r.Context(), key.OrganizationID, key.Environment, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toEndpointJSON(e, false))
	return nil
}

// handleWebhookEndpointUpdate handles "PATCH /v1/webhook-endpoints/{id}".
func (s *Server) handleWebhookEndpointUpdate(w http.ResponseWriter, r *http.Request) error {
	o, err := readObject(w, r)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	u := store.WebhookEndpointUpdate{URL: o.str("url"), Description: o.str("description"), EventTypes: readEventTypes(o), Enabled: o.boolean("enabled"),
		DualSign: o.boolean("dualSignDuringOverlap")}
	if u.URL != nil {
		s.checkTarget(r.Context(), o, "url", *u.URL, key.Environment)
	}
	if u.Description != nil && utf8.RuneCountInString(*u.Description) > webhook.MaxDescriptionLen {
		o.fail("description", fmt.Sprintf("must be at most %d characters", webhook.MaxDescriptionLen))
	}
	if err := o.check(nil); err != nil {
		return err
	}
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		e, err := tx.UpdateWebhookEndpoint(key.OrganizationID, key.Environment, r.PathValue("id"), u)
		if err != nil {
			return nil, err
		}
		return toEndpointJSON(e, false), nil
	})
}

// handleWebhookEndpointDelete handles "DELETE /v1/webhook-endpoints/{id}":
// 204; the endpoint's deliveries stay listed.
func (s *Server) handleWebhookEndpointDelete(w http.ResponseWriter, r *http.Request) error {
	key := keyFrom(r.Context())
	err := s.store.InTx(r.Context(), func(tx *store.Tx) error {
		return tx.DeleteWebhookEndpoint(key.OrganizationID, key.Environment, r.PathValue("id"))
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// defaultSecretOverlap is how long the old secret stays valid after a
// rotation unless the request says otherwise.
const defaultSecretOverlap = 24 * time.Hour

// rotation is the optional body of a secret rotation.
type rotation struct {
	overlap  time.Duration
	dualSign *bool // nil: keep the current setting
}

// readRotation reads {"overlapHours": 0-168, "dualSignDuringOverlap": bool};
// an empty body takes the defaults.
func readRotation(w http.ResponseWriter, r *http.Request) (rotation, error) {
	rot := rotation{overlap: defaultSecretOverlap}
	b, err := readBody(w, r)
	if err != nil || len(bytes.TrimSpace(b)) == 0 {
		return rot, err
	}
	o, err := parseObject(b)
	if err != nil {
		return rot, err
	}
	if h, ok := o.integer("overlapHours"); ok {
		if h < 0 || h > 168 {
			o.fail("overlapHours", "must be from 0 to 168")
		}
		rot.overlap = time.Duration(h) * time.Hour
	}
	rot.dualSign = o.boolean("dualSignDuringOverlap")
	return rot, o.check(nil)
}

// handleWebhookEndpointRotate handles
// "POST /v1/webhook-endpoints/{id}/rotate-secret".
func (s *Server) handleWebhookEndpointRotate(w http.ResponseWriter, r *http.Request) error {
	rot, err := readRotation(w, r)
	if err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusOK, func(tx *store.Tx) (any, error) {
		e, err := tx.RotateWebhookSecret(s.secrets, key.OrganizationID, key.Environment, r.PathValue("id"), rot.overlap, rot.dualSign)
		if err != nil {
			return nil, err
		}
		return toEndpointJSON(e, true), nil
	})
}

// testResultJSON answers a test request: the event and its delivery, which
// the job runner sends at once.
type testResultJSON struct {
	EventID    string `json:"eventId"`
	DeliveryID string `json:"deliveryId"`
}

// handleWebhookEndpointTest handles "POST /v1/webhook-endpoints/{id}/test":
// 202 with the delivery of svc.webhook.test; 422 for a disabled endpoint.
func (s *Server) handleWebhookEndpointTest(w http.ResponseWriter, r *http.Request) error {
	if err := readEmptyObject(w, r); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	return s.commit(w, r, http.StatusAccepted, func(tx *store.Tx) (any, error) {
		ep, err := tx.FindWebhookEndpoint(key.OrganizationID, key.Environment, r.PathValue("id"))
		if err != nil {
			return nil, err
		}
		eventID, deliveryID, err := webhook.SendTest(tx, ep)
		if err != nil {
			return nil, err
		}
		return testResultJSON{EventID: eventID, DeliveryID: deliveryID}, nil
	})
}
