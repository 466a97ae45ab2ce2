package console_test

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/server"
	"kycd/store"
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

// TestContactEmailSetting is issue 23 item 22: an admin sets, corrects
// and clears the organization's contact e-mail on the settings page; an
// invalid one is refused with what was typed kept; each change is audited.
func TestContactEmailSetting(t *testing.T) {
	e := newEnv(t)
	admin := e.mustUser("admin@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := e.browser()
	b.login(admin)
	if pg := b.get("/console/settings"); !strings.Contains(pg.body, `id="contactEmail"`) || !strings.Contains(pg.body, "compliance@") {
		t.Fatalf("settings page has no contact e-mail field with the address: %s", pg.text())
	}
	for _, bad := range []string{"not an address", "Ops <ops@acme.example>", "ops@localhost"} {
		pg := b.post("/console/settings/contact", "contactEmail", bad)
		if pg.status != http.StatusBadRequest || !strings.Contains(pg.text(), "bare e-mail address") || !strings.Contains(pg.body, `value="`+html.EscapeString(bad)+`"`) {
			t.Errorf("%q: %d %s", bad, pg.status, pg.text())
		}
	}
	for _, v := range []string{"ops@acme.example", ""} {
		if pg := b.post("/console/settings/contact", "contactEmail", v); pg.status != http.StatusSeeOther {
			t.Fatalf("save %q: %d %s", v, pg.status, pg.text())
		}
		o, err := e.st.FindOrganization(t.Context(), e.org.ID)
		if err != nil || o.ContactEmail != v {
			t.Errorf("after saving %q the organization has %q (%v)", v, o.ContactEmail, err)
		}
	}
	rows, err := e.st.FindAuditRows(t.Context(), store.AuditFilter{OrganizationID: e.org.ID, Actor: admin.User.ID, Action: "organization.contact_email_changed"}, 10)
	if err != nil || len(rows) != 2 {
		t.Errorf("audit rows by the admin: %d (%v)", len(rows), err)
	}
}

// TestWebhooksPageSaysWhenNoticesCannotBeSent is issue 23 item 22: the
// webhooks page says when the e-mail about a disabled endpoint cannot
// reach anyone (no contact address) or would wait unsent (no SMTP).
func TestWebhooksPageSaysWhenNoticesCannotBeSent(t *testing.T) {
	for _, tt := range []struct {
		name    string
		contact string
		mail    bool
		want    string
	}{
		{"no contact", "", true, "Nobody is told when an endpoint is disabled"},
		{"no SMTP", "ops@acme.example", false, "E-mail is not set up"},
		{"both", "ops@acme.example", true, "ops@acme.example is told by e-mail"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, func(_ *env, o *server.Options) { o.MailConfigured = tt.mail })
			if err := e.st.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetContactEmail(e.org.ID, tt.contact) }); err != nil {
				t.Fatal(err)
			}
			admin := e.mustUser("admin@acme.example", "Ada Admin", kyc.RoleAdmin)
			b := e.browser()
			b.login(admin)
			pg := b.get("/console/sandbox/webhooks")
			if !strings.Contains(pg.text(), tt.want) {
				t.Errorf("the webhooks page does not say %q: %s", tt.want, pg.text())
			}
		})
	}
}
