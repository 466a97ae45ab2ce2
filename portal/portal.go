// Package portal serves the applicant-facing pages of a KYC request: the
// page behind the portal link, where the applicant agrees to the
// processing, picks a document, photographs it, confirms its details,
// photographs their face and submits, plus the endpoints that page calls
// and its static files.
// The link's token is the only credential; every page and answer is built
// so that it never leaks (no referrer, no caching) and never shows an
// internal error.
package portal

import (
	"crypto/rand"
	"html/template"
	"log/slog"
	"net/http"
	"time"

	"kycd/capture"
	"kycd/store"
	"kycd/verification"
	"kycd/webasset"
)

// Options are the dependencies and settings of the portal handler.
type Options struct {
	Service *verification.Service // required
	Store   *store.Store          // required: the applicant's name and country for the first page
	Logger  *slog.Logger
	// ClientIP is the client address recorded with each capture and
	// liveness session (the server's clientip.Resolver: X-Forwarded-For
	// only from trusted proxies). nil: the connection's peer.
	ClientIP func(*http.Request) string
	// Limits bound an uploaded image; zero fields take capture's defaults.
	Limits capture.Limits
	// Gate bounds the decoding of uploads across the process (how many at
	// once, how much memory together); default capture.NewGate with its
	// defaults. An upload that finds no room within the gate's wait is
	// answered 503 with Retry-After.
	Gate *capture.Gate
	// UploadsPerMinute bounds the uploads one portal link may send in any
	// minute (429 with Retry-After beyond); default 20, a generous
	// allowance for retakes of three photos. Negative: no limit.
	UploadsPerMinute int
	// Now is the clock of the upload limit; default time.Now.
	Now func() time.Time
	// StepKey signs the receipts of a paced camera session's steps
	// (liveness.Receipt); default a random key, which holds while one
	// process serves a session. A fleet gives every node the same key.
	StepKey []byte
}

// DefaultUploadsPerMinute is the default of Options.UploadsPerMinute.
const DefaultUploadsPerMinute = 20

// portal is the handler's state, built once by New.
type portal struct {
	svc        *verification.Service
	store      *store.Store
	log        *slog.Logger
	clientIPOf func(*http.Request) string
	limits     capture.Limits
	gate       *capture.Gate
	uploads    *linkLimiter

	pages     *template.Template
	assets    *webasset.Set
	countries countryLists
	// analyses bounds the liveness sessions analysed at once.
	analyses chan struct{}
	// stepKey signs the receipts of paced camera sessions.
	stepKey []byte
	mux     *http.ServeMux
}

// New returns the portal handler, to be mounted at /portal/: it expects
// the full path (no StripPrefix). It panics when Service or Store is nil
// or an embedded template does not parse: both are programming errors
// that must stop the binary at start-up, not at the first applicant.
func New(o Options) http.Handler {
	if o.Service == nil || o.Store == nil {
		panic("portal: Options.Service and Options.Store are required")
	}
	p := &portal{svc: o.Service, store: o.Store, log: o.Logger, clientIPOf: o.ClientIP, limits: o.Limits,
		mux: http.NewServeMux(), analyses: make(chan struct{}, maxAnalyses)}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.limits.MaxBytes <= 0 {
		p.limits.MaxBytes = capture.DefaultMaxBytes
	}
	if p.stepKey = o.StepKey; len(p.stepKey) == 0 {
		p.stepKey = make([]byte, 32)
		if _, err := rand.Read(p.stepKey); err != nil {
			panic("portal: no randomness for the step key: " + err.Error())
		}
	}
	if p.gate = o.Gate; p.gate == nil {
		p.gate = capture.NewGate(capture.GateOptions{})
	}
	if o.UploadsPerMinute == 0 {
		o.UploadsPerMinute = DefaultUploadsPerMinute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	p.uploads = newLinkLimiter(o.UploadsPerMinute, time.Minute, o.Now)
	p.assets = mustLoadAssets()
	p.pages = mustParsePages(p.assets)
	p.routes()
	return securityHeaders(p.mux)
}

// routes is the portal's entire route table.
func (p *portal) routes() {
	p.mux.Handle("GET /portal/assets/{hash}/{name}", http.HandlerFunc(p.handleAsset))
	p.mux.Handle("GET /portal/theme/{file}", http.HandlerFunc(p.handleTheme))
	p.mux.Handle("GET /portal/logos/{sha256}", http.HandlerFunc(p.handleLogo))
	p.mux.Handle("GET /portal/{token}", p.page(p.handleApp))
	// The endpoints the page calls. CrossOriginProtection refuses
	// POSTs a browser marks as sent from another site: the token in the
	// path already stops blind forgery, this also stops a page that
	// learnt a token from making the applicant's browser post to it.
	csrf := http.NewCrossOriginProtection()
	csrf.SetDenyHandler(p.api(func(http.ResponseWriter, *http.Request) error { return errCrossOrigin }))
	p.mux.Handle("POST /portal/{token}/captures", csrf.Handler(p.api(p.handleCaptureCreate)))
	p.mux.Handle("POST /portal/{token}/document", csrf.Handler(p.api(p.handleDocumentSet)))
	p.mux.Handle("POST /portal/{token}/submit", csrf.Handler(p.api(p.handleSubmit)))
	p.mux.Handle("POST /portal/{token}/liveness", csrf.Handler(p.api(p.handleLivenessOpen)))
	p.mux.Handle("POST /portal/{token}/document-session", csrf.Handler(p.api(p.handleDocumentSessionOpen)))
	p.mux.Handle("POST /portal/{token}/liveness/{id}", csrf.Handler(p.api(p.handleLivenessFrames)))
	p.mux.Handle("POST /portal/{token}/liveness/{id}/step", csrf.Handler(p.api(p.handleLivenessStep)))
	// Everything else under /portal/ answers as the portal does, not with
	// the mux's plain-text 404.
	p.mux.Handle("/portal/", http.HandlerFunc(p.handleUnknown))
}

// handlerFunc is a handler that returns its error; page and api write it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// page adapts a handler whose errors are HTML pages.
func (p *portal) page(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			p.writePageError(w, r, err)
		}
	})
}

// api adapts a handler whose errors are the JSON envelope.
func (p *portal) api(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			p.writeAPIError(w, r, err)
		}
	})
}

// handleUnknown answers any other path under /portal/: the not-found page
// for a browser, the envelope for anything else.
func (p *portal) handleUnknown(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		p.renderState(w, r, http.StatusNotFound, stateNotFound, nil)
		return
	}
	p.writeAPIError(w, r, errNoRoute)
}

// contentSecurityPolicy allows only the portal's own files: no inline
// script or style, camera frames and thumbnails as blob: and data: URLs,
// and no framing (a framed portal could be overlaid to trick the
// applicant into capturing for someone else).
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; " +
	"media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// securityHeaders sets the headers of every portal response. Pages and
// JSON are never cached (they are behind a secret link and hold personal
// data); the asset handler overrides Cache-Control for its hashed files.
// no-referrer keeps the token in the URL from reaching the redirect target
// or any other site.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Permissions-Policy", "camera=(self), microphone=(), geolocation=()")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
