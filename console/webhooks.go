package console

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kycd/kyc"
	"kycd/store"
	"kycd/webhook"
)

// The webhook screens call the same store use cases and checks as
// /v1/webhook-endpoints and /v1/webhook-deliveries; the store audits each
// change with the signed-in user as its actor (guard's WithActor).

type webhooksPage struct {
	Endpoints  []*kyc.WebhookEndpoint
	Total      int
	EventTypes []kyc.EventType
	Form       endpointForm // the create form's values after an error
	// Callback is the environment's callback secret (nil: none yet), the
	// one that signs deliveries to KYC requests' callbackUrl; NewCallback
	// is one just rotated, shown once.
	Callback, NewCallback *store.CallbackSecret
	// ContactEmail receives the e-mail sent when an endpoint is disabled
	// after failing ("" : none, so nobody is told); Mail is false when no
	// SMTP relay is configured, so it would wait unsent.
	ContactEmail string
	Mail         bool
}

// shownSecret is a signing secret shown once, with the receiver's check.
type shownSecret struct {
	Endpoint *kyc.WebhookEndpoint
	Secret   string
	Rotated  bool
}

type endpointForm struct {
	URL, Description string
	Events           map[kyc.EventType]bool
}

func (f endpointForm) Has(t kyc.EventType) bool { return f.Events[t] }

// readEndpointForm reads and checks url, description and events (none
// ticked: every event) the way the API checks its body.
func (c *console) readEndpointForm(r *http.Request) (endpointForm, []kyc.EventType, error) {
	if err := r.ParseForm(); err != nil {
		return endpointForm{}, nil, kyc.Errorf(kyc.EValidation, "The form could not be read.")
	}
	f := endpointForm{URL: strings.TrimSpace(r.PostFormValue("url")), Description: strings.TrimSpace(r.PostFormValue("description")),
		Events: map[kyc.EventType]bool{}}
	var errs []kyc.FieldError
	types := []kyc.EventType{}
	for _, v := range r.PostForm["events"] {
		t := kyc.EventType(v)
		if !t.Valid() {
			errs = append(errs, kyc.FieldError{Field: "events", Message: fmt.Sprintf("%q is not an event type", v)})
			continue
		}
		if !f.Events[t] {
			f.Events[t] = true
			types = append(types, t)
		}
	}
	if f.URL == "" {
		errs = append(errs, kyc.FieldError{Field: "url", Message: "is required"})
	} else if err := webhook.CheckTarget(r.Context(), f.URL, env(r), c.allowPrivate); err != nil {
		errs = append(errs, kyc.FieldError{Field: "url", Message: err.Error()})
	}
	if utf8.RuneCountInString(f.Description) > webhook.MaxDescriptionLen {
		errs = append(errs, kyc.FieldError{Field: "description", Message: fmt.Sprintf("must be at most %d characters", webhook.MaxDescriptionLen)})
	}
	if len(errs) > 0 {
		return f, nil, kyc.Invalid(errs...)
	}
	return f, types, nil
}

// handleWebhooks handles "GET /console/{env}/webhooks": the endpoints and
// the form to add one.
func (c *console) handleWebhooks(w http.ResponseWriter, r *http.Request) error {
	return c.renderWebhooks(w, r, nil)
}

// renderWebhooks shows the endpoints and the callback secret's state;
// rotated is a callback secret just made, shown this once.
func (c *console) renderWebhooks(w http.ResponseWriter, r *http.Request, rotated *store.CallbackSecret) error {
	sess := sessionFrom(r)
	list, total, err := c.store.FindWebhookEndpointsPage(r.Context(), sess.User.OrganizationID, env(r), 1, 100)
	if err != nil {
		return err
	}
	d := webhooksPage{Endpoints: list, Total: total, EventTypes: kyc.EventTypes, NewCallback: rotated, Mail: c.mail}
	org, err := c.store.FindOrganization(r.Context(), sess.User.OrganizationID)
	if err != nil {
		return err
	}
	d.ContactEmail = org.ContactEmail
	d.Callback, err = c.store.FindCallbackSecret(r.Context(), sess.User.OrganizationID, env(r))
	if kyc.ErrorCode(err) == kyc.ENotFound {
		err = nil // none yet: made with the first request that has a callbackUrl
	}
	if err != nil {
		return err
	}
	if formError(r) != nil {
		d.Form, _, _ = c.readEndpointForm(r)
	}
	return c.render(w, r, http.StatusOK, "webhooks.html", &page{Title: "Webhooks", Section: "webhooks", Data: d})
}

