package portal_test

import (
	"bytes"
	"log/slog"
	"regexp"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/portal"
	"kycd/store"
	"kycd/verification"
)

// TestAppPage opens a fresh link: the app page, with the applicant's
// name and country preselected, and the opening is recorded once
// (portalOpenedAt and a timeline entry; the status stays link_generated,
// in_progress is not a status of the spec). A HEAD (a link checker) does
// not count as opening it.
func TestAppPage(t *testing.T) {
	e := newEnv(t)
	token, req := e.create(kyc.WorkflowStandard, "")

	if r := e.do("HEAD", "/portal/"+token, nil); r.status != 200 {
		t.Fatalf("HEAD: %d", r.status)
	}
	if got := e.request(req.ID); got.Status != kyc.KYCLinkGenerated || got.PortalOpenedAt != nil {
		t.Fatalf("after HEAD status=%s portalOpenedAt=%v, want link_generated and not opened", got.Status, got.PortalOpenedAt)
	}

	r := e.do("GET", "/portal/"+token, nil)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET: %d %s", r.status, r.header.Get("Content-Type"))
	}
	for _, want := range []string{
		`<html lang="en" dir="ltr">`,
		`data-captures-url="/portal/` + token + `/captures?lang=en"`,
		`data-submit-url="/portal/` + token + `/submit?lang=en"`,
		`data-document-url="/portal/` + token + `/document?lang=en"`,
		`id="doc-expiry"`,
		`data-has-mrz="false" data-label="Driving licence"`,
		`data-has-mrz="true" data-label="Passport"`,
		`data-workflow="standard"`,
		`Hello Erika`,
		`id="consent"`,
		`<option value="DE" selected>Germany</option>`,
		`<option value="XK">Kosovo</option>`,
		`value="id_card" data-has-back="true"`,
		`value="passport" data-has-back="false"`,
		`accept="image/jpeg,image/png,image/webp" capture="environment"`,
		`my identity document and a photo of my face`,
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	got := e.request(req.ID)
	if got.Status != kyc.KYCLinkGenerated || got.PortalOpenedAt == nil {
		t.Fatalf("after GET status=%s portalOpenedAt=%v, want link_generated and opened", got.Status, got.PortalOpenedAt)
	}
	openedAt := *got.PortalOpenedAt
	// A second visit changes nothing and writes no second timeline entry.
	if r := e.do("GET", "/portal/"+token, nil); r.status != 200 {
		t.Fatalf("second GET: %d", r.status)
	}
	events, err := e.st.FindKYCEvents(t.Context(), req.ID)
	if err != nil {
		t.Fatal(err)
	}
	opened := 0
	for _, ev := range events {
		if ev.Type == kyc.TimelineOpened {
			opened++
			if ev.Type != "svc.kyc.portal_link_opened" || ev.FromStatus == nil || *ev.FromStatus != kyc.KYCLinkGenerated ||
				ev.ToStatus != kyc.KYCLinkGenerated || ev.ActorType != kyc.ActorApplicant {
				t.Errorf("opened entry %+v", ev)
			}
		}
	}
	if opened != 1 {
		t.Errorf("opened entries=%d, want 1", opened)
	}
	if again := e.request(req.ID).PortalOpenedAt; again == nil || !again.Equal(openedAt) {
		t.Errorf("second visit moved portalOpenedAt to %v", again)
	}
}

// TestAppPageDocumentOnly leaves the face out of the consent text.
func TestAppPageDocumentOnly(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowDocumentOnly, "")
	r := e.do("GET", "/portal/"+token, nil)
	if r.status != 200 || !strings.Contains(r.body, `data-workflow="document_only"`) ||
		strings.Contains(r.body, "photo of my face") || !strings.Contains(r.body, "my identity document is processed") {
		t.Fatalf("document_only page: %d", r.status)
	}
}

// TestStatePages shows every link that cannot be used its own page, with
// the right status and never an internal error text.
func TestStatePages(t *testing.T) {
	e := newEnv(t)
	cancelled, cr := e.create(kyc.WorkflowStandard, "")
	err := e.st.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := e.svc.Cancel(tx, e.org.ID, kyc.Sandbox, cr.ID, verification.Actor{Type: kyc.ActorAPIKey}, nil)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	submitted, _ := e.create(kyc.WorkflowDocumentOnly, "https://shop.example/kyc/done?x=1")
	if r := e.upload(submitted, doc("front", "passport"), photo(t, 640, 480)); r.status != 201 {
		t.Fatalf("upload: %d %s", r.status, r.body)
	}
	e.mustDocument(submitted)
	if r := e.do("POST", "/portal/"+submitted+"/submit", nil); r.status != 200 {
		t.Fatalf("submit: %d %s", r.status, r.body)
	}
	expired, _ := e.create(kyc.WorkflowStandard, "")
	// Expiry is checked against the clock: the link is expired before the
	// expiry job has run.
	e.expire()

	for _, tt := range []struct {
		name, path string
		status     int
		state      string
		contains   string
	}{
		{"expired", "/portal/" + expired, 410, "expired", "This link has expired"},
		{"cancelled", "/portal/" + cancelled, 410, "cancelled", "Verification cancelled"},
		{"submitted", "/portal/" + submitted, 410, "done", `href="https://shop.example/kyc/done?x=1"`},
		{"unknown token", "/portal/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 404, "notfound", "Link not found"},
		{"malformed token", "/portal/not-a-token!", 404, "notfound", "Link not found"},
		{"no token", "/portal/", 404, "notfound", "Link not found"},
		{"unknown path", "/portal/" + expired + "/nothing/here", 404, "notfound", "Link not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("GET", tt.path, nil)
			if r.status != tt.status {
				t.Fatalf("status=%d, want %d", r.status, tt.status)
			}
			if !strings.Contains(r.body, `data-state="`+tt.state+`"`) || !strings.Contains(r.body, tt.contains) {
				t.Errorf("page for %s lacks state %q or %q:\n%s", tt.name, tt.state, tt.contains, r.body)
			}
			for _, leak := range []string{"kyc:", "UNPROCESSABLE", "NOT_FOUND", "goroutine", ".go:"} {
				if strings.Contains(r.body, leak) {
					t.Errorf("page shows %q", leak)
				}
			}
		})
	}
}

