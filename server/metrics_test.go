package server_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"kycd/jobs"
	"kycd/server"
	"kycd/store"
	"kycd/store/storetest"
	"kycd/webhook"
)

// restart replaces the env's server with a new one on the same options
// and returns it, for tests that wire its hooks.
func (e *apiEnv) restart() *server.Server {
	e.t.Helper()
	srv, err := server.New(e.opts)
	if err != nil {
		e.t.Fatalf("server.New: %v", err)
	}
	e.srv = httptest.NewServer(srv.Handler())
	e.t.Cleanup(e.srv.Close)
	return srv
}

// scrape fetches /metrics (checked against the OpenAPI description).
func (e *apiEnv) scrape(token string) string {
	e.t.Helper()
	r := e.call("GET", "/metrics", token, "")
	if r.status != 200 {
		e.t.Fatalf("GET /metrics: %d %s", r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		e.t.Errorf("Content-Type %q", ct)
	}
	return string(r.body)
}

// metric returns the value of the series name{labels…} in a text
// exposition; labels are `k="v"` pairs that must all be present.
func metric(t *testing.T, body, name string, labels ...string) (float64, bool) {
	t.Helper()
	for line := range strings.SplitSeq(body, "\n") {
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		series, value := line[:i], line[i+1:]
		n, ls, _ := strings.Cut(series, "{")
		if n != name {
			continue
		}
		all := true
		for _, l := range labels {
			if !strings.Contains(ls, l) {
				all = false
			}
		}
		if all {
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				t.Fatalf("series %s: %v", line, err)
			}
			return v, true
		}
	}
	return 0, false
}

