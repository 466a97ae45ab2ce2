package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"time"

	"kycd/aml"
	"kycd/capture"
	"kycd/decision"
	"kycd/internal/clientip"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/mailer"
	"kycd/screening"
	"kycd/server"
	"kycd/store"
	"kycd/verification"
	"kycd/webhook"
)

// ServeCmd runs the API.
type ServeCmd struct {
	dbFlag
	Addr      string `default:"127.0.0.1:8080" env:"KYCD_ADDR" group:"server" help:"Address to listen on."`
	BaseURL   string `name:"base-url" env:"KYCD_BASE_URL" group:"server" help:"Public URL of the API (default http://<addr>)."`
	PortalURL string `name:"portal-url" env:"KYCD_PORTAL_URL" group:"server" help:"Public URL of the applicant portal (default <base-url>/portal)."`
	Dev       bool   `env:"KYCD_DEV" group:"server" help:"Development mode: serve the Swagger UI at /swagger-ui/index.html."`
	LogLevel  string `name:"log-level" default:"info" enum:"debug,info,warn,error" env:"KYCD_LOG_LEVEL" group:"server" help:"Log level."`
	LogFormat string `name:"log-format" default:"json" enum:"json,text" env:"KYCD_LOG_FORMAT" group:"server" help:"Log format."`
	secretsFlag
	masterKeyFlag
	SMTPHost             string `name:"smtp-host" env:"KYCD_SMTP_HOST" group:"email" help:"SMTP server for notification e-mails; without it they stay in the email_outbox table."`
	SMTPPort             int    `name:"smtp-port" env:"KYCD_SMTP_PORT" group:"email" help:"SMTP port (default 587, or 465 with --smtp-tls tls, 25 with none)."`
	SMTPUser             string `name:"smtp-user" env:"KYCD_SMTP_USER" group:"email" help:"SMTP user name."`
	SMTPPassword         string `name:"smtp-password" env:"KYCD_SMTP_PASSWORD" group:"email" help:"SMTP password (prefer the environment variable)."`
	SMTPFrom             string `name:"smtp-from" env:"KYCD_SMTP_FROM" group:"email" help:"Sender address of notification e-mails."`
	SMTPTLS              string `name:"smtp-tls" default:"starttls" enum:"starttls,tls,none" env:"KYCD_SMTP_TLS" group:"email" help:"starttls (required), tls (implicit) or none."`
	AllowPrivateWebhooks bool   `name:"allow-private-webhooks" env:"KYCD_ALLOW_PRIVATE_WEBHOOKS" group:"webhooks" help:"Let live webhooks reach private and loopback addresses (on-prem networks)."`
	TrustedProxies       string `name:"trusted-proxies" env:"KYCD_TRUSTED_PROXIES" group:"server" placeholder:"CIDR,…" help:"Reverse proxies in front of kycd (address ranges or addresses, comma-separated): for requests from them, the client address (sign-in limits, sessions, captures) is taken from X-Forwarded-For, walked from the right past every trusted proxy. Others' X-Forwarded-For is ignored."`
	TrustProxy           bool   `name:"trust-proxy" env:"KYCD_TRUST_PROXY" group:"server" help:"Deprecated: the same as --trusted-proxies 127.0.0.0/8,::1 (a proxy on this machine); use --trusted-proxies."`
	UpdateLists          bool   `name:"update-lists" env:"KYCD_UPDATE_LISTS" group:"lists" help:"Download the official OFAC and UN lists daily (03:00 UTC, and at start when today's run is due); needs internet access."`
	listURLFlags
	replicateFlags
	ListUploadMax    int    `name:"list-upload-max" default:"512" env:"KYCD_LIST_UPLOAD_MAX" group:"lists" help:"MiB that one watch-list upload in the console may send, all its files together (written to a private folder under TMPDIR while it is imported); 0: the console refuses uploads."`
	UploadMemory     int    `name:"upload-memory" default:"128" env:"KYCD_UPLOAD_MEMORY" group:"server" help:"MiB that portal uploads being decoded may hold together (one decode per core at most); an upload that would need more alone is refused, others wait up to 10 s, then get 503 with Retry-After."`
	UploadsPerMinute int    `name:"uploads-per-minute" default:"20" env:"KYCD_UPLOADS_PER_MINUTE" group:"server" help:"Uploads one portal link may send in any minute (429 beyond); 0: no limit."`
	MetricsToken     string `name:"metrics-token" env:"KYCD_METRICS_TOKEN" group:"monitoring" help:"Bearer token that GET /metrics requires; without one /metrics is open, so bind --addr to a private address or block /metrics at the proxy."`
}

