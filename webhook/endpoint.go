package webhook

import (
	"encoding/json"
	"fmt"
	"net/url"

	"kycd/kyc"
	"kycd/store"
)

// MaxDescriptionLen bounds an endpoint's description (characters), in the
// API and the console alike.
const MaxDescriptionLen = 500

// CheckURL applies the endpoint URL rules: absolute http(s) with a host,
// https in live (spec §6.3.5), no credentials in the URL. Whether the host
// resolves to a private address is checked at connect time (Sender).
func CheckURL(raw string, env kyc.Environment) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return fmt.Errorf("the webhook URL must be an absolute http(s) URL")
	case env == kyc.Live && u.Scheme != "https":
		return fmt.Errorf("live webhook endpoints must use https")
	case u.User != nil:
		return fmt.Errorf("the webhook URL must not carry credentials")
	}
	return nil
}

// TestEventBody is the body of svc.webhook.test: the fields of a KYC event
// that make sense for a test, so receivers can exercise their parser.
func TestEventBody(ev *kyc.Event, ep *kyc.WebhookEndpoint) ([]byte, error) {
	return json.Marshal(map[string]any{
		"eventId":        ev.ID,
		"eventType":      kyc.EventWebhookTest,
		"resourceId":     ep.ID,
		"organizationId": ev.OrganizationID,
		"environment":    ev.Environment,
		"actorType":      "api_key",
		"createdAt":      kyc.FormatTime(ev.CreatedAt),
	})
}

// SendTest records svc.webhook.test for one endpoint in the caller's
// transaction and returns the event and its delivery (the job runner sends
// it). A disabled endpoint is UNPROCESSABLE. The API and the CLI both use it.
func SendTest(tx *store.Tx, ep *kyc.WebhookEndpoint) (eventID, deliveryID string, err error) {
	if !ep.Enabled {
		return "", "", kyc.Errorf(kyc.EUnprocessable, "Webhook endpoint %s is disabled; enable it before sending a test event.", ep.ID)
	}
	ev := tx.NewEvent(ep.OrganizationID, ep.Environment, kyc.EventWebhookTest, ep.ID)
	if ev.Payload, err = TestEventBody(ev, ep); err != nil {
		return "", "", err
	}
	ids, err := tx.RecordEvent(ev, ep.ID)
	if err != nil {
		return "", "", err
	}
	if len(ids) != 1 {
		return "", "", fmt.Errorf("test event made %d deliveries, want 1", len(ids))
	}
	// Whoever the transaction acts for (API key, console user, operator)
	// sent it: a change like any other (issue 23 item 13).
	if err := tx.AppendAudit(store.AuditEntry{OrganizationID: ep.OrganizationID, Environment: ep.Environment,
		ResourceType: "webhook_endpoint", ResourceID: ep.ID, Action: "webhook_endpoint.test_sent"}); err != nil {
		return "", "", err
	}
	return ev.ID, ids[0], nil
}
