package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"kycd/aml"
	"kycd/jobs"
	"kycd/screening"
	"kycd/server"
	"kycd/store"
)

// ready calls GET /readyz and checks the answer against the OpenAPI
// description. Unlike call it expects no error envelope on 503: /readyz
// answers with its checks either way.
func (e *apiEnv) ready() (int, map[string]any) {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.t.Context(), "GET", e.srv.URL+"/readyz", nil)
	if err != nil {
		e.t.Fatal(err)
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	router, err := contract()
	if err != nil {
		e.t.Fatal(err)
	}
	route, params, err := router.FindRoute(req)
	if err != nil {
		e.t.Fatalf("GET /readyz is not in the OpenAPI description: %v", err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 res.StatusCode,
		Header:                 res.Header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		e.t.Errorf("GET /readyz → %d does not match the OpenAPI description: %v\nbody: %s", res.StatusCode, err, body)
	}
	r := &response{status: res.StatusCode, header: res.Header, body: body}
	return r.status, r.json(e.t)
}

func check(t *testing.T, body map[string]any, name string) map[string]any {
	t.Helper()
	c, ok := body["checks"].(map[string]any)[name].(map[string]any)
	if !ok {
		t.Fatalf("no check %s in %v", name, body)
	}
	return c
}

// TestReadyFreshStore: a fresh, migrated store is ready; with no lists
// loaded every kind is reported missing, which does not change that.
func TestReadyFreshStore(t *testing.T) {
	e := newAPIEnv(t)
	status, body := e.ready()
	if status != 200 || body["status"] != "ready" {
		t.Fatalf("readyz: %d %v", status, body)
	}
	if c := check(t, body, "database"); c["ok"] != true {
		t.Errorf("database: %v", c)
	}
	if c := check(t, body, "migrations"); c["ok"] != true || c["version"] != float64(store.SchemaVersion()) || c["expected"] != c["version"] {
		t.Errorf("migrations: %v", c)
	}
	if c := check(t, body, "jobs"); c["ok"] != true { // no runner attached: not checked
		t.Errorf("jobs: %v", c)
	}
	if c := check(t, body, "lists"); c["ok"] != false || strings.Join(strs(c["missing"]), ",") != "sanctions,pep,adverse_media" {
		t.Errorf("lists: %v", c)
	}
	if c := check(t, body, "replication"); c["ok"] != true || c["enabled"] != false || len(c["replicas"].([]any)) != 0 {
		t.Errorf("replication: %v", c)
	}
}

// TestReadyClosedStore: a closed database is not ready, while /healthz
// (liveness) still answers 200.
func TestReadyClosedStore(t *testing.T) {
	e := newAPIEnv(t)
	if err := e.store.Close(); err != nil {
		t.Fatal(err)
	}
	status, body := e.ready()
	if status != 503 || body["status"] != "not_ready" {
		t.Fatalf("readyz on a closed store: %d %v", status, body)
	}
	if c := check(t, body, "database"); c["ok"] != false || !strings.Contains(c["detail"].(string), "closed") {
		t.Errorf("database: %v", c)
	}
	if c := check(t, body, "migrations"); c["ok"] != false {
		t.Errorf("migrations: %v", c)
	}
	if r := e.call("GET", "/healthz", "", ""); r.status != 200 || r.json(t)["status"] != "ok" {
		t.Errorf("healthz on a closed store: %d %s", r.status, r.body)
	}
}

// TestReadyListsMissing: the kinds without a loaded list are named.
func TestReadyListsMissing(t *testing.T) {
	e := newAPIEnv(t)
	sc, err := screening.NewScreener()
	if err != nil {
		t.Fatal(err)
	}
	svc := aml.New(e.store, sc, nil)
	e.opts.AML = svc
	e.start()
	importCSV(t, e, "in-house-sanctions", screening.Sanctions, "name,reference\nIvan Sidorov,S-1\n")
	if err := svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	status, body := e.ready()
	c := check(t, body, "lists")
	if status != 200 || c["ok"] != false || strings.Join(strs(c["missing"]), ",") != "pep,adverse_media" ||
		!strings.Contains(c["detail"].(string), "pep, adverse_media") {
		t.Fatalf("readyz: %d lists %v", status, c)
	}
}

// TestReadyJobs: ready while the runner polls, not ready once it has not
// polled for over 30 seconds.
func TestReadyJobs(t *testing.T) {
	var runner *jobs.Runner
	e := newAPIEnv(t, func(o *server.Options) { o.JobsLastPoll = func() time.Time { return runner.LastPoll() } })
	runner = jobs.New(jobs.Options{Store: e.store, Now: e.clock.Now})
	if status, body := e.ready(); status != 503 || check(t, body, "jobs")["ok"] != false {
		t.Fatalf("before the first poll: %d %v", status, body)
	}
	if _, err := runner.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	if status, body := e.ready(); status != 200 || check(t, body, "jobs")["lastPollAt"] != "2026-01-02T03:04:05.000Z" {
		t.Fatalf("after a poll: %d %v", status, body)
	}
	e.clock.Advance(31 * time.Second)
	status, body := e.ready()
	if c := check(t, body, "jobs"); status != 503 || c["ok"] != false || !strings.Contains(c["detail"].(string), "31s ago") {
		t.Fatalf("31 s after the last poll: %d %v", status, c)
	}
}

// TestReadyReplication: replicas are listed without credentials; a
// replica's error is reported but kycd stays ready.
func TestReadyReplication(t *testing.T) {
	synced := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	e := newAPIEnv(t, func(o *server.Options) {
		o.Replication = func() []server.ReplicaStatus {
			return []server.ReplicaStatus{
				{URL: "s3://AKIAEXAMPLE:hunter2@backups/kycd?sse=aws:kms", LastSync: synced, Lag: 1500 * time.Millisecond},
				{URL: "file:///var/backups/kycd", Error: "disk full"},
			}
		}
	})
	status, body := e.ready()
	c := check(t, body, "replication")
	if status != 200 || c["ok"] != false || c["enabled"] != true {
		t.Fatalf("readyz: %d replication %v", status, c)
	}
	rs := c["replicas"].([]any)
	first, second := rs[0].(map[string]any), rs[1].(map[string]any)
	if first["url"] != "s3://backups/kycd" || first["lastSyncAt"] != "2026-01-02T03:04:00.000Z" || first["lagSeconds"] != 1.5 || first["error"] != nil {
		t.Errorf("first replica: %v", first)
	}
	if second["url"] != "file:///var/backups/kycd" || second["lastSyncAt"] != nil || second["error"] != "disk full" {
		t.Errorf("second replica: %v", second)
	}
}

func strs(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// TestHealthBuild: /healthz names the build (version, commit, schema
// version), null commit when the build recorded none; call checks both
// bodies against the OpenAPI description.
func TestHealthBuild(t *testing.T) {
	e := newAPIEnv(t, func(o *server.Options) { o.Commit, o.CommitModified = "0123456789abcdef", true })
	body := e.call("GET", "/healthz", "", "").json(t)
	if body["version"] != "test" || body["commit"] != "0123456789abcdef" || body["modified"] != true ||
		body["schemaVersion"] != float64(store.SchemaVersion()) {
		t.Errorf("healthz: %v", body)
	}
	body = newAPIEnv(t).call("GET", "/healthz", "", "").json(t)
	if c, ok := body["commit"]; !ok || c != nil || body["modified"] != false {
		t.Errorf("healthz without a commit: %v", body)
	}
}
