package webhook

import (
	"encoding/json"
	"fmt"
	"net/url"

	"kycd/kyc"
)

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
