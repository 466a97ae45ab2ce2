package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"kycd/kyc"
	"kycd/screening"
)

// metrics are the Prometheus metrics of one Server, in a registry of their
// own (never the global one: tests build many servers in one process).
type metrics struct {
	handler         http.Handler
	requests        *prometheus.CounterVec
	duration        *prometheus.HistogramVec
	rateLimited     prometheus.Counter
	replays         prometheus.Counter
	webhookAttempts *prometheus.CounterVec
	screening       *prometheus.HistogramVec
}

// collectTimeout bounds the database queries of one scrape.
const collectTimeout = 2 * time.Second

func newMetrics(s *Server) *metrics {
	reg := prometheus.NewRegistry()
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kycd_http_requests_total",
			Help: "HTTP requests by route pattern (never the raw path), method and status."}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kycd_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by route pattern and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"route", "method"}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{Name: "kycd_rate_limited_requests_total",
			Help: "API requests refused with 429 by the per-key rate limit."}),
		replays: prometheus.NewCounter(prometheus.CounterOpts{Name: "kycd_idempotent_replays_total",
			Help: "POST requests answered from a stored response (Idempotent-Replayed: true)."}),
		webhookAttempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kycd_webhook_attempts_total",
			Help: "Webhook delivery attempts by outcome: delivered, retry (failed, another attempt is scheduled) or failed (for good)."}, []string{"outcome"}),
		screening: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "kycd_screening_duration_seconds",
			Help:    "Time the screener took for one person (AML checks and KYC decisions; not monitoring re-screens), by environment.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1}}, []string{"environment"}),
	}
	for _, o := range []string{"delivered", "retry", "failed"} {
		m.webhookAttempts.WithLabelValues(o) // show zeros before the first attempt
	}
	st := s.store.Stats
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.duration, m.rateLimited, m.replays, m.webhookAttempts, m.screening,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "kycd_build_info", Help: "Always 1; the version is a label.",
			ConstLabels: prometheus.Labels{"version": s.version}}, func() float64 { return 1 }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "kycd_sqlite_commits_total",
			Help: "Write transactions committed (one fsync each)."}, func() float64 { return float64(st().Commits) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "kycd_sqlite_use_cases_total",
			Help: "Write use cases those commits carried (group commit)."}, func() float64 { return float64(st().UseCases) }),
		&stateCollector{s: s},
		&deskCollector{s: s},
	)
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError, // a failed query leaves the other metrics served
		Registry:      reg,
	})
	return m
}

// knownMethods keep the method label bounded: clients can send any token.
var knownMethods = map[string]bool{"GET": true, "HEAD": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "OPTIONS": true}

// observeRequest counts one answered request. pattern is the ServeMux
// pattern that matched ("" for none): raw paths would put portal tokens
// and ids into labels.
func (m *metrics) observeRequest(pattern, method string, status int, took time.Duration) {
	route := "unmatched"
	if pattern != "" {
		route = pattern
		if _, path, ok := strings.Cut(pattern, " "); ok {
			route = path
		}
	}
	if !knownMethods[method] {
		method = "OTHER"
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route, method).Observe(took.Seconds())
}

func (m *metrics) observeScreening(env kyc.Environment, took time.Duration) {
	m.screening.WithLabelValues(string(env)).Observe(took.Seconds())
}

// ObserveWebhookAttempt counts one webhook delivery attempt; wire it to
// webhook.Dispatcher.OnAttempt.
func (s *Server) ObserveWebhookAttempt(outcome string) {
	s.metrics.webhookAttempts.WithLabelValues(outcome).Inc()
}

// handleMetrics handles "GET /metrics": Prometheus text format. With a
// metrics token configured it needs Authorization: Bearer <token>.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) error {
	if s.metricsToken != "" {
		h := strings.TrimSpace(r.Header.Get("Authorization"))
		if h == "" {
			return authError(kyc.EMissingAPIKey, "", "No metrics token given. Send it as Authorization: Bearer <token> (serve --metrics-token).")
		}
		scheme, token, _ := strings.Cut(h, " ")
		// Hashing first makes the comparison constant-time in the length too.
		got, want := sha256.Sum256([]byte(strings.TrimSpace(token))), sha256.Sum256([]byte(s.metricsToken))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			return authError(kyc.EInvalidAPIKey, "", "The metrics token is not valid.")
		}
	}
	s.metrics.handler.ServeHTTP(w, r)
	return nil
}

// stateCollector reads state at scrape time: the job table, the loaded
// watch lists, the WAL file and the replicas.
type stateCollector struct{ s *Server }

