package server_test

import (
	"net/http"
	"testing"
	"time"

	"kycd/aml"
	"kycd/screening"
	"kycd/store"
	"kycd/webhook"
)

// usageTotals is GET /v1/usage's totals for key in month.
func (e *apiEnv) usageTotals(key, month string) map[string]any {
	e.t.Helper()
	r := e.call("GET", "/v1/usage?month="+month, key, "")
	if r.status != http.StatusOK {
		e.t.Fatalf("usage: %d %s", r.status, r.body)
	}
	return r.json(e.t)["totals"].(map[string]any)
}

func wantUsage(t *testing.T, step string, got map[string]any, kyc, checks, monitoring, manual float64) {
	t.Helper()
	want := map[string]float64{"kycRequestsSubmitted": kyc, "amlChecksCreated": checks, "monitoringRescreens": monitoring, "manualRescreens": manual}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %v, want %v (all: %v)", step, k, got[k], v, got)
		}
	}
}

// TestUsageMetering: every live billable event counts once, in its own
// transaction — replayed Idempotency-Keys, a second submission, a re-run of
// the daily re-screen and webhook replays add nothing — and sandbox never
// counts. GET /v1/usage reports the month per day.
func TestUsageMetering(t *testing.T) {
	e := newKYCEnv(t)
	sc, err := screening.NewScreener()
	if err != nil {
		t.Fatal(err)
	}
	svc := aml.New(e.store, sc, nil)
	e.opts.AML = svc
	e.opts.AllowPrivateWebhooks = true
	e.start()
	(&webhook.Dispatcher{Store: e.store, Box: e.opts.Secrets, Sender: webhook.NewSender(true), Now: e.clock.Now}).Register(e.runner)
	importCSV(t, e.apiEnv, "in-house-sanctions", screening.Sanctions, "name,dob,country,reference\nIvan Sidorov,1961-03-04,RU,S-1\n")
	importCSV(t, e.apiEnv, "in-house-pep", screening.PEP, "name,reference\nMaria Gonzalez Lopez,P-1\n")
	importCSV(t, e.apiEnv, "in-house-media", screening.AdverseMedia, "name,reference\nJohn Fraudster,M-1\n")
	if err := svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	ep := e.call("POST", "/v1/webhook-endpoints", e.A.LiveKey, `{"url":"https://127.0.0.1:1/hook"}`)
	if ep.status != 201 {
		t.Fatalf("webhook endpoint: %d %s", ep.status, ep.body)
	}
	const month = "2026-01"
	wantUsage(t, "fresh", e.usageTotals(e.A.LiveKey, month), 0, 0, 0, 0)

	// AML checks: a replayed key is not a new check; sandbox is free.
	monitored := `{"firstName":"Ivan","lastName":"Sidorov","dob":"1961-03-04","monitoring":true}`
	c := e.call("POST", "/v1/aml-checks", e.A.LiveKey, monitored, "Idempotency-Key", "aml-1").json(t)
	if r := e.call("POST", "/v1/aml-checks", e.A.LiveKey, monitored, "Idempotency-Key", "aml-1"); r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %v %s", r.header, r.body)
	}
	e.mustAML(e.A.LiveKey, `{"firstName":"Maria","lastName":"Gonzalez"}`)
	e.mustAML(e.A.SandboxKey, `{"firstName":"Sandbox","lastName":"Sanctioned","monitoring":true}`)
	wantUsage(t, "checks", e.usageTotals(e.A.LiveKey, month), 0, 2, 0, 0)

	// A manual re-screen, its key replayed.
	path := "/v1/aml-checks/" + c["id"].(string) + "/rescreen"
	for i := 0; i < 2; i++ {
		if r := e.call("POST", path, e.A.LiveKey, "", "Idempotency-Key", "again-1"); r.status != 200 {
			t.Fatalf("rescreen: %d %s", r.status, r.body)
		}
	}
	wantUsage(t, "manual", e.usageTotals(e.A.LiveKey, month), 0, 2, 0, 1)

	// The daily re-screen a day later: the monitored live check counts, the
	// sandbox one does not; running it again re-screens nothing new.
	e.clock.Advance(25 * time.Hour)
	for i := 0; i < 2; i++ {
		if _, err := svc.RescreenDue(t.Context(), 100); err != nil {
			t.Fatal(err)
		}
	}
	wantUsage(t, "monitoring", e.usageTotals(e.A.LiveKey, month), 0, 2, 1, 1)

	// KYC: submitted live requests count once, whatever happens after;
	// created but unsubmitted, and sandbox, never.
	live := e.create(e.A.LiveKey, `{"applicant":{"firstName":"Ada","lastName":"Lovelace"}}`)
	e.create(e.A.LiveKey, `{"applicant":{"firstName":"Not","lastName":"Submitted"}}`)
	e.submit(token(t, live), "passport", true)
	sb := e.create(e.A.SandboxKey, `{"applicant":{"firstName":"Sand","lastName":"Box"}}`)
	e.submit(token(t, sb), "passport", true)
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error { _, err := e.svc.Submit(tx, token(t, live)); return err }); err == nil {
		t.Fatal("a second submission was accepted")
	}
	e.runJobs()
	wantUsage(t, "kyc", e.usageTotals(e.A.LiveKey, month), 1, 2, 1, 1)

	// Per day: the checks and the manual re-screen on the 2nd, the rest on
	// the 3rd; every day of the month is there.
	u := e.call("GET", "/v1/usage?month="+month, e.A.LiveKey, "").json(t)
	days := u["days"].([]any)
	if u["month"] != month || u["billable"] != true || u["environment"] != "live" || len(days) != 31 {
		t.Fatalf("usage: %v", u)
	}
	d2, d3 := days[1].(map[string]any), days[2].(map[string]any)
	if d2["date"] != "2026-01-02" || d2["amlChecksCreated"] != 2.0 || d2["manualRescreens"] != 1.0 || d2["kycRequestsSubmitted"] != 0.0 ||
		d3["kycRequestsSubmitted"] != 1.0 || d3["monitoringRescreens"] != 1.0 || d3["amlChecksCreated"] != 0.0 {
		t.Errorf("days: %v / %v", d2, d3)
	}
	// The default month is the current one; other months are empty.
	if r := e.call("GET", "/v1/usage", e.A.LiveKey, "").json(t); r["month"] != month {
		t.Errorf("default month %v", r["month"])
	}
	wantUsage(t, "february", e.usageTotals(e.A.LiveKey, "2026-02"), 0, 0, 0, 0)
	// Sandbox keys see sandbox: not billed, zero, never live's counts.
	sbu := e.call("GET", "/v1/usage?month="+month, e.A.SandboxKey, "").json(t)
	if sbu["billable"] != false || sbu["environment"] != "sandbox" {
		t.Errorf("sandbox usage: %v", sbu)
	}
	wantUsage(t, "sandbox key", sbu["totals"].(map[string]any), 0, 0, 0, 0)
	wantUsage(t, "other organization", e.usageTotals(e.B.LiveKey, month), 0, 0, 0, 0)

	// Webhook replays send events again; they bill nothing.
	// Nothing listens there: every delivery fails through its retries
	// (the clock moves hours; the daily re-screen is not on this runner).
	for i := 0; i < 10; i++ {
		e.runJobs()
		e.clock.Advance(2 * time.Hour)
	}
	// Until every delivery has run out of retries: how many jobs one
	// RunOnce claims depends on the machine's pace (under -race a slow one
	// left a delivery pending, and its replay was refused, 409).
	pending := func() int {
		n := 0
		for _, d := range e.call("GET", "/v1/webhook-deliveries", e.A.LiveKey, "").json(t)["data"].([]any) {
			if d.(map[string]any)["status"] == "pending" {
				n++
			}
		}
		return n
	}
	for i := 0; i < 50 && pending() > 0; i++ {
		e.runJobs()
		e.clock.Advance(2 * time.Hour)
	}
	// Failing, the endpoint was disabled: enabled again, replays go out.
	e.call("PATCH", "/v1/webhook-endpoints/"+ep.json(t)["id"].(string), e.A.LiveKey, `{"enabled":true}`)
	list := e.call("GET", "/v1/webhook-deliveries", e.A.LiveKey, "").json(t)["data"].([]any)
	if len(list) == 0 {
		t.Fatal("no deliveries to replay")
	}
	for _, d := range list {
		if r := e.call("POST", "/v1/webhook-deliveries/"+d.(map[string]any)["id"].(string)+"/replay", e.A.LiveKey, ""); r.status != http.StatusAccepted {
			t.Fatalf("replay: %d %s", r.status, r.body)
		}
	}
	e.runJobs()
	wantUsage(t, "after webhook replays", e.usageTotals(e.A.LiveKey, month), 1, 2, 1, 1)

	for _, q := range []string{"?month=2026-13", "?month=26-01", "?month=2026-1", "?month=2026-01&org=x"} {
		if r := e.call("GET", "/v1/usage"+q, e.A.LiveKey, ""); r.status != 400 || r.errCode(t) != "VALIDATION_ERROR" {
			t.Errorf("GET /v1/usage%s: %d %s", q, r.status, r.body)
		}
	}
}
