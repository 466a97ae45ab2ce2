package portal

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"net/url"

	"kycd/kyc"
	"kycd/locale"
	"kycd/store"
	"kycd/verification"
	"kycd/webasset"
)

//go:embed templates/*.html
var templateFiles embed.FS

// mustParsePages parses every page once; the templates are part of the
// binary, so a parse error is a build mistake and panics at start-up.
func mustParsePages(a *webasset.Set) *template.Template {
	funcs := template.FuncMap{"asset": a.URL}
	return template.Must(template.New("").Funcs(funcs).ParseFS(templateFiles, "templates/*.html"))
}

// stateKind names the page shown instead of the app.
type stateKind string

// The pages for links that cannot be used, and for failures.
const (
	stateNotFound  stateKind = "notfound"
	stateExpired   stateKind = "expired"
	stateCancelled stateKind = "cancelled"
	stateDone      stateKind = "done"
	stateError     stateKind = "error"
)

func pageKind(st verification.LinkState) stateKind {
	switch st {
	case verification.LinkExpired:
		return stateExpired
	case verification.LinkCancelled:
		return stateCancelled
	}
	return stateDone
}

// statePage is the data of state.html. Its wording is the catalog's
// state.<kind>.title, .message and .next: the applicant must learn what
// happened and what to do next, nothing about our internals.
type statePage struct {
	chrome
	Kind                 stateKind
	Title, Message, Next string
	RedirectURL          string
}

// renderState writes the page for kind. The request, when known, names
// the organization and gives a done page its link back to the
// organization's site. The pages that speak of the organization (expired,
// cancelled, done) need it: without it they become the error page.
func (p *portal) renderState(w http.ResponseWriter, r *http.Request, status int, kind stateKind, req *kyc.KYCRequest) {
	if req == nil && kind != stateNotFound && kind != stateError {
		kind, status = stateError, http.StatusInternalServerError
	}
	c := p.chromeFor(r.Context(), r, req)
	k := "state." + string(kind)
	data := statePage{chrome: c, Kind: kind, Title: c.L.T(k + ".title"), Message: c.L.T(k+".message", "org", c.Org),
		Next: c.L.T(k+".next", "org", c.Org)}
	if kind == stateDone && req != nil {
		data.RedirectURL = redirectURL(req)
	}
	p.render(w, r, status, "state.html", data)
}

// render executes a page into memory first, so that a template failure
// becomes the error page instead of half a page.
func (p *portal) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	var buf bytes.Buffer
	if err := p.pages.ExecuteTemplate(&buf, name, data); err != nil {
		p.log.ErrorContext(r.Context(), "portal render", "page", name, "err", err)
		if name == "state.html" {
			http.Error(w, "Something went wrong. Please reload the page in a moment.", http.StatusInternalServerError)
			return
		}
		p.renderState(w, r, http.StatusInternalServerError, stateError, nil)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	// The page's language depends on these request headers; a shared
	// cache must not hand one applicant's language to another (no-store
	// already forbids caching; this says why the answers differ).
	h.Set("Vary", "Accept-Language")
	if l, ok := data.(interface{ lang() string }); ok {
		h.Set("Content-Language", l.lang())
	}
	w.WriteHeader(status)
	if _, err := w.Write(buf.Bytes()); err != nil {
		p.log.DebugContext(r.Context(), "portal write page", "page", name, "err", err)
	}
}

func (c chrome) lang() string { return c.L.Tag() }

