package console_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"kycd/internal/reviewdata"
	"kycd/kyc"
)

// TestBrowserSettings is an admin changing the organization's settings in
// Chromium: the branding with a logo chosen from a file, the screening
// settings, then the decision policy — a policy with mistakes shows each
// at its member and line, a valid one shows its dry run over the decided
// requests, and saving it from the preview puts it in force. Every page
// is checked at 1280 and 390 px (no CSP violation, no serious or
// critical axe-core violation, no horizontal scrolling) and kept as a
// screenshot.
func TestBrowserSettings(t *testing.T) {
	s := newReviewStack(t)
	for _, p := range []reviewdata.Person{
		{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"},
		{FirstName: "Anna", LastName: "Schmidt", DOB: "1990-02-03", Country: "DE", DocNumber: "T22000131"},
		{FirstName: "Jonas", LastName: "Weber", DOB: "1985-07-09", Country: "DE", DocNumber: "T22000133"},
	} {
		s.awaiting(kyc.Live, p)
	}
	admin := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	base := s.srv.URL
	b := newTab(t, 1280)
	b.signIn(base, admin)

	b.open(base, "/console/settings")
	b.check("settings")
	logo := filepath.Join(t.TempDir(), "logo.png")
	if err := os.WriteFile(logo, pngLogo(t, 160, 48), 0o600); err != nil {
		t.Fatal(err)
	}
	b.typeInto("#displayName", "Acme Bank")
	b.typeInto("#brandColor", "#0b3d91")
	b.do(chromedp.SetUploadFiles(chromedp.ID("logo"), []string{logo}))
	b.click(`form[action="/console/settings/branding"] button[type=submit]`)
	if !strings.Contains(b.body(), "The branding is saved") {
		t.Fatalf("branding: %s", b.body())
	}
	if eval[bool](b, `document.querySelector('img.logo-preview').naturalWidth === 0`) {
		t.Error("the saved logo does not load on the settings page")
	}
	b.check("settings-saved")
	br, err := s.st.FindBranding(t.Context(), s.org.ID)
	if err != nil || br.DisplayName != "Acme Bank" || br.BrandColor != "#0b3d91" || br.Logo == nil {
		t.Fatalf("branding stored: %+v %v", br, err)
	}

	b.press(`input[name=kindsMode][value=custom]`)
	b.press(`input[name=kinds][value=pep]`)
	b.typeInto("#threshold", "0.9")
	b.click(`form[action="/console/settings/screening"] button[type=submit]`)
	if !strings.Contains(b.body(), "The screening settings are saved") {
		t.Fatalf("screening: %s", b.body())
	}

	b.open(base, "/console/settings/policy")
	b.check("policy")
	setPolicy := func(text string) {
		t.Helper()
		js, _ := json.Marshal(text)
		eval[any](b, `document.getElementById('policy-text').value = `+string(js)+`; 0`)
	}
	setPolicy("{\n  \"version\": \"acme-2\",\n  \"minimumAge\": 150,\n  \"actions\": {\"SANCTIONS_MATCH\": \"refuse\"}\n}")
	b.click(`form[action="/console/settings/policy/preview"] button[type=submit]`)
	if body := b.body(); !strings.Contains(body, "minimumAge (line 3): must be from 0 to 100") || !strings.Contains(body, "actions.SANCTIONS_MATCH (line 4)") {
		t.Fatalf("problems: %s", body)
	}
	b.check("policy-problems")

	setPolicy(`{"version": "acme-2", "actions": {"SANCTIONS_MATCH": "reject"}}`)
	b.click(`form[action="/console/settings/policy/preview"] button[type=submit]`)
	if body := b.body(); !strings.Contains(body, "1 of the last 3 live requests") || !strings.Contains(body, "review → reject") {
		t.Fatalf("dry run: %s", body)
	}
	b.check("policy-preview")
	b.click(`form[action="/console/settings/policy"] button[type=submit]`)
	if !strings.Contains(b.body(), "The decision policy is saved") {
		t.Fatalf("save: %s", b.body())
	}
	if set, _ := s.st.FindOrgSettings(t.Context(), s.org.ID); !strings.Contains(string(set.DecisionPolicy), `"acme-2"`) {
		t.Fatalf("policy stored: %s", set.DecisionPolicy)
	}

	b.resize(390)
	for _, p := range []struct{ name, path string }{{"settings", "/console/settings"}, {"policy", "/console/settings/policy"}} {
		b.open(base, p.path)
		b.check(p.name)
	}
	setPolicy(`{"version": "acme-3", "minimumAge": 21}`)
	b.click(`form[action="/console/settings/policy/preview"] button[type=submit]`)
	b.check("policy-preview")
}