// trustedProxies reads --trusted-proxies. --trust-proxy, which used to
// believe the last X-Forwarded-For entry of any request (a client reaching
// kycd directly could choose its address and dodge the per-address
// sign-in limit), now means a proxy on this machine only, with a warning.
func (c *ServeCmd) trustedProxies(log *slog.Logger) ([]netip.Prefix, error) {
	proxies, err := clientip.ParseList(c.TrustedProxies)
	if err != nil {
		return nil, fmt.Errorf("--trusted-proxies: %w", err)
	}
	if c.TrustProxy {
		log.Warn("--trust-proxy is deprecated: it now trusts X-Forwarded-For only from a proxy on this machine (127.0.0.0/8, ::1); name your proxies with --trusted-proxies CIDR,…")
		proxies = append(proxies, clientip.Loopback...)
	}
	return proxies, nil
}

// uploadsPerMinute maps the flag to server.Options: 0 there means the
// default, here no limit.
func (c *ServeCmd) uploadsPerMinute() int {
	if c.UploadsPerMinute <= 0 {
		return -1
	}
	return c.UploadsPerMinute
}

// listUploadMax maps the flag to server.Options: 0 there means the
// default, here no uploads.
func (c *ServeCmd) listUploadMax() int64 {
	if c.ListUploadMax <= 0 {
		return -1
	}
	return int64(c.ListUploadMax) << 20
}

// shutdownGrace bounds how long in-flight requests may run after SIGTERM.
const shutdownGrace = 30 * time.Second

