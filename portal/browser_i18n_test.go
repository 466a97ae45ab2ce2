package portal_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"kycd/kyc"
	"kycd/locale"

	"kycd/internal/testtools"
)

// axePath is axe-core as .ci/run installs it (tools/axe, pinned 4.14.1):
// a test-only file, never embedded in the binary.
const axePath = "../tools/axe/node_modules/axe-core/axe.min.js"

// loadAxe reads axe-core; without it the test is skipped, except under
// CI=true, where it fails.
func loadAxe(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(axePath)
	if err != nil {
		testtools.Missing(t, "axe-core (tools/axe/node_modules)", err)
	}
	return string(b)
}

// axeViolation is one serious or critical finding of axe.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// withAxe makes every page the tab loads run axe-core first, through
// the protocol, which the page's policy does not govern (and once, rather
// than sending its 600 KB with each page).
func (b *tab) withAxe(src string) {
	b.t.Helper()
	if _, err := chromedp.Call(b.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src}); err != nil {
		b.fail(fmt.Errorf("add axe-core: %w", err))
	}
}

// axe runs axe-core (see withAxe) on the page as it is now and fails the
// test on any serious or critical violation.
func (b *tab) axe(where string) {
	b.t.Helper()
	if !eval[bool](b, `typeof window.axe === 'object'`) {
		b.fail(fmt.Errorf("axe-core is not loaded on %s", where))
	}
	res, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ['violations']}).then(function (r) {
  return JSON.stringify(r.violations.filter(function (v) { return v.impact === 'serious' || v.impact === 'critical'; }).map(function (v) {
    return {id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(function (n) { return n.target.join(' ') + ': ' + n.failureSummary; })};
  }));
})`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.fail(fmt.Errorf("axe on %s: %w", where, err))
	}
	var vs []axeViolation
	if err := json.Unmarshal([]byte(res), &vs); err != nil {
		b.fail(fmt.Errorf("axe result on %s: %w", where, err))
	}
	for _, v := range vs {
		b.t.Errorf("%s: axe %s (%s): %s %v", where, v.ID, v.Impact, v.Help, v.Nodes)
	}
	if len(vs) > 0 {
		b.shot("axe-" + strings.ReplaceAll(where, " ", "-"))
	}
}

// brandStack gives the stack's organization a full branding: display
// name, PNG logo, colour, privacy policy and support address.
func brandStack(t *testing.T, s *stack) {
	t.Helper()
	e := &env{t: t, st: s.st, org: s.org}
	e.brand(kyc.BrandingUpdate{DisplayName: ptr("Acme Bank"), SupportEmail: ptr("help@acme.example"),
		PrivacyURL: ptr("https://acme.example/privacy"), BrandColor: ptr("#0f7b5f")}, logoPNG(t))
}

// TestBrowserLanguages walks the portal in every language at 390 px (a
// phone) with the camera refused, through welcome, document, capture by
// upload, details and review, and shows the not-found and cancelled
// pages; axe-core must find no serious or critical violation on any of
// them. In Arabic and German it keeps screenshots of each step (in
// $KYCD_TEST_ARTIFACTS under CI) and checks the layout: right to left in
// Arabic, the organization's name and logo in the header, nothing wider
// than the screen.
func TestBrowserLanguages(t *testing.T) {
	src := loadAxe(t)
	s := newStack(t)
	brandStack(t, s)
	cancelledLink, cancelledID := s.create(kyc.WorkflowStandard, "")
	s.api("POST", "/v1/kyc-requests/"+cancelledID+"/cancel", map[string]any{}, http.StatusOK)
	dir := t.TempDir()
	passport, selfie := filepath.Join(dir, "passport.jpg"), filepath.Join(dir, "selfie.jpg")
	if err := os.WriteFile(passport, photo(t, 1000, 700), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(selfie, photo(t, 600, 800), 0o600); err != nil {
		t.Fatal(err)
	}
	// Thirteen walks take longer than newTab's 90 s (about 7 s each).
	b := newTabFor(t, 8*time.Minute, 390, false)
	b.withAxe(src)
	for _, c := range locale.All() {
		lang := c.Tag()
		shots := lang == "ar" || lang == "de"
		shot := func(name string) {
			if shots {
				b.shot(lang + "-" + name)
			}
		}
		// A link per language: one link takes 20 uploads a minute.
		link, _ := s.create(kyc.WorkflowStandard, "")
		b.do(chromedp.Navigate(link + "?lang=" + lang))
		b.waitFor(`!document.getElementById('step-welcome').hidden`)
		if got := eval[string](b, `document.documentElement.lang + ' ' + document.documentElement.dir`); got != lang+" "+c.Dir() {
			t.Errorf("%s: html %q", lang, got)
		}
		if got := b.text("brand-name"); got != "Acme Bank" {
			t.Errorf("%s: header names %q", lang, got)
		}
		if !eval[bool](b, `document.querySelector('.brand-logo').naturalWidth === 120`) {
			t.Errorf("%s: the logo did not load", lang)
		}
		if got := b.text("controller"); !strings.Contains(got, "Acme Bank") || !strings.Contains(got, c.T("welcome.privacy", "org", "Acme Bank")) {
			t.Errorf("%s: consent step names no controller: %q", lang, got)
		}
		b.axe(lang + " welcome")
		shot("welcome")
		if lang == "ar" {
			// Right to left: the organization starts on the right, the
			// switcher sits on the left, text is right-aligned.
			if !eval[bool](b, `document.querySelector('.brand').getBoundingClientRect().right > document.querySelector('.langs').getBoundingClientRect().right`) {
				t.Error("ar: the header is not mirrored")
			}
			if got := eval[string](b, `getComputedStyle(document.querySelector('#step-welcome h1')).direction`); got != "rtl" {
				t.Errorf("ar: heading direction %s", got)
			}
		}
		if shots {
			b.click(`#langs summary`)
			b.waitFor(`document.getElementById('langs').open`)
			b.axe(lang + " language menu")
			shot("languages")
			b.click(`#langs summary`)
		}

		b.click(`#consent`)
		b.click(`button[data-action="consent"]`)
		b.step("document")
		b.click(`#doctype-passport`)
		b.axe(lang + " document")
		shot("document")
		b.click(`button[data-action="document"]`)
		b.step("capture")
		b.waitFor(`!document.getElementById('capture-error').hidden`)
		if got := b.text("capture-error"); got != c.T("js.camera_denied") {
			t.Errorf("%s: camera refused says %q", lang, got)
		}
		if got := b.text("capture-title"); got != c.T("js.passport_title") {
			t.Errorf("%s: capture title %q", lang, got)
		}
		b.axe(lang + " capture")
		shot("capture")

		// The photo shows no machine-readable zone: the server asks for
		// a retake, in the page's language, twice; after the third photo
		// the details are typed.
		for try := 2; try <= 3; try++ {
			b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{passport}))
			want, _ := json.Marshal(c.T("js.retake_try", "n", strconv.Itoa(try), "total", "3"))
			b.waitFor(`document.getElementById('capture-error').textContent.indexOf(` + string(want) + `) >= 0`)
			if try == 2 {
				shot("retake")
			}
		}
		b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{passport}))
		b.step("details")
		b.paste("doc-number", "C01X00T47")
		// One date for what is typed and what the review must show: two
		// time.Now() calls seconds apart differ across midnight.
		expiry := time.Now().AddDate(3, 0, 0)
		b.typeDate("doc-expiry", expiry)
		b.axe(lang + " details")
		shot("details")
		b.click(`#details-continue`)
		b.step("capture")
		b.do(chromedp.SetUploadFiles(chromedp.ID("file"), []string{selfie}))
		b.step("review")
		if got := b.text("review-list"); !strings.Contains(got, c.ISODate(expiry.Format(time.DateOnly))) {
			t.Errorf("%s: review shows the expiry as %q", lang, got)
		}
		b.axe(lang + " review")
		shot("review")
		if w := eval[int64](b, `document.documentElement.scrollWidth`); w > 390 {
			t.Errorf("%s: the page is %d px wide on a 390 px screen", lang, w)
		}
		b.noViolations()

		// The state pages share one template: the cancelled one in every
		// language, the not-found one in the screenshot languages.
		if shots {
			b.do(chromedp.Navigate(s.srv.URL + "/portal/NoSuchLinkNoSuchLink?lang=" + lang))
			b.waitFor(`document.getElementById('state') !== null`)
			b.axe(lang + " not found")
		}
		b.do(chromedp.Navigate(cancelledLink + "?lang=" + lang))
		b.waitFor(`document.getElementById('state') !== null`)
		if got := b.text("state"); !strings.Contains(got, c.T("state.cancelled.message", "org", "Acme Bank")) {
			t.Errorf("%s: cancelled page %q", lang, got)
		}
		b.axe(lang + " cancelled")
		shot("cancelled")
	}
}
