package console_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
)

func pngLogo(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x), 60, uint8(y), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// auditActions are the organization's audit actions by a user, oldest
// first.
func (e *env) auditActions(userID string) []string {
	e.t.Helper()
	rows, err := e.st.FindAuditRows(e.t.Context(), store.AuditFilter{OrganizationID: e.org.ID, Actor: userID}, 100)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for i := len(rows) - 1; i >= 0; i-- {
		if strings.HasPrefix(rows[i].Action, "organization.") {
			out = append(out, rows[i].Action)
		}
	}
	return out
}

// TestSettingsBranding: an admin sets the branding the portal shows, with
// a logo; every field is validated at once and a refused form keeps what
// was typed and saves nothing; the change is audited with the user.
func TestSettingsBranding(t *testing.T) {
	e := newEnv(t)
	admin := e.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := e.browser()
	b.login(admin)
	if pg := b.get("/console/settings"); pg.status != http.StatusOK || !strings.Contains(pg.text(), "Branding") {
		t.Fatalf("settings: %d %s", pg.status, pg.text())
	}

	bad := b.multipart("/console/settings/branding", []string{"displayName", "Acme\u202eBank", "supportEmail", "not-an-address", "privacyUrl", "http://acme.example/privacy", "brandColor", "blue", "defaultLocale", "xx"}, formFile{"logo", "logo.bin", []byte("GIF89a not a logo")})
	if bad.status != http.StatusBadRequest {
		t.Fatalf("invalid branding: %d", bad.status)
	}
	for _, want := range []string{"text-direction", "e-mail address", "https URL", "#rrggbb", "must be one of", "logo", `value="not-an-address"`} {
		if !strings.Contains(bad.body, want) {
			t.Errorf("invalid branding page lacks %q", want)
		}
	}
	if br, _ := e.st.FindBranding(t.Context(), e.org.ID); br.SupportEmail != "" || br.Logo != nil {
		t.Fatalf("a refused form saved something: %+v", br)
	}

	big := b.multipart("/console/settings/branding", []string{"displayName", "Acme"}, formFile{"logo", "logo.bin", bytes.Repeat([]byte{0}, kyc.MaxLogoBytes+80<<10)})
	if big.status != http.StatusBadRequest || !strings.Contains(big.text(), "at most 256 KB") {
		t.Fatalf("oversized logo: %d %s", big.status, big.text())
	}

	ok := b.multipart("/console/settings/branding", []string{"displayName", "Acme Bank", "supportEmail", "help@acme.example", "privacyUrl", "https://acme.example/privacy", "brandColor", "#0B3D91", "defaultLocale", "de"}, formFile{"logo", "logo.bin", pngLogo(t, 120, 40)})
	if ok.status != http.StatusSeeOther {
		t.Fatalf("branding: %d %s", ok.status, ok.text())
	}
	br, err := e.st.FindBranding(t.Context(), e.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	if br.DisplayName != "Acme Bank" || br.SupportEmail != "help@acme.example" || br.BrandColor != "#0b3d91" || br.DefaultLocale != "de" ||
		br.Logo == nil || br.Logo.ContentType != "image/png" {
		t.Fatalf("branding saved as %+v", br)
	}
	pg := b.get("/console/settings")
	if !strings.Contains(pg.body, `src="/portal/logos/`+br.Logo.SHA256+`"`) || !strings.Contains(pg.body, `src="data:image/svg`) {
		t.Errorf("settings page shows no logo or swatch")
	}
	// The logo the page shows is served (same origin, the CSP allows it).
	if lg := b.get("/portal/logos/" + br.Logo.SHA256); lg.status != http.StatusOK {
		t.Errorf("logo: %d", lg.status)
	}

	// Clearing a field and removing the logo; no file keeps nothing.
	if r := b.multipart("/console/settings/branding", []string{"displayName", "Acme Bank", "supportEmail", "", "privacyUrl", "https://acme.example/privacy", "brandColor", "#0b3d91", "defaultLocale", "de", "removeLogo", "true"}); r.status != http.StatusSeeOther {
		t.Fatalf("clear: %d %s", r.status, r.text())
	}
	if br, _ = e.st.FindBranding(t.Context(), e.org.ID); br.SupportEmail != "" || br.Logo != nil || br.DisplayName != "Acme Bank" {
		t.Fatalf("after clearing: %+v", br)
	}
	if got := strings.Join(e.auditActions(admin.User.ID), ","); got != "organization.branding_updated,organization.branding_updated" {
		t.Errorf("audit: %s", got)
	}
}

// TestSettingsScreeningReviewSignIn: threshold, list kinds, four-eyes and
// required two-step sign-in; only what changes is written and audited.
func TestSettingsScreeningReviewSignIn(t *testing.T) {
	e := newEnv(t)
	admin := e.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := e.browser()
	b.login(admin)
	for _, tt := range []struct {
		threshold string
		kinds     []string
		want      string
	}{
		{"1.5", nil, "greater than 0 and at most 1"},
		{"abc", nil, "greater than 0 and at most 1"},
		{"NaN", nil, "greater than 0 and at most 1"},
		{"0.9", []string{"crime"}, "unknown AML kind"},
	} {
		kv := []string{"threshold", tt.threshold, "kindsMode", "custom"}
		for _, k := range tt.kinds {
			kv = append(kv, "kinds", k)
		}
		pg := b.post("/console/settings/screening", kv...)
		if pg.status != http.StatusBadRequest || !strings.Contains(pg.text(), tt.want) || !strings.Contains(pg.body, `value="`+tt.threshold+`"`) {
			t.Errorf("threshold %q kinds %v: %d %s", tt.threshold, tt.kinds, pg.status, pg.text())
		}
	}
	if pg := b.post("/console/settings/screening", "threshold", "0.9", "kindsMode", "custom", "kinds", "pep"); pg.status != http.StatusSeeOther {
		t.Fatalf("screening: %d %s", pg.status, pg.text())
	}
	if th, _ := e.st.AMLThreshold(t.Context(), e.org.ID, 0.82); th != 0.9 {
		t.Errorf("threshold %v", th)
	}
	if k, _ := e.st.AMLKinds(t.Context(), e.org.ID); strings.Join(k, ",") != "sanctions,pep" {
		t.Errorf("kinds %v", k)
	}
	// The same again changes nothing and writes no audit row.
	b.post("/console/settings/screening", "threshold", "0.9", "kindsMode", "custom", "kinds", "pep")
	// Back to the defaults.
	b.post("/console/settings/screening", "threshold", "", "kindsMode", "default", "kinds", "pep")
	if k, _ := e.st.AMLKinds(t.Context(), e.org.ID); k != nil {
		t.Errorf("kinds after default: %v", k)
	}
	if th, _ := e.st.AMLThreshold(t.Context(), e.org.ID, 0.82); th != 0.82 {
		t.Errorf("threshold after default %v", th)
	}

	if pg := b.post("/console/settings/review", "fourEyes", "maybe"); pg.status != http.StatusBadRequest {
		t.Errorf("four-eyes maybe: %d", pg.status)
	}
	b.post("/console/settings/review", "fourEyes", "on")
	if s, _ := e.st.FindOrgSettings(t.Context(), e.org.ID); !s.FourEyes {
		t.Error("four-eyes not on")
	}
	b.post("/console/settings/require-totp", "require", "true")
	if on, _ := e.st.RequireTOTP(t.Context(), e.org.ID); !on {
		t.Error("two-step sign-in not required")
	}
	if !strings.Contains(b.get("/console/settings").text(), "Two-step sign-in is required") {
		t.Error("settings page does not say two-step sign-in is required")
	}
	want := "organization.aml_threshold_changed,organization.aml_kinds_changed,organization.aml_threshold_changed,organization.aml_kinds_changed," +
		"organization.four_eyes_changed,organization.require_totp"
	if got := strings.Join(e.auditActions(admin.User.ID), ","); got != want {
		t.Errorf("audit:\n got %s\nwant %s", got, want)
	}
}