// Run serves until ctx is cancelled (SIGINT/SIGTERM), then lets in-flight
// requests finish and closes the database cleanly.
func (c *ServeCmd) Run(e *env) error {
	log := newLogger(e.stderr, c.LogLevel, c.LogFormat)
	proxies, err := c.trustedProxies(log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", c.Addr, err)
	}
	defer ln.Close()
	baseURL, portalURL, err := c.urls(ln.Addr().String())
	if err != nil {
		return err
	}

	rep, err := c.startReplication(e, c.DB, log) // nil without --replicate
	if err != nil {
		return err
	}
	defer stopReplication(rep, log) // deferred first, so it runs after the store's Close
	st, err := c.openEncrypted(e, c.DB, store.Options{Logger: log, ExternalCheckpoints: rep != nil})
	if err != nil {
		return err
	}
	rep.PauseWith(st.Pause)
	for _, f := range []string{c.DB, c.DB + "-wal", c.DB + "-shm"} {
		warnIfShared(e, f, "database file") // a new one is made 0600; an older one may not be
	}
	defer func() {
		if err := st.Close(); err != nil {
			log.Error("close database", "err", err)
		}
	}()
	box, urlKey, err := c.secrets(c.DB, e)
	if err != nil {
		return err
	}
	amlSvc, err := startScreening(e.ctx, st, log)
	if err != nil {
		return err
	}
	engine := &decision.Auto{Store: st, Screen: amlSvc.ScreenPerson, Policy: decision.StorePolicy(st), Now: time.Now,
		ImageSignals: decision.ImageSignals}
	kycSvc := verification.New(st, engine, portalURL, log)
	listSources, err := c.sources(nil) // checked before bootstrap can print a key
	if err != nil {
		return err
	}
	runner := jobs.New(jobs.Options{Store: st, Logger: log, Concurrency: 32})
	// Console list imports end with serve, whichever way it ends:
	// cancelled, recorded as interrupted, and waited for before the
	// database closes (deferred calls run last first).
	importsCtx, stopImports := context.WithCancel(e.ctx)
	listImports := aml.NewListImports(aml.ListImportsOptions{Store: st, Service: amlSvc, Log: log, Context: importsCtx})
	defer listImports.Wait()
	defer stopImports()
	srv, err := server.New(server.Options{Store: st, Logger: log, BaseURL: baseURL, PortalURL: portalURL, Dev: c.Dev, Version: e.version,
		Commit: e.build.Commit, CommitModified: e.build.Modified,
		Secrets: box, AllowPrivateWebhooks: c.AllowPrivateWebhooks, AML: amlSvc, KYC: kycSvc, URLKey: urlKey, TrustedProxies: proxies,
		JobsLastPoll: runner.LastPoll, MetricsToken: c.MetricsToken, Replication: replicationStatus(rep),
		UploadGate: capture.NewGate(capture.GateOptions{Memory: int64(c.UploadMemory) << 20}), UploadsPerMinute: c.uploadsPerMinute(),
		ListImports: listImports, ListUploadMax: c.listUploadMax(), MailConfigured: c.SMTPHost != ""})
	if err != nil {
		return err
	}
	m, err := mailer.New(mailer.Config{Host: c.SMTPHost, Port: c.SMTPPort, Username: c.SMTPUser, Password: c.SMTPPassword,
		From: c.SMTPFrom, TLS: c.SMTPTLS}, log)
	if err != nil {
		return err
	}
	// Last of the steps that can fail, so that a key is never printed by a
	// server that then refuses to start.
	if err := bootstrap(e, st, c.DB, baseURL); err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	registerMaintenance(runner, st)
	registerRetention(runner, st)
	(&webhook.Dispatcher{Store: st, Box: box, Sender: webhook.NewSender(c.AllowPrivateWebhooks), Log: log, Jitter: webhook.RetryJitter,
		OnAttempt: srv.ObserveWebhookAttempt}).Register(runner)
	m.Register(runner, st)
	if err := m.Resume(e.ctx, st); err != nil {
		return fmt.Errorf("e-mail outbox: %w", err)
	}
	amlSvc.RegisterJobs(runner)
	kycSvc.RegisterJobs(runner)
	if c.UpdateLists {
		aml.RegisterListUpdates(runner, st, nil, listSources, log)
	}
	if err := scheduleMaintenance(e.ctx, st); err != nil {
		return err
	}
	if err := scheduleRetention(e.ctx, st); err != nil {
		return err
	}
	if err := amlSvc.ScheduleMonitor(e.ctx); err != nil {
		return err
	}
	if err := kycSvc.ScheduleOverdue(e.ctx); err != nil {
		return err
	}
	if c.UpdateLists {
		if err := aml.ScheduleListUpdates(e.ctx, st); err != nil {
			return err
		}
	}
	go amlSvc.WatchLists(e.ctx, listPollPeriod)
	go keepAuditHeadSigned(e.ctx, st, log)
	runnerDone := make(chan error, 1)
	go func() { runnerDone <- runner.Start(e.ctx) }()

	errc := make(chan error, 1)
	// net/http's own replies (malformed requests) in the envelope too.
	go func() { errc <- hs.Serve(srv.Listener(ln)) }()
	log.Info("kycd serving", "addr", ln.Addr().String(), "base_url", baseURL, "console_url", baseURL+"/console/", "portal_url", portalURL,
		"db", st.Path(), "version", e.version, "dev", c.Dev)
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-e.ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests", "grace", shutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	if err := srv.FlushKeyUse(sctx); err != nil {
		log.Warn("record API key use at shutdown", "err", err)
	}
	if err := <-runnerDone; err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	log.Info("stopped")
	return nil
}

