package cmd

import (
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/webhook"
)

// WebhooksCmd groups the webhook commands.
type WebhooksCmd struct {
	Add     WebhooksAddCmd     `cmd:"" help:"Create a webhook endpoint; prints its id and signing secret (shown only now)."`
	List    WebhooksListCmd    `cmd:"" help:"List webhook endpoints."`
	Disable WebhooksDisableCmd `cmd:"" help:"Disable an endpoint."`
	Enable  WebhooksEnableCmd  `cmd:"" help:"Enable an endpoint."`
	Test    WebhooksTestCmd    `cmd:"" help:"Send svc.webhook.test to an endpoint (the running server delivers it)."`
	Verify  WebhooksVerifyCmd  `cmd:"" help:"Check a delivery's X-Svc-Signature against its body and your endpoint secret."`
}

// WebhooksVerifyCmd verifies one delivery, as a receiver would.
type WebhooksVerifyCmd struct {
	Secret   string `required:"" env:"KYCD_WEBHOOK_SECRET" help:"The endpoint's signing secret (whsec_…), exactly as shown at creation."`
	Header   string `required:"" help:"The X-Svc-Signature header value, e.g. v1,t=1767323045,sig=…"`
	BodyFile string `name:"body-file" required:"" type:"existingfile" help:"File holding the raw request body, byte for byte."`
	Now      int64  `help:"Verify as of this Unix time instead of now (for a delivery captured earlier)."`
}

// Run prints "valid" or fails with the reason.
func (c *WebhooksVerifyCmd) Run(e *env) error {
	body, err := os.ReadFile(c.BodyFile)
	if err != nil {
		return err
	}
	now := time.Now()
	if c.Now != 0 {
		now = time.Unix(c.Now, 0)
	}
	if err := webhook.Verify(c.Secret, c.Header, body, now); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "valid")
	return nil
}

// WebhooksAddCmd creates an endpoint for an organization's environment.
type WebhooksAddCmd struct {
	dbFlag
	secretsFlag
	masterKeyFlag
	Org         string   `required:"" env:"KYCD_ORG" help:"Organization id."`
	Env         string   `required:"" enum:"sandbox,live" env:"KYCD_ENV" help:"Environment whose events it receives."`
	URL         string   `name:"url" required:"" help:"Receiver URL (https in live; a public address unless --allow-private-webhooks)."`
	Events      []string `name:"event" help:"Event type to receive (repeat; none = all types)."`
	Description string   `help:"A label."`
	DualSign    bool     `name:"dual-sign" help:"During a secret rotation's overlap, sign with the previous secret too (two sig= in X-Svc-Signature); default one, the newest."`
	// The same switch, and environment variable, as kycd serve's: the API
	// and this command apply one rule.
	AllowPrivateWebhooks bool `name:"allow-private-webhooks" env:"KYCD_ALLOW_PRIVATE_WEBHOOKS" help:"Allow a loopback or private receiver address (on-prem networks); the server needs the same flag to deliver there."`
}

// Run creates the endpoint and prints its id and secret (shown only now).
func (c *WebhooksAddCmd) Run(e *env) error {
	var types []kyc.EventType
	for _, t := range c.Events {
		if !kyc.EventType(t).Valid() {
			return fmt.Errorf("unknown event type %q", t)
		}
		types = append(types, kyc.EventType(t))
	}
	if err := webhook.CheckTarget(e.ctx, c.URL, kyc.Environment(c.Env), c.AllowPrivateWebhooks); err != nil {
		return fmt.Errorf("--url: %w", err)
	}
	if err := existingDB(c.DB); err != nil {
		return err // before a secrets key file is made for a database that is not there
	}
	box, err := c.secretsBox(c.DB, e)
	if err != nil {
		return err
	}
	s, err := c.openAudited(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	var ep *kyc.WebhookEndpoint
	err = s.InTx(e.ctx, func(tx *store.Tx) (err error) {
		ep, err = tx.CreateWebhookEndpoint(box, store.NewWebhookEndpoint{OrganizationID: c.Org, Environment: kyc.Environment(c.Env),
			URL: c.URL, Description: c.Description, EventTypes: types, DualSign: c.DualSign})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s\n%s\n", ep.ID, ep.Secret)
	return nil
}

// WebhooksListCmd lists endpoints.
type WebhooksListCmd struct {
	dbFlag
	Org string `env:"KYCD_ORG" help:"Only this organization's endpoints."`
}

// Run prints one endpoint per line, never secrets.
func (c *WebhooksListCmd) Run(e *env) error {
	s, err := openStore(e.ctx, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	eps, err := s.FindWebhookEndpoints(e.ctx, c.Org, "")
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tORG\tENV\tURL\tEVENTS\tSTATE")
	for _, ep := range eps {
		events := "all"
		if len(ep.EventTypes) > 0 {
			events = fmt.Sprint(ep.EventTypes)
		}
		state := "enabled"
		if !ep.Enabled {
			state = "disabled: " + ep.DisabledReason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", ep.ID, ep.OrganizationID, ep.Environment, ep.URL, events, state)
	}
	return tw.Flush()
}

// endpointRef names one endpoint of the database, for the commands that act
// on one.
type endpointRef struct {
	dbFlag
	masterKeyFlag
	ID string `arg:"" name:"ENDPOINT_ID" help:"we_<ulid>"`
}

// open opens the database and finds the endpoint; the caller closes s.
func (c *endpointRef) open(e *env) (s *store.Store, ep *kyc.WebhookEndpoint, err error) {
	if s, err = c.openAudited(e, c.DB); err != nil {
		return nil, nil, err
	}
	if ep, err = s.FindWebhookEndpointByID(e.ctx, c.ID); err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, ep, nil
}

func (c *endpointRef) setEnabled(e *env, enabled bool) error {
	s, ep, err := c.open(e)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.InTx(e.ctx, func(tx *store.Tx) error {
		_, err := tx.SetWebhookEndpointEnabled(ep.OrganizationID, ep.Environment, ep.ID, enabled, "disabled by an operator (kycd webhooks disable)")
		return err
	})
}

// WebhooksDisableCmd disables an endpoint.
type WebhooksDisableCmd struct{ endpointRef }

// Run disables it.
func (c *WebhooksDisableCmd) Run(e *env) error { return c.setEnabled(e, false) }

// WebhooksEnableCmd enables an endpoint.
type WebhooksEnableCmd struct{ endpointRef }

// Run enables it.
func (c *WebhooksEnableCmd) Run(e *env) error { return c.setEnabled(e, true) }

// WebhooksTestCmd sends svc.webhook.test to one endpoint (delivered by the
// running server's job runner).
type WebhooksTestCmd struct{ endpointRef }

// Run records the test event and prints its delivery id.
func (c *WebhooksTestCmd) Run(e *env) error {
	s, ep, err := c.open(e)
	if err != nil {
		return err
	}
	defer s.Close()
	var deliveryID string
	err = s.InTx(e.ctx, func(tx *store.Tx) (err error) {
		_, deliveryID, err = webhook.SendTest(tx, ep)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, deliveryID)
	return nil
}
