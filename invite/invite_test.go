package invite_test

import (
	"strings"
	"testing"
	"time"

	"kycd/invite"
	"kycd/kyc"
	"kycd/locale"
)

func TestComposeEveryLanguage(t *testing.T) {
	b := &kyc.Branding{Name: "Acme Ltd", DisplayName: "Acme Bank", SupportEmail: "help@acme.example",
		PrivacyURL: "https://acme.example/privacy", BrandColor: "#e30613",
		Logo: &kyc.Logo{SHA256: strings.Repeat("a", 64), ContentType: "image/png"}}
	exp := time.Date(2031, 4, 30, 15, 4, 0, 0, time.UTC)
	for _, c := range locale.All() {
		m, err := invite.Compose(invite.Input{Branding: b, Catalog: c, FirstName: "Zoë", URL: "https://kyc.example/portal/tok", ExpiresAt: exp})
		if err != nil {
			t.Fatalf("%s: %v", c.Tag(), err)
		}
		for name, body := range map[string]string{"text": m.Text, "html": m.HTML} {
			for _, want := range []string{"Acme Bank", "https://kyc.example/portal/tok", "https://acme.example/privacy", "help@acme.example",
				"Zoë", c.Date(exp), c.T("email.button")} {
				if !strings.Contains(body, want) {
					t.Errorf("%s %s lacks %q", c.Tag(), name, want)
				}
			}
		}
		if !strings.Contains(m.Subject, "Acme Bank") || m.Subject != c.T("email.subject", "org", "Acme Bank") {
			t.Errorf("%s subject %q", c.Tag(), m.Subject)
		}
		for _, want := range []string{`lang="` + c.Tag() + `"`, `dir="` + c.Dir() + `"`, "background:#e30613", `src="cid:logo.png"`} {
			if !strings.Contains(m.HTML, want) {
				t.Errorf("%s html lacks %s", c.Tag(), want)
			}
		}
		if !m.InlineLogo {
			t.Errorf("%s: a PNG logo is not inline", c.Tag())
		}
	}
}

// TestComposeHostileName: the organization's name and the applicant's
// are text, never markup or headers.
func TestComposeHostileName(t *testing.T) {
	b := &kyc.Branding{Name: "Evil <script>alert(1)</script>\r\nBcc: victim@example.com",
		Logo: &kyc.Logo{SHA256: strings.Repeat("b", 64), ContentType: "image/svg+xml"}}
	m, err := invite.Compose(invite.Input{Branding: b, Catalog: locale.Get("en"), FirstName: `"><img src=x onerror=alert(1)>`,
		URL: "https://kyc.example/portal/tok", ExpiresAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(m.HTML, "<script>") || strings.Contains(m.HTML, "<img src=x") || strings.ContainsAny(m.Subject, "\r\n") {
		t.Errorf("markup or a header got through:\nsubject %q\n%s", m.Subject, m.HTML)
	}
	if m.InlineLogo || strings.Contains(m.HTML, "cid:") {
		t.Error("an SVG logo is shown inline; mail programs do not show SVG")
	}
	// Without a brand colour the portal's own is used.
	if !strings.Contains(m.HTML, "background:#0b3d91") {
		t.Error("no default colour")
	}
}

// TestComposeResubmissionEveryLanguage: a resubmission's e-mail names the
// step in the applicant's language, carries the reviewer's message as
// text (never markup), and has its own subject and button, in every
// portal language.
func TestComposeResubmissionEveryLanguage(t *testing.T) {
	b := &kyc.Branding{Name: "Acme Ltd", DisplayName: "Acme Bank"}
	exp := time.Date(2031, 4, 30, 15, 4, 0, 0, time.UTC)
	msg := "The back is blurred <b>x</b>; please take it again."
	for _, c := range locale.All() {
		for _, step := range kyc.ResubmissionSteps {
			m, err := invite.Compose(invite.Input{Branding: b, Catalog: c, FirstName: "Zoë", URL: "https://kyc.example/portal/tok2",
				ExpiresAt: exp, Redo: &invite.Redo{Step: string(step), Message: msg}})
			if err != nil {
				t.Fatalf("%s: %v", c.Tag(), err)
			}
			stepText := c.T("redo.step." + string(step))
			if stepText == "redo.step."+string(step) || stepText == "" {
				t.Fatalf("%s: no words for %s", c.Tag(), step)
			}
			for name, body := range map[string]string{"text": m.Text, "html": m.HTML} {
				for _, want := range []string{"https://kyc.example/portal/tok2", stepText, c.T("email.redo_button"), c.Date(exp)} {
					if !strings.Contains(body, want) {
						t.Errorf("%s %s %s lacks %q", c.Tag(), step, name, want)
					}
				}
				if strings.Contains(body, c.T("email.intro", "org", "Acme Bank")) {
					t.Errorf("%s %s: the first link's wording in a resubmission", c.Tag(), name)
				}
			}
			if !strings.Contains(m.Text, msg) || !strings.Contains(m.HTML, "&lt;b&gt;x&lt;/b&gt;") {
				t.Errorf("%s: the message is not carried as text", c.Tag())
			}
			if m.Subject != c.T("email.redo_subject", "org", "Acme Bank") {
				t.Errorf("%s subject %q", c.Tag(), m.Subject)
			}
		}
	}
}