// keepAuditHeadSigned re-signs the audit log's head at start and every
// store.AuditHeadRefresh, so that its time shows the server was running.
// A log that no longer matches its head is not re-signed: that is logged,
// every time, until an operator looks (kycd audit verify).
func keepAuditHeadSigned(ctx context.Context, st *store.Store, log *slog.Logger) {
	t := time.NewTicker(store.AuditHeadRefresh)
	defer t.Stop()
	for {
		if err := st.RefreshAuditHead(ctx); err != nil && ctx.Err() == nil {
			log.Error("audit log: the signed head was not refreshed; run kycd audit verify", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// listPollPeriod is how soon a list imported by the CLI reaches a running
// server (the monitor job also reloads before re-screening).
const listPollPeriod = 10 * time.Second

// startScreening loads the imported watch lists and warns about list kinds
// that have none: live screening of those kinds fails closed (the check
// is failed, never a clean pass) until a list is imported.
func startScreening(ctx context.Context, st *store.Store, log *slog.Logger) (*aml.Service, error) {
	sc, err := screening.NewScreener()
	if err != nil {
		return nil, err
	}
	svc := aml.New(st, sc, log)
	if err := svc.Refresh(ctx); err != nil {
		return nil, fmt.Errorf("load watch lists: %w", err)
	}
	if missing := sc.MissingKinds(); len(missing) > 0 {
		log.Warn("no watch list loaded for some kinds: live AML checks come back failed until one is imported ('kycd lists import', 'kycd lists update' or serve --update-lists)",
			"missing", missing)
	}
	return svc, nil
}

func (c *ServeCmd) urls(bound string) (base, portal string, err error) {
	base = c.BaseURL
	if base == "" {
		base = "http://" + bound
	}
	portal = c.PortalURL
	if portal == "" {
		portal = base + "/portal"
	}
	for flag, v := range map[string]string{"--base-url": base, "--portal-url": portal} {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return "", "", fmt.Errorf("%s %q must be an absolute http(s) URL", flag, v)
		}
	}
	return base, portal, nil
}

// bootstrap gives a new database an organization and a sandbox key, and
// prints the key once, so that a new user can call the API at once.
func bootstrap(e *env, st *store.Store, db, baseURL string) error {
	var org *kyc.Organization
	var token string
	err := st.InTx(store.WithActor(e.ctx, operatorPrincipal()), func(tx *store.Tx) error {
		n, err := tx.CountOrganizations()
		if err != nil || n > 0 {
			return err
		}
		if org, err = tx.CreateOrganization("Default organization", ""); err != nil {
			return err
		}
		_, token, err = tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: org.ID, Environment: kyc.Sandbox, Name: "bootstrap"})
		return err
	})
	if err != nil || org == nil {
		return err
	}
	fmt.Fprintf(e.stderr, "\nkycd: this database had no organization, so I created %s and a sandbox API key.\n"+
		"The key is shown only this once; store it now (a lost key is revoked and replaced with 'kycd keys create'):\n\n    %s\n\n",
		org.ID, token)
	// The back office has no user yet: say where it is and how to make
	// the first admin, who then invites the others in the console.
	dbArg := db
	if store.IsPostgres(db) {
		dbArg = "\"$KYCD_DB\""
	}
	fmt.Fprintf(e.stderr, "The back office is at %s/console/. Make its first admin (who signs in there and invites the others) with:\n\n"+
		"    kycd users create --db %s --org %s --email you@example.com --name \"Your Name\" --role admin --installation-admin --base-url %s\n\n"+
		"It prints a one-time link that sets the admin's password. The organization has no contact e-mail yet: set one with\n"+
		"kycd orgs update %s --contact-email compliance@example.com (or next time create the database with kycd init).\n\n",
		baseURL, dbArg, org.ID, baseURL, org.ID)
	return nil
}

func newLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level)) // kong's enum already checked it
	opts := &slog.HandlerOptions{Level: lv}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}
