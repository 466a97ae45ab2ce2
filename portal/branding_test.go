package portal_test

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"

	"kycd/branding"
	"kycd/kyc"
	"kycd/store"
	"kycd/verification"
)

// brand gives the env's organization a branding and, when logo is not
// nil, that logo; it returns the stored logo.
func (e *env) brand(u kyc.BrandingUpdate, logo []byte) *kyc.Logo {
	e.t.Helper()
	var l *kyc.Logo
	if logo != nil {
		var err error
		if l, _, err = branding.ProcessLogo(logo); err != nil {
			e.t.Fatal(err)
		}
	}
	u.Normalize()
	if errs := u.Validate(); len(errs) > 0 {
		e.t.Fatalf("branding: %v", errs)
	}
	err := e.st.InTx(e.t.Context(), func(tx *store.Tx) error {
		_, err := tx.UpdateBranding(e.org.ID, u, l, false, kyc.ActorOperator, "test")
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return l
}

func ptr(s string) *string { return &s }

func logoPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 120, 40))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBrandedPages: the applicant learns who is asking. The header shows
// the organization's display name and logo in its colours; the consent
// step names it as the data controller with its privacy policy and
// support address; the state pages and the done step name it instead of
// "the company that sent you this link".
func TestBrandedPages(t *testing.T) {
	e := newEnv(t)
	logo := e.brand(kyc.BrandingUpdate{DisplayName: ptr("Acme Bank"), SupportEmail: ptr("help@acme.example"),
		PrivacyURL: ptr("https://acme.example/privacy"), BrandColor: ptr("#E30613")}, logoPNG(t))
	token, _ := e.create(kyc.WorkflowStandard, "")
	r := e.do("GET", "/portal/"+token, nil)
	if r.status != 200 {
		t.Fatalf("GET: %d", r.status)
	}
	for _, want := range []string{
		`<span class="brand-name" id="brand-name">Acme Bank</span>`,
		`<img class="brand-logo" src="/portal/logos/` + logo.SHA256 + `" alt="Logo of Acme Bank">`,
		`<link rel="stylesheet" href="/portal/theme/e30613.css">`,
		`<title>Verify your identity for Acme Bank</title>`,
		`Acme Bank has asked you to verify your identity.`,
		`to check your identity for Acme Bank.`,
		`Acme Bank is responsible for your data (the data controller).`,
		`<a id="privacy-link" href="https://acme.example/privacy" target="_blank" rel="noopener noreferrer">Read the privacy policy of Acme Bank</a>`,
		`<a href="mailto:help@acme.example">help@acme.example</a>`,
		`Acme Bank will let you know the result.`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(r.body, "the company that sent you") {
		t.Error("the page still speaks of \"the company that sent you\"")
	}

	// The logo: its bytes, its type, and a policy that lets nothing run.
	lr := e.do("GET", "/portal/logos/"+logo.SHA256, nil)
	if lr.status != 200 || lr.header.Get("Content-Type") != "image/png" || lr.body != string(logo.Data) ||
		!strings.Contains(lr.header.Get("Content-Security-Policy"), "sandbox") || lr.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("logo: %d %v", lr.status, lr.header)
	}
	for _, bad := range []string{strings.Repeat("0", 64), "../../etc/passwd", strings.ToUpper(logo.SHA256), "abc"} {
		if r := e.do("GET", "/portal/logos/"+bad, nil); r.status == 200 || strings.Contains(r.body, "PNG") {
			t.Errorf("logo %q: %d", bad, r.status)
		}
	}
	// The theme: the palette's custom properties.
	th := e.do("GET", "/portal/theme/e30613.css", nil)
	if th.status != 200 || th.header.Get("Content-Type") != "text/css; charset=utf-8" || !strings.Contains(th.body, "--brand:#e30613;--on-brand:#ffffff") {
		t.Errorf("theme: %d %q", th.status, th.body)
	}
	for _, bad := range []string{"red.css", "e30613", "E30613.css", "e3061.css", "e30613.css;x"} {
		if r := e.do("GET", "/portal/theme/"+bad, nil); r.status != 404 {
			t.Errorf("theme %q: %d", bad, r.status)
		}
	}

	// The state pages name the organization.
	cancelled, cr := e.create(kyc.WorkflowStandard, "")
	if err := e.st.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := e.svc.Cancel(tx, e.org.ID, kyc.Sandbox, cr.ID, verification.Actor{Type: kyc.ActorAPIKey}, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", "/portal/"+cancelled, nil); r.status != 410 || !strings.Contains(r.body, "Acme Bank has cancelled this verification.") ||
		!strings.Contains(r.body, "contact Acme Bank.") || !strings.Contains(r.body, "Acme Bank</span>") {
		t.Errorf("cancelled page: %d\n%s", r.status, r.body)
	}
	e.expire()
	if r := e.do("GET", "/portal/"+token, nil); r.status != 410 || !strings.Contains(r.body, "Ask Acme Bank for a new link.") {
		t.Errorf("expired page: %d", r.status)
	}
}

// TestUnbrandedPagesNameTheOrganization: without a display name the
// organization's own name is shown; there is always someone named.
func TestUnbrandedPagesNameTheOrganization(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowDocumentOnly, "")
	r := e.do("GET", "/portal/"+token, nil)
	for _, want := range []string{`id="brand-name">acme</span>`, "acme has asked you to verify your identity.",
		"acme is responsible for your data", `class="bar-icon"`} {
		if !strings.Contains(r.body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, unwanted := range []string{"privacy-link", "mailto:", "/portal/theme/", "brand-logo"} {
		if strings.Contains(r.body, unwanted) {
			t.Errorf("page has %s without that branding", unwanted)
		}
	}
}

// TestSVGLogoServed: a sanitised SVG logo is served as SVG under the
// policy that keeps it inert even when opened as a page.
func TestSVGLogoServed(t *testing.T) {
	e := newEnv(t)
	logo := e.brand(kyc.BrandingUpdate{}, []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="alert(1)"><script>alert(2)</script><rect width="10" height="10"/></svg>`))
	r := e.do("GET", "/portal/logos/"+logo.SHA256, nil)
	if r.status != 200 || r.header.Get("Content-Type") != "image/svg+xml" || strings.Contains(r.body, "alert") ||
		r.header.Get("Content-Security-Policy") != "default-src 'none'; style-src 'unsafe-inline'; sandbox" {
		t.Errorf("svg logo: %d %v %s", r.status, r.header, r.body)
	}
}
