package server_test

import (
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
)

// TestKYCLocale: the optional locale (an extension) is a BCP 47 tag of a
// language the portal speaks, kept as given and returned by GET; the
// link's e-mail is written in it, branded with the organization's name,
// colour and support address. Anything else is a 400 naming locale.
func TestKYCLocale(t *testing.T) {
	e := newKYCEnv(t)
	name, support, color := "Acme Bank", "help@acme.example", "#e30613"
	err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.UpdateBranding(e.A.ID, kyc.BrandingUpdate{DisplayName: &name, SupportEmail: &support, BrandColor: &color},
			nil, false, kyc.ActorOperator, "test")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`"ja"`, `"de_DE"`, `"english"`, `""`, `42`, `"` + strings.Repeat("a", 70) + `"`} {
		r := e.call("POST", "/v1/kyc-requests", e.A.SandboxKey, `{"applicant":{"firstName":"Ada","lastName":"Lovelace"},"locale":`+bad+`}`)
		if r.status != 400 || r.errCode(t) != "VALIDATION_ERROR" || !strings.Contains(string(r.body), `"field":"locale"`) {
			t.Errorf("locale %s: %d %s", bad, r.status, r.body)
		}
	}
	c := e.create(e.A.SandboxKey, `{"applicant":{"firstName":"Erika","lastName":"Mustermann","email":"erika@example.com"},"locale":"de-ch"}`)
	got := e.call("GET", "/v1/kyc-requests/"+c["id"].(string), e.A.SandboxKey, "").json(t)
	if got["locale"] != "de-CH" {
		t.Errorf("locale=%v, want de-CH (canonical)", got["locale"])
	}
	emails, err := e.store.FindEmails(t.Context())
	if err != nil || len(emails) != 1 {
		t.Fatalf("emails %v %v", emails, err)
	}
	m, err := e.store.FindEmail(t.Context(), emails[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Hallo Erika,", "Acme Bank bittet Sie, Ihre Identität zu bestätigen", c["portalUrl"].(string), "help@acme.example"} {
		if !strings.Contains(m.Body, want) || !strings.Contains(m.HTML, want) {
			t.Errorf("e-mail lacks %q:\n%s\n%s", want, m.Body, m.HTML)
		}
	}
	if m.Subject != "Acme Bank: Bitte bestätigen Sie Ihre Identität" || m.FromName != "Acme Bank" || m.ReplyTo != "help@acme.example" ||
		!strings.Contains(m.HTML, "background:#e30613") {
		t.Errorf("subject %q from %q reply-to %q", m.Subject, m.FromName, m.ReplyTo)
	}
	// Without a locale: the organization's default, then English.
	c2 := e.create(e.A.SandboxKey, `{"applicant":{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com"}}`)
	if got := e.call("GET", "/v1/kyc-requests/"+c2["id"].(string), e.A.SandboxKey, "").json(t); got["locale"] != nil {
		t.Errorf("locale=%v, want null", got["locale"])
	}
	emails, _ = e.store.FindEmails(t.Context())
	if len(emails) != 2 || emails[1].Subject != "Acme Bank: please verify your identity" {
		t.Errorf("default e-mail: %+v", emails)
	}
}
