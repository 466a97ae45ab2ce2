// Package server is kycd's HTTP API: the route table, middleware, handlers
// and the §7.1 error envelope. Handlers return errors; writeError turns them
// into responses.
package server

import (
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"kycd/aml"
	"kycd/capture"
	"kycd/internal/clientip"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
	"kycd/users"
	"kycd/verification"
)

// Options are the dependencies and settings of a Server.
type Options struct {
	Store  *store.Store // required
	Logger *slog.Logger
	// BaseURL is where clients reach the API, e.g. https://kyc.example.com;
	// it is written into the OpenAPI description's servers list.
	BaseURL string
	// PortalURL is where applicants reach the portal.
	PortalURL string
	// Dev serves the Swagger UI at /swagger-ui/index.html.
	Dev bool
	// Now is the clock for rate limits and validation; default time.Now.
	Now func() time.Time
	// Version is reported in the OpenAPI description and /healthz.
	Version string
	// Commit is the git commit the binary was built from, shown at
	// /healthz; empty when unknown. CommitModified: its tree had
	// uncommitted changes.
	Commit         string
	CommitModified bool
	// Secrets seals webhook signing secrets; required to create endpoints.
	Secrets store.Sealer
	// AllowPrivateWebhooks lets live endpoints point at private addresses.
	AllowPrivateWebhooks bool
	// MailConfigured: an SMTP relay sends the e-mail outbox (serve's
	// --smtp-host). Without one, the console says notices wait unsent.
	MailConfigured bool
	// AML runs AML checks; default: a service with no lists loaded (live
	// checks fail closed, sandbox has its test list).
	AML *aml.Service
	// KYC runs the KYC request lifecycle; default: one with the manual
	// engine and PortalURL.
	KYC *verification.Service
	// URLKey signs document download URLs; default: a random key, so
	// URLs stop working at restart.
	URLKey []byte
	// TrustedProxies are the reverse proxies (address ranges) whose
	// X-Forwarded-For is believed: client addresses (sign-in throttling,
	// sessions, captures, key use) come from it only for requests whose
	// peer is one of them (clientip.Resolver). Empty: the peer is the
	// client.
	TrustedProxies []netip.Prefix
	// JobsLastPoll reports when the job runner last looked for due jobs
	// (jobs.Runner.LastPoll); /readyz is not ready when that is over 30 s
	// ago. Nil: no runner in this process, the check is skipped.
	JobsLastPoll func() time.Time
	// Replication reports the replicas for /readyz and /metrics; nil when
	// replication is off.
	Replication func() []ReplicaStatus
	// Users runs the back office's people and sign-in; default: a service
	// on Store with the console at BaseURL/console.
	Users *users.Service
	// UploadGate bounds the decoding of portal uploads across the process;
	// default capture.NewGate with its defaults (one decode per core,
	// 128 MiB together).
	UploadGate *capture.Gate
	// UploadsPerMinute bounds the uploads of one portal link in any
	// minute; 0: portal.DefaultUploadsPerMinute, negative: no limit.
	UploadsPerMinute int
	// ListImports runs the console's watch-list uploads in the
	// background; default: a runner that never ends them (serve passes one
	// that ends at shutdown, and waits for it).
	ListImports *aml.ListImports
	// ListUploadMax caps one console watch-list upload, in bytes: 0 means
	// aml.MaxListFileSize, negative refuses uploads.
	ListUploadMax int64
	// MetricsToken, when set, is the bearer token GET /metrics requires.
	// Empty: /metrics is open, so bind kycd to a private address or keep
	// /metrics from the public at the proxy.
	MetricsToken string
}

// Server handles the API's requests.
type Server struct {
	store         *store.Store
	log           *slog.Logger
	baseURL       string
	portalURL     string
	dev           bool
	now           func() time.Time
	version       string
	buildCommit   string // for /healthz; empty when unknown
	buildModified bool

	secrets              store.Sealer
	allowPrivateWebhooks bool
	mailConfigured       bool
	aml                  *aml.Service
	kyc                  *verification.Service
	users                *users.Service
	clientIPs            *clientip.Resolver
	keyUse               keyUse
	urlKey               []byte
	jobsLastPoll         func() time.Time
	replication          func() []ReplicaStatus
	metricsToken         string
	metrics              *metrics
	uploadGate           *capture.Gate
	uploadsPerMinute     int
	listImports          *aml.ListImports
	listUploadMax        int64

	mux      *http.ServeMux
	limits   *rateLimiter
	inflight *inflightKeys
	apiDocs  []byte // the OpenAPI description as JSON
}

