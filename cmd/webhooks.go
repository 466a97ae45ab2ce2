package cmd

import (
	"fmt"
	"os"
	"time"

	"kycd/webhook"
)

// WebhooksCmd groups the webhook commands.
type WebhooksCmd struct {
	Verify WebhooksVerifyCmd `cmd:"" help:"Check a delivery's X-Svc-Signature against its body and your endpoint secret."`
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
