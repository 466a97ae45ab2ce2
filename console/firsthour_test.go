package console_test

import (
	"strings"
	"testing"

	"kycd/kyc"
)

// TestPrivateWebhookSaysHowToAllow is issue 23 item 17: a webhook URL
// refused as private says, on the console's form, which switch allows it.
func TestPrivateWebhookSaysHowToAllow(t *testing.T) {
	e := newEnv(t)
	admin := e.mustUser("admin@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := e.browser()
	b.login(admin)
	pg := b.post("/console/sandbox/webhooks", "url", "http://127.0.0.1:9/hook")
	if pg.status != 400 {
		t.Fatalf("create: %d, want 400", pg.status)
	}
	if text := pg.text(); !strings.Contains(text, "private or internal") || !strings.Contains(text, "--allow-private-webhooks") {
		t.Errorf("the refusal does not say how to allow it: %s", text)
	}
}
