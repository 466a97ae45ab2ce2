package portal_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/locale"
	"kycd/store"
	"kycd/verification"
)

// createLocale makes a request whose locale is loc.
func (e *env) createLocale(loc string) string {
	e.t.Helper()
	first, last := "Erika", "Mustermann"
	in := verification.CreateInput{Applicant: &kyc.ApplicantInput{FirstName: &first, LastName: &last}}
	if loc != "" {
		in.Locale = &loc
	}
	var r *kyc.KYCRequest
	if err := e.st.InTx(e.t.Context(), func(tx *store.Tx) (err error) {
		r, err = e.svc.Create(tx, e.org.ID, kyc.Sandbox, verification.Actor{Type: kyc.ActorAPIKey}, in)
		return err
	}); err != nil {
		e.t.Fatal(err)
	}
	return r.PortalToken
}

var htmlLang = regexp.MustCompile(`<html lang="([^"]+)" dir="(ltr|rtl)">`)

// TestPageInEveryLanguage opens the app page in each language through the
// switcher's link: the page declares its language and direction, its
// words, dates and country names are that language's, and the switcher
// offers every language by its own name.
func TestPageInEveryLanguage(t *testing.T) {
	e := newEnv(t)
	token, req := e.create(kyc.WorkflowStandard, "")
	en := locale.Get("en")
	for _, c := range locale.All() {
		r := e.do("GET", "/portal/"+token+"?lang="+c.Tag(), nil)
		m := htmlLang.FindStringSubmatch(r.body)
		if r.status != 200 || m == nil || m[1] != c.Tag() || m[2] != c.Dir() || r.header.Get("Content-Language") != c.Tag() {
			t.Fatalf("%s: %d %v %q", c.Tag(), r.status, m, r.header.Get("Content-Language"))
		}
		for _, want := range []string{
			esc(c.T("welcome.hello", "name", "Erika")),
			esc(c.T("welcome.expires", "date", c.DateTime(req.PortalExpiresAt))),
			esc(c.T("document.title")),
			esc(c.T("details.mrz_help")),
			`data-captures-url="/portal/` + token + `/captures?lang=` + c.Tag() + `"`,
			`data-lang="` + c.Tag() + `"`,
			`<summary>`,
		} {
			if !strings.Contains(r.body, want) {
				t.Errorf("%s: page lacks %s", c.Tag(), want)
			}
		}
		if c.Tag() != "en" && strings.Contains(r.body, esc(en.T("welcome.need_light"))) {
			t.Errorf("%s: page has English text", c.Tag())
		}
		for _, l := range locale.All() {
			link := `<a href="/portal/` + token + `?lang=` + l.Tag() + `" lang="` + l.Tag() + `" hreflang="` + l.Tag() + `"`
			if !strings.Contains(r.body, link) || !strings.Contains(r.body, ">"+esc(l.Name())+"</a>") {
				t.Errorf("%s: the switcher lacks %s", c.Tag(), l.Tag())
			}
		}
		// The script's messages are this language's, as valid JSON.
		block := regexp.MustCompile(`<script type="application/json" id="portal-messages">([^<]*)</script>`).FindStringSubmatch(r.body)
		var msgs map[string]any
		if block == nil || json.Unmarshal([]byte(block[1]), &msgs) != nil || msgs["js.selfie_title"] != c.T("js.selfie_title") {
			t.Errorf("%s: messages block %v", c.Tag(), block)
		}
	}
	// Country names follow the language.
	for tag, want := range map[string]string{"de": `<option value="DE" selected>Deutschland</option>`,
		"ar": `<option value="DE" selected>ألمانيا</option>`, "zh-Hans": `<option value="DE" selected>德国</option>`} {
		if r := e.do("GET", "/portal/"+token+"?lang="+tag, nil); !strings.Contains(r.body, want) {
			t.Errorf("%s: lacks %s", tag, want)
		}
	}
}