// handleWebhookCreate handles "POST /console/{env}/webhooks": the new
// endpoint's secret is shown on the page that answers, and never again.
func (c *console) handleWebhookCreate(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	f, types, err := c.readEndpointForm(r)
	if err != nil {
		return err
	}
	var ep *kyc.WebhookEndpoint
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		ep, err = tx.CreateWebhookEndpoint(c.secrets, store.NewWebhookEndpoint{OrganizationID: sess.User.OrganizationID, Environment: env(r),
			URL: f.URL, Description: f.Description, EventTypes: types})
		return err
	}); err != nil {
		return err
	}
	noStore(w)
	return c.renderWebhook(w, r, ep.ID, &shownSecret{Endpoint: ep, Secret: ep.Secret})
}

type webhookPage struct {
	Endpoint   *kyc.WebhookEndpoint
	EventTypes []kyc.EventType
	Form       endpointForm
	Secret     *shownSecret
	Deliveries deliveriesView
}

// deliveriesView is a filtered page of an endpoint's deliveries.
type deliveriesView struct {
	List          []*store.Delivery
	Total         int
	Page, Pages   int
	Query         url.Values
	Status, Event string
	From, To      string // datetime-local values, UTC
	Since         string // "24h", "7d" or "": a quick time window
	// After a batch replay: how many were replayed and skipped.
	Replayed, Skipped int
	Batch             bool
}

const deliveriesPageSize = 25

// readDeliveryFilter reads the log's filters from the query: status,
// event, since (24h, 7d) or from/to (UTC, as <input type=datetime-local>
// sends them).
func readDeliveryFilter(q url.Values, now time.Time) (store.DeliveryFilter, deliveriesView, error) {
	v := deliveriesView{Query: q, Status: q.Get("status"), Event: q.Get("event"), From: q.Get("from"), To: q.Get("to"), Since: q.Get("since"), Page: 1}
	f := store.DeliveryFilter{Status: v.Status, EventType: v.Event, Size: deliveriesPageSize}
	var errs []kyc.FieldError
	if f.Status != "" && f.Status != "pending" && f.Status != "delivered" && f.Status != "failed" {
		errs = append(errs, kyc.FieldError{Field: "status", Message: "must be pending, delivered or failed"})
	}
	if f.EventType != "" && !kyc.EventType(f.EventType).Valid() {
		errs = append(errs, kyc.FieldError{Field: "event", Message: "is not an event type"})
	}
	switch v.Since {
	case "":
	case "24h":
		f.From = now.Add(-24 * time.Hour)
	case "7d":
		f.From = now.Add(-7 * 24 * time.Hour)
	default:
		errs = append(errs, kyc.FieldError{Field: "since", Message: "must be 24h or 7d"})
	}
	for _, b := range []struct {
		name, v string
		t       *time.Time
	}{{"from", v.From, &f.From}, {"to", v.To, &f.To}} {
		if b.v == "" {
			continue
		}
		t, err := time.ParseInLocation("2006-01-02T15:04", b.v, time.UTC)
		if err != nil {
			errs = append(errs, kyc.FieldError{Field: b.name, Message: "must be a date and time"})
			continue
		}
		*b.t = t
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 && n < 100000 {
		v.Page = n
	}
	if n, err := strconv.Atoi(q.Get("replayed")); err == nil && n >= 0 {
		v.Batch, v.Replayed = true, n
		v.Skipped, _ = strconv.Atoi(q.Get("skipped"))
	}
	f.Page = v.Page
	if len(errs) > 0 {
		return f, v, kyc.Invalid(errs...)
	}
	return f, v, nil
}

// handleWebhook handles "GET /console/{env}/webhooks/{id}": the endpoint,
// its settings and actions, and its delivery log with filters.
func (c *console) handleWebhook(w http.ResponseWriter, r *http.Request) error {
	return c.renderWebhook(w, r, r.PathValue("id"), nil)
}

func (c *console) renderWebhook(w http.ResponseWriter, r *http.Request, id string, shown *shownSecret) error {
	sess := sessionFrom(r)
	ep, err := c.store.FindWebhookEndpoint(r.Context(), sess.User.OrganizationID, env(r), id)
	if err != nil {
		return err
	}
	d := webhookPage{Endpoint: ep, EventTypes: kyc.EventTypes, Secret: shown,
		Form: endpointForm{URL: ep.URL, Description: ep.Description, Events: map[kyc.EventType]bool{}}}
	for _, t := range ep.EventTypes {
		d.Form.Events[t] = true
	}
	if formError(r) != nil && r.PostForm != nil && r.PostFormValue("url") != "" {
		d.Form, _, _ = c.readEndpointForm(r)
	}
	f, view, ferr := readDeliveryFilter(r.URL.Query(), c.now())
	if ferr != nil {
		return ferr
	}
	f.EndpointID = ep.ID
	if view.List, view.Total, err = c.store.FindDeliveries(r.Context(), sess.User.OrganizationID, env(r), f); err != nil {
		return err
	}
	view.Pages = max(1, (view.Total+deliveriesPageSize-1)/deliveriesPageSize)
	d.Deliveries = view
	return c.render(w, r, http.StatusOK, "webhook.html", &page{Title: "Webhook endpoint", Section: "webhooks", Data: d})
}

func (c *console) webhookPath(r *http.Request, id string) string {
	return "/console/" + string(env(r)) + "/webhooks/" + id
}

// handleWebhookUpdate handles "POST /console/{env}/webhooks/{id}": URL,
// description and subscribed events.
func (c *console) handleWebhookUpdate(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	f, types, err := c.readEndpointForm(r)
	if err != nil {
		return err
	}
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := tx.UpdateWebhookEndpoint(sess.User.OrganizationID, env(r), r.PathValue("id"),
			store.WebhookEndpointUpdate{URL: &f.URL, Description: &f.Description, EventTypes: &types})
		return err
	}); err != nil {
		return err
	}
	return redirect(w, r, c.webhookPath(r, r.PathValue("id")), "endpoint-saved")
}