// TestSecurityHeaders checks the headers on every kind of answer, and that
// the pages contain nothing the CSP would block (inline script, inline
// style, event-handler attributes).
func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowStandard, "")
	page := e.do("GET", "/portal/"+token, nil)
	const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; " +
		"media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
	for name, r := range map[string]*response{
		"app page":    page,
		"state page":  e.do("GET", "/portal/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", nil),
		"json error":  e.do("POST", "/portal/"+token+"/submit", nil),
		"asset":       e.do("GET", assetURL(t, page.body, "portal.css"), nil),
		"unknown api": e.do("DELETE", "/portal/"+token, nil),
	} {
		h := r.header
		if got := h.Get("Content-Security-Policy"); got != csp {
			t.Errorf("%s: CSP=%q", name, got)
		}
		if h.Get("Referrer-Policy") != "no-referrer" || h.Get("X-Content-Type-Options") != "nosniff" ||
			!strings.Contains(h.Get("Permissions-Policy"), "camera=(self)") {
			t.Errorf("%s: headers %v", name, h)
		}
		wantCache := "no-store"
		if name == "asset" {
			wantCache = "public, max-age=31536000, immutable"
		}
		if got := h.Get("Cache-Control"); got != wantCache {
			t.Errorf("%s: Cache-Control=%q, want %q", name, got, wantCache)
		}
	}
	inline := regexp.MustCompile(`(?i)<script(?:\s[^>]*)?>[^<]|<script>|<style|\sstyle=|\son[a-z]+=|javascript:`)
	// The catalog's messages for the script are data: a block of type
	// application/json, which never runs.
	data := regexp.MustCompile(`<script type="application/json" id="portal-messages">[^<]*</script>`)
	if !data.MatchString(page.body) {
		t.Error("app page lacks its messages block")
	}
	if m := inline.FindString(data.ReplaceAllString(page.body, "")); m != "" {
		t.Errorf("app page has inline code the CSP blocks: %q", m)
	}
}

var assetRef = regexp.MustCompile(`"(/portal/assets/[0-9a-f]+/([a-z.]+))"`)

// assetURL finds the versioned URL of name in a page.
func assetURL(t *testing.T, page, name string) string {
	t.Helper()
	for _, m := range assetRef.FindAllStringSubmatch(page, -1) {
		if m[2] == name {
			return m[1]
		}
	}
	t.Fatalf("page does not link %s", name)
	return ""
}

// TestAssets serves the files a page links, with their types, and only
// under their current hash.
func TestAssets(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowStandard, "")
	page := e.do("GET", "/portal/"+token, nil).body
	for name, ct := range map[string]string{"portal.css": "text/css; charset=utf-8", "portal.js": "text/javascript; charset=utf-8",
		"camera.js": "text/javascript; charset=utf-8"} {
		u := assetURL(t, page, name)
		r := e.do("GET", u, nil)
		if r.status != 200 || r.header.Get("Content-Type") != ct || len(r.body) < 1000 {
			t.Errorf("%s: %d %q %d bytes", u, r.status, r.header.Get("Content-Type"), len(r.body))
		}
		if r := e.do("GET", u, nil, "If-None-Match", r.header.Get("ETag")); r.status != 304 {
			t.Errorf("%s revalidation: %d", u, r.status)
		}
		if r := e.do("GET", "/portal/assets/000000000000/"+name, nil); r.status != 404 {
			t.Errorf("%s under an old hash: %d", name, r.status)
		}
	}
	if r := e.do("GET", "/portal/assets/000000000000/secret.txt", nil); r.status != 404 {
		t.Errorf("unknown asset: %d", r.status)
	}
}

// TestInternalError: when the database fails, the applicant gets the
// error page or the generic envelope, never the cause; the cause is
// logged once, with the route pattern and not the path, which holds the
// link's token.
func TestInternalError(t *testing.T) {
	var logs bytes.Buffer
	e := newEnv(t, func(o *portal.Options) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	token, _ := e.create(kyc.WorkflowStandard, "")
	if err := e.st.Close(); err != nil {
		t.Fatal(err)
	}
	page := e.do("GET", "/portal/"+token, nil)
	if page.status != 500 || !strings.Contains(page.body, `data-state="error"`) || strings.Contains(page.body, "closed") {
		t.Errorf("page: %d\n%s", page.status, page.body)
	}
	r := e.do("POST", "/portal/"+token+"/submit", nil)
	if r.status != 500 {
		t.Fatalf("submit: %d %s", r.status, r.body)
	}
	if env := r.envelope(t); env.Error.Code != kyc.EInternal || env.Error.Type != "internal" || strings.Contains(env.Error.Message, "closed") {
		t.Errorf("envelope: %s", r.body)
	}
	if got := strings.Count(logs.String(), "portal request failed"); got != 2 {
		t.Errorf("logged %d failures, want 2:\n%s", got, logs.String())
	}
	if strings.Contains(logs.String(), token) || !strings.Contains(logs.String(), "route=\"POST /portal/{token}/submit\"") {
		t.Errorf("log:\n%s", logs.String())
	}
}