var (
	jobsDesc = prometheus.NewDesc("kycd_jobs",
		"Jobs in the job table by kind and state (pending, running, done, dead).", []string{"kind", "state"}, nil)
	jobsOldestDesc = prometheus.NewDesc("kycd_jobs_oldest_age_seconds",
		"Age of the oldest job by kind and state, since it was enqueued.", []string{"kind", "state"}, nil)
	jobsOverdueDesc = prometheus.NewDesc("kycd_jobs_overdue_seconds",
		"How long the oldest due pending job of a kind has waited past its run time (0 when none is due): the runner's backlog.", []string{"kind"}, nil)
	listAgeDesc = prometheus.NewDesc("kycd_screening_list_age_seconds",
		"Age of the loaded version of each watch list, since its import.", []string{"source", "kind"}, nil)
	listEntitiesDesc = prometheus.NewDesc("kycd_screening_list_entities",
		"Entities in the loaded version of each watch list.", []string{"source", "kind"}, nil)
	listMissingDesc = prometheus.NewDesc("kycd_screening_list_missing",
		"1 when no list of this kind is loaded (live screening of the kind fails closed), else 0.", []string{"kind"}, nil)
	listLostDesc = prometheus.NewDesc("kycd_screening_list_kind_lost",
		"1 when the kind had a list and has none since a source changed its kind: organizations screening it (the default scope included) get error results for it, else 0.", []string{"kind"}, nil)
	walDesc = prometheus.NewDesc("kycd_sqlite_wal_bytes",
		"Size of the SQLite write-ahead log file.", nil, nil)
	replicaLagDesc = prometheus.NewDesc("kycd_replication_lag_seconds",
		"How far each replica is behind the database.", []string{"replica"}, nil)
	replicaSyncDesc = prometheus.NewDesc("kycd_replication_last_sync_timestamp_seconds",
		"Unix time of each replica's last successful sync (0 before the first).", []string{"replica"}, nil)
	replicaErrDesc = prometheus.NewDesc("kycd_replication_error",
		"1 when the replica's last sync failed, else 0.", []string{"replica"}, nil)
	emailDesc = prometheus.NewDesc("kycd_email_outbox",
		"E-mails in the outbox by state: queued (waiting to be sent, e.g. for SMTP to be configured), sent, expired (given up unsent after a week; body deleted).",
		[]string{"state"}, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{jobsDesc, jobsOldestDesc, jobsOverdueDesc, listAgeDesc, listEntitiesDesc,
		listMissingDesc, listLostDesc, walDesc, replicaLagDesc, replicaSyncDesc, replicaErrDesc, emailDesc} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.s
	now := s.now()
	ctx, cancel := context.WithTimeout(context.Background(), collectTimeout)
	defer cancel()
	if queues, err := s.store.JobQueues(ctx, now); err != nil {
		ch <- prometheus.NewInvalidMetric(jobsDesc, err)
	} else {
		overdue := map[string]float64{}
		for _, q := range queues {
			ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(q.Count), q.Kind, q.State)
			ch <- prometheus.MustNewConstMetric(jobsOldestDesc, prometheus.GaugeValue, max(0, now.Sub(q.Oldest).Seconds()), q.Kind, q.State)
			if _, ok := overdue[q.Kind]; !ok {
				overdue[q.Kind] = 0
			}
			if !q.OldestDue.IsZero() {
				overdue[q.Kind] = max(0, now.Sub(q.OldestDue).Seconds())
			}
		}
		for kind, secs := range overdue {
			ch <- prometheus.MustNewConstMetric(jobsOverdueDesc, prometheus.GaugeValue, secs, kind)
		}
	}

	seen := map[[2]string]bool{}
	for _, l := range s.aml.Screener().Lists() {
		key := [2]string{l.Version.Source, string(l.Kind)}
		if seen[key] {
			continue // one active version per source; never report a label set twice
		}
		seen[key] = true
		if at, err := time.Parse(kyc.TimeFormat, l.Version.ImportedAt); err == nil {
			ch <- prometheus.MustNewConstMetric(listAgeDesc, prometheus.GaugeValue, max(0, now.Sub(at).Seconds()), key[0], key[1])
		}
		ch <- prometheus.MustNewConstMetric(listEntitiesDesc, prometheus.GaugeValue, float64(l.Version.EntityCount), key[0], key[1])
	}
	missing := map[screening.Kind]bool{}
	for _, k := range s.aml.Screener().MissingKinds() {
		missing[k] = true
	}
	for _, k := range screening.Kinds {
		v := 0.0
		if missing[k] {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(listMissingDesc, prometheus.GaugeValue, v, string(k))
	}
	lost := s.aml.LostKinds()
	for _, k := range screening.Kinds {
		v := 0.0
		if slices.Contains(lost, k) {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(listLostDesc, prometheus.GaugeValue, v, string(k))
	}

	if counts, err := s.store.EmailCounts(ctx); err != nil {
		ch <- prometheus.NewInvalidMetric(emailDesc, err)
	} else {
		for _, state := range []string{"queued", "sent", "expired"} {
			ch <- prometheus.MustNewConstMetric(emailDesc, prometheus.GaugeValue, float64(counts[state]), state)
		}
	}

	if n, err := s.store.WALSize(); err != nil {
		ch <- prometheus.NewInvalidMetric(walDesc, err)
	} else {
		ch <- prometheus.MustNewConstMetric(walDesc, prometheus.GaugeValue, float64(n))
	}

	if s.replication != nil {
		replicas := map[string]bool{}
		for _, rs := range s.replication() {
			name := redactURL(rs.URL)
			if replicas[name] {
				continue
			}
			replicas[name] = true
			sync, failed := 0.0, 0.0
			if !rs.LastSync.IsZero() {
				sync = float64(rs.LastSync.UnixMilli()) / 1000
			}
			if rs.Error != "" {
				failed = 1
			}
			ch <- prometheus.MustNewConstMetric(replicaLagDesc, prometheus.GaugeValue, rs.Lag.Seconds(), name)
			ch <- prometheus.MustNewConstMetric(replicaSyncDesc, prometheus.GaugeValue, sync, name)
			ch <- prometheus.MustNewConstMetric(replicaErrDesc, prometheus.GaugeValue, failed, name)
		}
	}
}