// esc is what html/template makes of a text.
func esc(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// TestLocaleChoice walks the order: the switcher, the request's locale,
// the browser's Accept-Language, the organization's default, English.
func TestLocaleChoice(t *testing.T) {
	e := newEnv(t)
	plain := e.createLocale("")
	french := e.createLocale("fr-CA")
	lang := func(token string, header ...string) string {
		m := htmlLang.FindStringSubmatch(e.do("GET", "/portal/"+token, nil, header...).body)
		if m == nil {
			t.Fatalf("no lang")
		}
		return m[1]
	}
	if got := lang(plain); got != "en" {
		t.Errorf("nothing: %s", got)
	}
	if got := lang(plain, "Accept-Language", "de-AT,de;q=0.9,en;q=0.5"); got != "de" {
		t.Errorf("browser de: %s", got)
	}
	if got := lang(plain, "Accept-Language", "ja,ko;q=0.9"); got != "en" {
		t.Errorf("browser ja: %s", got)
	}
	if got := lang(french, "Accept-Language", "de"); got != "fr" {
		t.Errorf("request fr-CA, browser de: %s", got)
	}
	e.brand(kyc.BrandingUpdate{DefaultLocale: ptr("nl")}, nil)
	if got := lang(plain, "Accept-Language", "ja"); got != "nl" {
		t.Errorf("org default nl, browser ja: %s", got)
	}
	if got := lang(plain, "Accept-Language", "pl"); got != "pl" {
		t.Errorf("org default nl, browser pl: %s", got)
	}
	r := e.do("GET", "/portal/"+french+"?lang=uk", nil, "Accept-Language", "de")
	if m := htmlLang.FindStringSubmatch(r.body); m[1] != "uk" || !strings.Contains(r.body, `aria-current="true">Українська</a>`) {
		t.Errorf("switcher uk: %s", m[1])
	}
	// A bad pick is ignored, not an error.
	if r := e.do("GET", "/portal/"+french+"?lang=%3Cscript%3E", nil); r.status != 200 || !strings.Contains(r.body, `lang="fr"`) {
		t.Errorf("bad lang: %d", r.status)
	}
}

// TestErrorsInTheApplicantsLanguage: the endpoints the page calls answer
// in the page's language (?lang=), the state pages in the browser's.
func TestErrorsInTheApplicantsLanguage(t *testing.T) {
	e := newEnv(t)
	token, _ := e.create(kyc.WorkflowStandard, "")
	de := locale.Get("de")
	r := e.do("POST", "/portal/"+token+"/submit?lang=de", nil)
	if env := r.envelope(t); r.status != 400 || env.Error.Message != de.T("error.submit_missing") || env.Error.Details[0].Message != de.T("field.required") {
		t.Errorf("submit: %d %s", r.status, r.body)
	}
	r = e.do("POST", "/portal/"+token+"/document?lang=ru",
		strings.NewReader(`{"documentType":"passport","issuingCountry":"DE","documentNumber":"","expiryDate":"2031-02-30"}`),
		"Content-Type", "application/json")
	ru := locale.Get("ru")
	env := r.envelope(t)
	if r.status != 400 || env.Error.Message != ru.T("error.details_invalid") {
		t.Errorf("document: %d %s", r.status, r.body)
	}
	for _, d := range env.Error.Details {
		want := map[string]string{"documentNumber": ru.T("field.document_number"), "expiryDate": ru.T("field.expiry_date")}[d.Field]
		if d.Message != want {
			t.Errorf("detail %s: %q, want %q", d.Field, d.Message, want)
		}
	}
	upload := func(lang string, image []byte) *response {
		body, ct := multipartBody(t, doc("front", "passport"), image)
		return e.do("POST", "/portal/"+token+"/captures?lang="+lang, body, "Content-Type", ct)
	}
	r = upload("ar", []byte("%PDF-1.7 not a photo"))
	if env := r.envelope(t); r.status != 415 || env.Error.Message != locale.Get("ar").T("error.image_unsupported") || env.Error.Reason != "unsupported_type" {
		t.Errorf("upload: %d %s", r.status, r.body)
	}
	r = upload("zh-Hans", photo(t, 100, 100))
	if env := r.envelope(t); env.Error.Message != locale.Get("zh-Hans").T("error.image_too_small", "pixels", "120") {
		t.Errorf("small upload: %d %s", r.status, r.body)
	}
	if r := e.do("POST", "/portal/nosuchtokennosuchtoken/submit", nil, "Accept-Language", "tr"); r.envelope(t).Error.Message != locale.Get("tr").T("error.unknown_link") {
		t.Errorf("unknown link: %s", r.body)
	}
	if r := e.do("GET", "/portal/nosuchtokennosuchtoken", nil, "Accept-Language", "it-IT"); r.status != 404 ||
		!strings.Contains(r.body, locale.Get("it").T("state.notfound.title")) || !strings.Contains(r.body, `lang="it"`) {
		t.Errorf("not found page: %d", r.status)
	}
}

// TestTemplatesAndScriptUseKnownKeys: every message the templates and the
// scripts ask for is in the catalogs (which TestCatalogsComplete keeps
// complete), and every key the scripts use reaches them.
func TestTemplatesAndScriptUseKnownKeys(t *testing.T) {
	en := locale.Get("en")
	check := func(file string, re *regexp.Regexp) int {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			if strings.HasSuffix(m[1], ".") {
				continue // a key the script completes; checked below
			}
			n++
			if !en.Has(m[1]) {
				t.Errorf("%s uses %q, which no catalog has", file, m[1])
			}
		}
		return n
	}
	tmpl := regexp.MustCompile(`\.L\.[TN] "([^"]+)"`)
	for _, f := range []string{"templates/app.html", "templates/state.html", "templates/partials.html"} {
		if check(f, tmpl) == 0 {
			t.Errorf("%s uses no message", f)
		}
	}
	script := regexp.MustCompile(`\bt\('([a-z_.]+)'`)
	if check("static/portal.js", script) < 40 {
		t.Error("portal.js: too few messages found; is the pattern stale?")
	}
	check("static/camera.js", regexp.MustCompile(`'(js\.camera_[a-z_]+)'`))
	// Keys the script builds: js.<side>.<documentType>, date.month.<n>.
	for _, d := range []string{"id_card", "driving_licence", "residence_permit"} {
		for _, side := range []string{"front", "back"} {
			if !en.Has("js." + side + "." + d) {
				t.Errorf("no js.%s.%s", side, d)
			}
		}
	}
	// No English left in the scripts: every sentence comes from a catalog.
	for _, f := range []string{"static/portal.js", "static/camera.js"} {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if m := regexp.MustCompile(`'[A-Z][a-z]+ [a-z]+[^']*'`).FindString(code); m != "" {
				t.Errorf("%s: English text %s", f, m)
			}
		}
	}
}