// handleWebhookEnabled handles "POST /console/{env}/webhooks/{id}/enabled"
// (enabled=true|false): §6.3's "re-enable it in the dashboard".
func (c *console) handleWebhookEnabled(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	on := r.PostFormValue("enabled") == "true"
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := tx.UpdateWebhookEndpoint(sess.User.OrganizationID, env(r), r.PathValue("id"), store.WebhookEndpointUpdate{Enabled: &on})
		return err
	}); err != nil {
		return err
	}
	return redirect(w, r, c.webhookPath(r, r.PathValue("id")), map[bool]string{true: "endpoint-enabled", false: "endpoint-disabled"}[on])
}

// handleWebhookRotate handles "POST /console/{env}/webhooks/{id}/rotate":
// a new secret, shown once; the old one stays valid for overlap hours.
func (c *console) handleWebhookRotate(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	hours, err := strconv.Atoi(r.PostFormValue("overlap"))
	if err != nil || hours < 0 || hours > 168 {
		return kyc.Invalid(kyc.FieldError{Field: "overlap", Message: "must be from 0 to 168 hours"})
	}
	// Spec §6.4 defines one sig=; a second, made with the old secret
	// during the overlap, only when the admin asks for it.
	dual := r.PostFormValue("dualSign") == "true"
	var ep *kyc.WebhookEndpoint
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		ep, err = tx.RotateWebhookSecret(c.secrets, sess.User.OrganizationID, env(r), r.PathValue("id"), time.Duration(hours)*time.Hour, &dual)
		return err
	}); err != nil {
		return err
	}
	noStore(w)
	return c.renderWebhook(w, r, ep.ID, &shownSecret{Endpoint: ep, Secret: ep.Secret, Rotated: true})
}

// handleCallbackRotate handles "POST /console/{env}/callback-secret/rotate"
// (kycd orgs callback-secret rotate, POST /v1/callback-secret/rotate): a
// new secret for deliveries to KYC requests' callbackUrl, shown once.
func (c *console) handleCallbackRotate(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	hours, err := strconv.Atoi(r.PostFormValue("overlap"))
	if err != nil || hours < 0 || hours > 168 {
		return kyc.Invalid(kyc.FieldError{Field: "callbackOverlap", Message: "must be from 0 to 168 hours"})
	}
	dual := r.PostFormValue("dualSign") == "true"
	var cs *store.CallbackSecret
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		cs, err = tx.RotateCallbackSecret(c.secrets, sess.User.OrganizationID, env(r), time.Duration(hours)*time.Hour, &dual)
		return err
	}); err != nil {
		return err
	}
	noStore(w)
	return c.renderWebhooks(w, r, cs)
}

// handleWebhookDelete handles "POST /console/{env}/webhooks/{id}/delete";
// its deliveries stay in the log.
func (c *console) handleWebhookDelete(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		return tx.DeleteWebhookEndpoint(sess.User.OrganizationID, env(r), r.PathValue("id"))
	}); err != nil {
		return err
	}
	return redirect(w, r, "/console/"+string(env(r))+"/webhooks", "endpoint-deleted")
}

// handleWebhookTest handles "POST /console/{env}/webhooks/{id}/test":
// Send test event (§6.2), delivered by the job runner at once.
func (c *console) handleWebhookTest(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	var deliveryID string
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		ep, err := tx.FindWebhookEndpoint(sess.User.OrganizationID, env(r), r.PathValue("id"))
		if err != nil {
			return err
		}
		_, deliveryID, err = webhook.SendTest(tx, ep)
		return err
	}); err != nil {
		return err
	}
	return redirect(w, r, "/console/"+string(env(r))+"/deliveries/"+deliveryID, "test-sent")
}

// noStore keeps a page with a secret out of caches and history.
func noStore(w http.ResponseWriter) { w.Header().Set("Cache-Control", "no-store") }