func wantMetric(t *testing.T, body string, want float64, name string, labels ...string) {
	t.Helper()
	got, ok := metric(t, body, name, labels...)
	if !ok {
		t.Errorf("no series %s%v", name, labels)
	} else if got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

// TestMetricsRequests: requests are counted by route pattern, never by
// raw path (portal tokens and ids stay out), with the rate limit, replay
// and screening counters beside them.
func TestMetricsRequests(t *testing.T) {
	e := newAPIEnv(t)
	app := e.mustCreate(e.A.SandboxKey, `{"firstName":"Ada","lastName":"Lovelace"}`)
	id := app["id"].(string)
	for range 2 {
		e.call("GET", "/v1/applicants/"+id, e.A.SandboxKey, "")
	}
	for range 2 {
		e.call("POST", "/v1/applicants", e.A.SandboxKey, `{"firstName":"Grace","lastName":"Hopper"}`, "Idempotency-Key", "k-1")
	}
	e.call("GET", "/v1/no-such-thing", e.A.SandboxKey, "")
	e.call("POST", "/v1/aml-checks", e.A.SandboxKey, `{"firstName":"Sandbox","lastName":"Sanctioned"}`)
	one := 1
	slow := storetest.MustOrg(t, e.store, "slow", &one)
	for range 2 {
		e.call("GET", "/v1/applicants", slow.SandboxKey, "")
	}
	// The portal is not part of the API description: call it directly.
	const token = "tok_SECRET_portal_token_123"
	res, err := e.srv.Client().Get(e.srv.URL + "/portal/" + token)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	body := e.scrape("")
	wantMetric(t, body, 3, "kycd_http_requests_total", `route="/v1/applicants"`, `method="POST"`, `status="201"`) // one replayed
	wantMetric(t, body, 2, "kycd_http_requests_total", `route="/v1/applicants/{id}"`, `method="GET"`, `status="200"`)
	wantMetric(t, body, 1, "kycd_http_requests_total", `route="unmatched"`, `method="GET"`, `status="404"`)
	wantMetric(t, body, 1, "kycd_http_requests_total", `route="/v1/applicants"`, `method="GET"`, `status="429"`)
	wantMetric(t, body, 1, "kycd_http_requests_total", `route="/portal/"`, `method="GET"`)
	wantMetric(t, body, 2, "kycd_http_request_duration_seconds_count", `route="/v1/applicants/{id}"`, `method="GET"`)
	wantMetric(t, body, 1, "kycd_rate_limited_requests_total")
	wantMetric(t, body, 1, "kycd_idempotent_replays_total")
	wantMetric(t, body, 1, "kycd_screening_duration_seconds_count", `environment="sandbox"`)
	wantMetric(t, body, 1, "kycd_screening_list_missing", `kind="pep"`)
	wantMetric(t, body, 0, "kycd_screening_list_kind_lost", `kind="pep"`)
	wantMetric(t, body, 1, "kycd_build_info", `version="test"`)
	wantMetric(t, body, 0, "kycd_email_outbox", `state="expired"`)
	for _, name := range []string{"kycd_sqlite_wal_bytes", "kycd_sqlite_commits_total", "go_goroutines", "process_start_time_seconds"} {
		if _, ok := metric(t, body, name); !ok {
			t.Errorf("no %s", name)
		}
	}
	for _, leak := range []string{token, id, "/v1/no-such-thing"} {
		if strings.Contains(body, leak) {
			t.Errorf("metrics contain the raw path part %q", leak)
		}
	}
}

// TestMetricsToken: with a token, /metrics needs it as a bearer token (an
// API key is no substitute); the contract is checked on every answer.
func TestMetricsToken(t *testing.T) {
	e := newAPIEnv(t, func(o *server.Options) { o.MetricsToken = "metrics-s3cret" })
	for _, tt := range []struct {
		token      string
		wantStatus int
		wantCode   string
	}{
		{"", 401, "MISSING_API_KEY"},
		{"wrong", 401, "INVALID_API_KEY"},
		{e.A.SandboxKey, 401, "INVALID_API_KEY"},
		{"metrics-s3cret", 200, ""},
	} {
		r := e.call("GET", "/metrics", tt.token, "")
		if r.status != tt.wantStatus || (tt.wantCode != "" && r.errCode(t) != tt.wantCode) {
			t.Errorf("token %q: %d %s", tt.token, r.status, r.body)
		}
	}
	r := e.call("GET", "/metrics", "", "", "Authorization", "Basic bWV0cmljcy1zM2NyZXQ=")
	if r.status != 401 || r.errCode(t) != "INVALID_API_KEY" {
		t.Errorf("Basic scheme: %d %s", r.status, r.body)
	}
}

// TestMetricsJobQueue: the job gauges are read from the table at scrape
// time.
func TestMetricsJobQueue(t *testing.T) {
	e := newAPIEnv(t)
	err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.EnqueueJob(store.NewJob{Kind: "test.metrics"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(90 * time.Second)
	body := e.scrape("")
	wantMetric(t, body, 1, "kycd_jobs", `kind="test.metrics"`, `state="pending"`)
	wantMetric(t, body, 90, "kycd_jobs_oldest_age_seconds", `kind="test.metrics"`, `state="pending"`)
	wantMetric(t, body, 90, "kycd_jobs_overdue_seconds", `kind="test.metrics"`)
}

// TestMetricsWebhookAttempts: the dispatcher reports each attempt's
// outcome through OnAttempt.
func TestMetricsWebhookAttempts(t *testing.T) {
	e := newAPIEnv(t, allowPrivateWebhooks)
	srv := e.restart()
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer rc.Close()
	runner := jobs.New(jobs.Options{Store: e.store, Now: e.clock.Now})
	(&webhook.Dispatcher{Store: e.store, Box: e.opts.Secrets, Sender: webhook.NewSender(true), Now: e.clock.Now,
		OnAttempt: srv.ObserveWebhookAttempt}).Register(runner)
	ep := e.call("POST", "/v1/webhook-endpoints", e.A.SandboxKey, `{"url":"`+rc.URL+`"}`).json(t)
	e.call("POST", "/v1/webhook-endpoints/"+ep["id"].(string)+"/test", e.A.SandboxKey, "")
	if _, err := runner.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	body := e.scrape("")
	wantMetric(t, body, 1, "kycd_webhook_attempts_total", `outcome="delivered"`)
	wantMetric(t, body, 0, "kycd_webhook_attempts_total", `outcome="failed"`)
}