// redirectURL is where the done page sends the applicant: the request's
// redirectUrl when it is an absolute http(s) URL, else "". The API
// validates it on creation; this check keeps a javascript: URL out of the
// page even if that validation ever changes.
func redirectURL(req *kyc.KYCRequest) string {
	if req.RedirectURL == nil {
		return ""
	}
	u, err := url.Parse(*req.RedirectURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.String()
}

// documentType is one choice on the document step; its label is the
// catalog's doc.<Value>.
type documentType struct {
	Value   string
	HasBack bool
	// HasMRZ: the document carries an ICAO 9303 machine-readable zone,
	// which the details step then offers to type. Driving licences do not.
	HasMRZ bool
}

// documentTypes lists kyc.DocumentTypes in the order the page shows them.
var documentTypes = []documentType{
	{"passport", false, true},
	{"id_card", true, true},
	{"driving_licence", true, false},
	{"residence_permit", true, true},
}

// appPage is the data of app.html.
type appPage struct {
	chrome
	CapturesURL, SubmitURL, PageURL string
	DocumentURL, LivenessURL        string
	DocumentSessionURL              string
	Workflow                        kyc.WorkflowType
	RedirectURL                     string
	FirstName                       string
	ExpiresAt                       string
	DocumentTypes                   []documentType
	Countries                       []country
	Country                         string                    // preselected: the applicant's country
	Messages                        map[string]locale.Message // what portal.js says, in the page's language
	// Redo, for a resubmission's link: the one step it opens, and the
	// document the applicant confirmed the first time (a document step
	// photographs the same one).
	Redo *redoView
}

// redoView is what a resubmission's page shows and sends.
type redoView struct {
	Step       kyc.ResubmissionStep
	StepText   string // the step, in the page's language
	Message    string // the reviewer's words
	Slot       string // front, back or selfie: portal.js's name for the photo
	DocType    string
	DocLabel   string
	HasBack    bool
	HasMRZ     bool
	Country    string
	CameraOnly bool // the camera check: no upload
}

// redoOf is the page's resubmission, or nil for a first link.
func redoOf(req *kyc.KYCRequest, c chrome) *redoView {
	rs := req.OpenResubmission()
	if rs == nil {
		return nil
	}
	v := &redoView{Step: rs.Step, StepText: c.L.T("redo.step." + string(rs.Step)), Message: rs.Message,
		Slot: map[kyc.ResubmissionStep]string{kyc.StepDocumentFront: "front", kyc.StepDocumentBack: "back",
			kyc.StepSelfie: "selfie", kyc.StepLiveness: "selfie"}[rs.Step], CameraOnly: rs.Step == kyc.StepLiveness}
	if d := req.DocumentData; d != nil {
		v.DocType, v.Country, v.DocLabel = d.DocumentType, d.IssuingCountry, c.L.T("doc."+d.DocumentType)
		for _, t := range documentTypes {
			if t.Value == d.DocumentType {
				v.HasBack, v.HasMRZ = t.HasBack, t.HasMRZ
			}
		}
	}
	return v
}

// handleApp handles "GET /portal/{token}": the app for an open link
// (whose first view records the opening: portalOpenedAt and a timeline
// entry), the state page for any other.
func (p *portal) handleApp(w http.ResponseWriter, r *http.Request) error {
	token, err := tokenParam(r)
	if err != nil {
		return err
	}
	req, st, err := p.svc.PortalState(r.Context(), token)
	if err != nil {
		return err
	}
	if st != verification.LinkOpen {
		p.renderState(w, r, http.StatusGone, pageKind(st), req)
		return nil
	}
	// HEAD is what some link checkers send; it must not count as the
	// applicant opening the link.
	if r.Method != http.MethodHead {
		err := p.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
			req, err = p.svc.Open(tx, token)
			return err
		})
		if err != nil {
			return err
		}
	}
	a, err := p.store.FindApplicant(r.Context(), req.OrganizationID, req.Environment, req.ApplicantID)
	if err != nil {
		return err
	}
	c := p.chromeFor(r.Context(), r, req)
	data := appPage{chrome: c,
		CapturesURL: withLang(r.URL.Path+"/captures", c.L), DocumentURL: withLang(r.URL.Path+"/document", c.L),
		SubmitURL: withLang(r.URL.Path+"/submit", c.L), PageURL: withLang(r.URL.Path, c.L),
		LivenessURL: withLang(r.URL.Path+"/liveness", c.L), DocumentSessionURL: withLang(r.URL.Path+"/document-session", c.L),
		Workflow: req.WorkflowType, RedirectURL: redirectURL(req), FirstName: a.FirstName,
		ExpiresAt:     c.L.DateTime(req.PortalExpiresAt),
		DocumentTypes: documentTypes, Countries: p.countries.of(c.L), Messages: scriptMessages(c.L),
		Redo: redoOf(req, c),
	}
	if a.Country != nil && kyc.ValidCountry(*a.Country) {
		data.Country = *a.Country
	}
	p.render(w, r, http.StatusOK, "app.html", data)
	return nil
}

// tokenParam returns the link's token, refusing at once what cannot be
// one: tokens are base62 (store.NewSecret), so anything else is not worth
// a database lookup.
// usableToken reads the path's token and refuses, before any body is read,
// a link that is unknown or can no longer be used.
func (p *portal) usableToken(r *http.Request) (string, error) {
	token, err := tokenParam(r)
	if err != nil {
		return "", err
	}
	_, st, err := p.svc.PortalState(r.Context(), token)
	if err != nil {
		return "", err
	}
	return token, linkError(st)
}

func tokenParam(r *http.Request) (string, error) {
	t := r.PathValue("token")
	if len(t) < 16 || len(t) > 128 {
		return "", errUnknownLink
	}
	for _, c := range t {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return "", errUnknownLink
		}
	}
	return t, nil
}
