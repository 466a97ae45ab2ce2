package console

import (
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strconv"

	"kycd/kyc"
	"kycd/store"
)

type deliveryPage struct {
	Delivery *store.Delivery
	Payload  string // indented JSON of the exact body sent
	Attempts []attemptView
	Endpoint *kyc.WebhookEndpoint // nil for a callback delivery or a deleted endpoint
}

type attemptView struct {
	store.Attempt
	Number  int      // the attempt's number (the embedded struct takes the name Attempt)
	Headers []header // sorted, for a stable page
}

type header struct{ Name, Value string }

// handleDelivery handles "GET /console/{env}/deliveries/{id}": the body
// sent and every attempt (request headers, response status, the first KiB
// of the answer, duration, error, next retry).
func (c *console) handleDelivery(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	d, err := c.store.FindDelivery(r.Context(), sess.User.OrganizationID, env(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	attempts, err := c.store.FindAttempts(r.Context(), d.ID)
	if err != nil {
		return err
	}
	p := deliveryPage{Delivery: d, Payload: string(d.Payload)}
	var buf map[string]any
	if json.Unmarshal(d.Payload, &buf) == nil {
		if b, err := json.MarshalIndent(buf, "", "  "); err == nil {
			p.Payload = string(b)
		}
	}
	for _, a := range attempts {
		v := attemptView{Attempt: a, Number: a.Attempt}
		for k, val := range a.RequestHeaders {
			v.Headers = append(v.Headers, header{k, val})
		}
		sort.Slice(v.Headers, func(i, j int) bool { return v.Headers[i].Name < v.Headers[j].Name })
		p.Attempts = append(p.Attempts, v)
	}
	if d.EndpointID != "" {
		if ep, err := c.store.FindWebhookEndpoint(r.Context(), sess.User.OrganizationID, env(r), d.EndpointID); err == nil {
			p.Endpoint = ep
		} else if kyc.ErrorCode(err) != kyc.ENotFound {
			return err
		}
	}
	return c.render(w, r, http.StatusOK, "delivery.html", &page{Title: "Webhook delivery", Section: "webhooks", Data: p})
}

// handleDeliveryReplay handles "POST /console/{env}/deliveries/{id}/replay":
// one new attempt now, as the API's replay.
func (c *console) handleDeliveryReplay(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := tx.ReplayDelivery(sess.User.OrganizationID, env(r), r.PathValue("id"))
		return err
	}); err != nil {
		return err
	}
	return redirect(w, r, "/console/"+string(env(r))+"/deliveries/"+r.PathValue("id"), "replayed")
}

// handleDeliveryReplayBatch handles "POST /console/{env}/deliveries/replay":
// the endpoint's deliveries the log's filters select (the form carries
// them) are replayed as POST /v1/webhook-deliveries/replay does.
func (c *console) handleDeliveryReplayBatch(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	if err := r.ParseForm(); err != nil {
		return kyc.Errorf(kyc.EValidation, "The form could not be read.")
	}
	endpointID := r.PostFormValue("endpoint")
	back := "/console/" + string(env(r)) + "/webhooks/" + endpointID
	q := url.Values{}
	for _, k := range []string{"status", "event", "since", "from", "to"} {
		if v := r.PostFormValue(k); v != "" {
			q.Set(k, v)
		}
	}
	f, _, err := readDeliveryFilter(q, c.now())
	if err != nil {
		return err
	}
	if f.Status == "pending" {
		return kyc.Invalid(kyc.FieldError{Field: "status", Message: "pending deliveries are being attempted; replay delivered or failed ones"})
	}
	if _, err := c.store.FindWebhookEndpoint(r.Context(), sess.User.OrganizationID, env(r), endpointID); err != nil {
		return err
	}
	f.EndpointID = endpointID
	var res *store.ReplayResult
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		res, err = tx.ReplayDeliveries(sess.User.OrganizationID, env(r), f, store.MaxReplayBatch)
		return err
	}); err != nil {
		return err
	}
	q.Set("replayed", strconv.Itoa(len(res.Replayed)))
	q.Set("skipped", strconv.Itoa(len(res.Skipped)))
	return redirect(w, r, back+"?"+q.Encode(), "batch-replayed")
}