// New builds a Server. It panics when opts.Store is nil and fails when the
// embedded OpenAPI description does not parse.
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		panic("server: nil Store")
	}
	s := &Server{
		store:         opts.Store,
		log:           opts.Logger,
		baseURL:       strings.TrimRight(opts.BaseURL, "/"),
		portalURL:     strings.TrimRight(opts.PortalURL, "/"),
		dev:           opts.Dev,
		now:           opts.Now,
		version:       opts.Version,
		buildCommit:   opts.Commit,
		buildModified: opts.CommitModified,
		secrets:       opts.Secrets,
		aml:           opts.AML,
		kyc:           opts.KYC,
		users:         opts.Users,
		clientIPs:     clientip.New(opts.TrustedProxies),
		urlKey:        opts.URLKey,

		allowPrivateWebhooks: opts.AllowPrivateWebhooks,
		mailConfigured:       opts.MailConfigured,
		jobsLastPoll:         opts.JobsLastPoll,
		replication:          opts.Replication,
		metricsToken:         opts.MetricsToken,
		uploadGate:           opts.UploadGate,
		uploadsPerMinute:     opts.UploadsPerMinute,
		listImports:          opts.ListImports,
		listUploadMax:        opts.ListUploadMax,
		mux:                  http.NewServeMux(),
		inflight:             newInflightKeys(),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.kyc == nil {
		s.kyc = verification.New(s.store, nil, s.portalURL, s.log)
	}
	if s.users == nil {
		s.users = users.New(users.Options{Store: s.store, Log: s.log, Now: s.now, ConsoleURL: s.baseURL + "/console"})
	}
	if len(s.urlKey) == 0 {
		s.urlKey = make([]byte, 32)
		if _, err := rand.Read(s.urlKey); err != nil {
			return nil, err
		}
	}
	if s.aml == nil {
		sc, err := screening.NewScreener()
		if err != nil {
			return nil, err
		}
		s.aml = aml.New(s.store, sc, s.log)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.limits = newRateLimiter(s.now)
	s.metrics = newMetrics(s)
	s.aml.ObserveScreenings(s.metrics.observeScreening)
	docs, err := apiDocsJSON(s.baseURL, s.version)
	if err != nil {
		return nil, err
	}
	s.apiDocs = docs
	s.routes()
	return s, nil
}

// Handler returns the server's root handler with its middleware, applied in
// this order: request id → access log → panic recovery → security headers →
// routing (404/405 in the envelope). Authentication, rate limiting and
// idempotency wrap each API route (see handle).
func (s *Server) Handler() http.Handler {
	return s.requestID(s.accessLog(s.recoverPanic(securityHeaders(http.HandlerFunc(s.route)))))
}

// route dispatches to the mux, answering unknown routes and wrong methods
// with the error envelope instead of the mux's plain-text replies.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	requestInfoFrom(r.Context()).pattern = pattern // for the metrics' route label
	// Path ids and query parameters that no engine can hold answer alike
	// on SQLite and PostgreSQL (which refuses NUL and invalid UTF-8 with
	// an error): checked once here, before any handler queries with them.
	// The console checks its own requests, to answer with its pages.
	if pattern != "/console/" {
		if err := kyc.CheckPathAndQuery(r.URL.Path, r.URL.Query()); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	if pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	// Ask the mux what it would have said (404, or 405 with Allow).
	probe := &headerProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		s.writeError(w, r, kyc.Errorf(kyc.EMethodNotAllowed, "Method %s is not allowed on %s; allowed: %s.", r.Method, r.URL.Path, probe.header.Get("Allow")))
		return
	}
	s.writeError(w, r, kyc.Errorf(kyc.ENotFound, "No route %s %s. See /v3/api-docs for the API.", r.Method, r.URL.Path))
}

// headerProbe records what the mux's fallback handler would write.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(status int)      { p.status = status }
