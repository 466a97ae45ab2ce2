package portal

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"net/url"

	"kycd/kyc"
	"kycd/store"
	"kycd/verification"
)

//go:embed templates/*.html
var templateFiles embed.FS

// mustParsePages parses every page once; the templates are part of the
// binary, so a parse error is a build mistake and panics at start-up.
func mustParsePages(a *assets) *template.Template {
	funcs := template.FuncMap{"asset": a.url}
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

// stateText is the wording of each state page: the applicant must learn
// what happened and what to do next, nothing about our internals.
var stateText = map[stateKind]struct{ Title, Message, Next string }{
	stateNotFound: {"Link not found", "This verification link is not valid.",
		"Check that you opened the whole link from your message. If it still does not work, ask the company that sent it for a new link."},
	stateExpired: {"This link has expired", "The time to complete this verification has run out.",
		"Ask the company that sent you the link for a new one. Nothing you started has been submitted."},
	stateCancelled: {"Verification cancelled", "The company that sent you this link has cancelled this verification.",
		"You do not need to do anything. If you think this is a mistake, contact them."},
	stateDone: {"Verification submitted", "Your photos have been submitted. Thank you.",
		"There is nothing more to do here. The company that sent you the link will let you know the result."},
	stateError: {"Something went wrong", "We could not show this page because of a problem on our side.",
		"Please reload the page in a moment. Your link is still valid."},
}

// statePage is the data of state.html.
type statePage struct {
	Kind                 stateKind
	Title, Message, Next string
	RedirectURL          string
}

// renderState writes the page for kind. The request, when known, gives a
// done page its link back to the organization's site.
func (p *portal) renderState(w http.ResponseWriter, r *http.Request, status int, kind stateKind, req *kyc.KYCRequest) {
	t := stateText[kind]
	data := statePage{Kind: kind, Title: t.Title, Message: t.Message, Next: t.Next}
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
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if _, err := w.Write(buf.Bytes()); err != nil {
		p.log.DebugContext(r.Context(), "portal write page", "page", name, "err", err)
	}
}

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

// documentType is one choice on the document step.
type documentType struct {
	Value, Label string
	HasBack      bool
	// HasMRZ: the document carries an ICAO 9303 machine-readable zone,
	// which the details step then offers to type. Driving licences do not.
	HasMRZ bool
}

// documentTypes lists kyc.DocumentTypes in the order the page shows them.
var documentTypes = []documentType{
	{"passport", "Passport", false, true},
	{"id_card", "Identity card", true, true},
	{"driving_licence", "Driving licence", true, false},
	{"residence_permit", "Residence permit", true, true},
}

// appPage is the data of app.html.
type appPage struct {
	CapturesURL, SubmitURL, PageURL string
	DocumentURL                     string
	Workflow                        kyc.WorkflowType
	RedirectURL                     string
	FirstName                       string
	ExpiresAt                       string
	DocumentTypes                   []documentType
	Countries                       []country
	Country                         string // preselected: the applicant's country
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
	data := appPage{
		CapturesURL: r.URL.Path + "/captures", DocumentURL: r.URL.Path + "/document", SubmitURL: r.URL.Path + "/submit", PageURL: r.URL.Path,
		Workflow: req.WorkflowType, RedirectURL: redirectURL(req), FirstName: a.FirstName,
		ExpiresAt:     req.PortalExpiresAt.UTC().Format("2 January 2006, 15:04 UTC"),
		DocumentTypes: documentTypes, Countries: p.countries,
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
