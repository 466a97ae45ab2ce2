// Package console is the back office at /console/: server-rendered pages
// where an organization's people sign in and do their day — work the
// review queue, look at a case and decide it (four-eyes by two different
// users), decide AML matches, find applicants — where admins invite and
// manage users, and installation admins import the watch lists. Every action is a plain form POST (a little JavaScript
// only zooms images), every route names the permission it needs in one
// table (routes.go), and every write goes through the same use cases as
// the API (verification, aml, users), which audit it with the user.
package console

import (
	"bytes"
	"context"
	"html/template"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"kycd/aml"
	"kycd/internal/clientip"
	"kycd/kyc"
	"kycd/store"
	"kycd/users"
	"kycd/verification"
	"kycd/webasset"
)

// Options are the console's dependencies and settings.
type Options struct {
	Store *store.Store          // required
	KYC   *verification.Service // required
	AML   *aml.Service          // required
	Users *users.Service        // required
	Log   *slog.Logger
	Now   func() time.Time // default time.Now
	// BaseURL is the public address of kycd (the console is BaseURL +
	// /console). Cookies are Secure unless it is plain HTTP on a loopback
	// address (a developer's machine).
	BaseURL string
	// ClientIP is the client address sign-in throttling and sessions
	// record (the server's clientip.Resolver: X-Forwarded-For only from
	// trusted proxies). nil: the connection's peer.
	ClientIP func(*http.Request) string
	// Secrets seals webhook endpoints' signing secrets (the API's box).
	Secrets store.Sealer
	// AllowPrivateWebhooks is serve's --allow-private-webhooks: endpoint
	// URLs may resolve to private addresses.
	AllowPrivateWebhooks bool
	// SwaggerUI: the server serves /swagger-ui/ (serve --dev); the front
	// page links it.
	SwaggerUI bool
	// MailConfigured: an SMTP relay sends the e-mail outbox; without one
	// the webhooks page says that notices wait unsent.
	MailConfigured bool
	// ListImports runs watch-list uploads in the background; default: a
	// runner with no end (serve passes one that ends at shutdown and
	// waits for it).
	ListImports *aml.ListImports
	// ListUploadMax caps the bytes of one watch-list upload (all its files
	// together): 0 means aml.MaxListFileSize, negative refuses uploads.
	ListUploadMax int64
	// Export builds and audits an applicant's export archive (the API's
	// GET /v1/applicants/{id}/export); the server passes its own. nil: the
	// console's export download answers 503.
	Export func(ctx context.Context, a *kyc.Applicant) ([]byte, error)
}

// console is the handler's state.
type console struct {
	baseURL    string // the public address of kycd, for links in e-mails
	store      *store.Store
	kyc        *verification.Service
	aml        *aml.Service
	users      *users.Service
	log        *slog.Logger
	now        func() time.Time
	secure     bool
	cookie     string
	clientIPOf func(*http.Request) string

	secrets      store.Sealer
	allowPrivate bool
	mail         bool
	swaggerUI    bool
	imports      *aml.ListImports
	uploadMax    int64 // negative: uploads refused
	export       func(ctx context.Context, a *kyc.Applicant) ([]byte, error)

	pages  map[string]*template.Template
	assets *webasset.Set
	mux    *http.ServeMux
	routes []route
}

// New returns the console handler, to be mounted at /console/ (full
// paths, no StripPrefix). It panics on a missing dependency or a template
// that does not parse: both are build mistakes.
func New(o Options) http.Handler {
	c := newConsole(o)
	return securityHeaders(c.checkText(c.mux))
}

// checkText answers, before any route runs, a request whose path, query
// or form holds what no database engine stores (NUL, bytes that are not
// UTF-8): a 404 page for the path, a 400 page for a parameter. PostgreSQL
// refuses such text with an error where SQLite finds nothing, so it is
// checked once here for every page alike. A url-encoded form up to
// maxCheckedForm is read, checked and put back for the handler to parse
// with its own limit; larger forms (the policy editor's) and multipart
// uploads are checked by their handlers' parsers.
const maxCheckedForm = 64 << 10

func (c *console) checkText(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := kyc.CheckPathAndQuery(r.URL.Path, r.URL.Query())
		if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil && r.Method == http.MethodPost &&
			ct == "application/x-www-form-urlencoded" && r.ContentLength > 0 && r.ContentLength <= maxCheckedForm {
			body, rerr := io.ReadAll(io.LimitReader(r.Body, maxCheckedForm))
			r.Body = io.NopCloser(bytes.NewReader(body))
			if rerr != nil {
				err = &kyc.Error{Code: kyc.EValidation, Message: "The form could not be read.", Err: rerr}
			} else if form, perr := url.ParseQuery(string(body)); perr == nil {
				err = kyc.CheckPathAndQuery("", form)
			} // a malformed form is the handler's to refuse
		}
		if err != nil {
			c.renderError(w, r, c.optionalSession(r), err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func newConsole(o Options) *console {
	if o.Store == nil || o.KYC == nil || o.AML == nil || o.Users == nil {
		panic("console: Options.Store, KYC, AML and Users are required")
	}
	c := &console{store: o.Store, kyc: o.KYC, aml: o.AML, users: o.Users, log: o.Log, now: o.Now, clientIPOf: o.ClientIP,
		secrets: o.Secrets, allowPrivate: o.AllowPrivateWebhooks, mail: o.MailConfigured, swaggerUI: o.SwaggerUI, imports: o.ListImports, uploadMax: o.ListUploadMax, export: o.Export, mux: http.NewServeMux(),
		baseURL: strings.TrimRight(o.BaseURL, "/")}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	if c.imports == nil {
		c.imports = aml.NewListImports(aml.ListImportsOptions{Store: o.Store, Service: o.AML, Log: c.log})
	}
	if c.uploadMax == 0 {
		c.uploadMax = aml.MaxListFileSize
	}
	c.secure = secureBase(o.BaseURL)
	// The __Host- prefix makes the browser refuse the cookie unless it is
	// Secure, for this host only and for every path: no subdomain or
	// plain-HTTP page can set or shadow it.
	c.cookie = "kycd_console"
	if c.secure {
		c.cookie = "__Host-kycd_console"
	}
	c.assets = mustLoadAssets()
	c.pages = mustParsePages(c.assets)
	c.register()
	return c
}

// secureBase reports whether cookies must be Secure: always, except for a
// plain-HTTP base URL on a loopback address.
func secureBase(base string) bool {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" {
		return true
	}
	host := u.Hostname()
	if host == "localhost" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// contentSecurityPolicy allows the console's own files only: no inline
// script or style, images from the console (captures, served through the
// session) and data: URLs (the second-factor QR code), no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// securityHeaders sets the headers of every console response. Pages hold
// personal data and are never cached; the asset handler overrides
// Cache-Control for its hashed files.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// clientIP is the address sign-in throttling and sessions record.
func (c *console) clientIP(r *http.Request) string {
	if c.clientIPOf != nil {
		return c.clientIPOf(r)
	}
	return (*clientip.Resolver)(nil).ClientIP(r)
}
