package console_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"kycd/internal/reviewdata"
	"kycd/kyc"
)

// TestDashboard: the queue's depth, oldest wait and overdue count, the
// decisions per day by outcome and by who decided, the automation rate,
// the median and p90 time from submission to decision and the counts per
// reviewer, on the page and as the same figures on /metrics (read at most
// once per 30 s); admins see every reviewer's counts, other roles their
// own.
func TestDashboard(t *testing.T) {
	s := newReviewStack(t)
	admin := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	ben := s.mustUser("ben@acme.example", "Ben Reviewer", kyc.RoleReviewer)
	viewer := s.mustUser("vera@acme.example", "Vera Viewer", kyc.RoleViewer)
	ba, bj, bb := s.browser(), s.browser(), s.browser()
	ba.login(admin)
	if r := ba.post("/console/settings/sla", "liveHours", "24"); r.status != http.StatusSeeOther {
		t.Fatalf("set SLA: %d %s", r.status, r.text())
	}
	// Maria is on the test list: the engine rejects her at once (0 s).
	if m := s.processed(kyc.Live, reviewdata.Person{FirstName: "Maria", LastName: "Kowalczyk", DOB: "1975", Country: "PL", DocNumber: "T22000130"}); m.Status != kyc.KYCRejected {
		t.Fatalf("Maria: %s", m.Status)
	}
	viktor := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	erika := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Erika", LastName: "Mustermann", DOB: "1964-01-01", Country: "DE", DocNumber: "T22000131"})
	s.clock.Advance(2 * time.Hour)
	later := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000132"})
	s.clock.Advance(time.Hour)
	bj.login(jane)
	bb.login(ben)
	// Jane approves Viktor 3 hours after submission; Ben rejects Erika
	// 27 hours after, and the later case waits on, overdue by then.
	if r := bj.post("/console/live/cases/"+viktor.ID+"/decision", "decision", "approve", "reasonCode", "SCREENING_FALSE_POSITIVE", "note", "Other man."); r.status != http.StatusSeeOther {
		t.Fatalf("decision: %d %s", r.status, r.text())
	}
	s.clock.Advance(24 * time.Hour)
	bb.login(ben)
	if r := bb.post("/console/live/cases/"+erika.ID+"/decision", "decision", "reject", "reasonCode", "SANCTIONS_MATCH", "note", "Listed."); r.status != http.StatusSeeOther {
		t.Fatalf("decision: %d %s", r.status, r.text())
	}
	_ = later

	ba.login(admin)
	p := ba.get("/console/live/dashboard")
	if p.status != http.StatusOK {
		t.Fatalf("dashboard: %d %s", p.status, p.text())
	}
	txt := p.text()
	for _, want := range []string{
		"1 waiting for review", "25 hours the longest wait", "1 overdue: waiting more than 24 hours",
		"3 decided: 1 approved, 2 rejected", "33% decided by the automated checks alone (1); by a person 2",
		// 0 s, 3 h and 27 h: the median is 3 hours, the p90 27.
		"3 hours median time", "9 in 10 within 27 hours",
		"Decisions per reviewer", "Jane Reviewer 1 1 0", "Ben Reviewer 1 0 1",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, txt)
		}
	}
	// Two days: Maria and Viktor's decisions on the first, Erika's on the
	// second (unless the clock started late in the day; count rows).
	if n := strings.Count(p.body, "<th scope=\"row\">20"); n < 1 || n > 2 {
		t.Errorf("%d day rows", n)
	}
	// A reviewer sees their own line only; a viewer none.
	bj.login(jane)
	if txt := bj.get("/console/live/dashboard").text(); !strings.Contains(txt, "Your decisions") || !strings.Contains(txt, "Jane Reviewer 1 1 0") ||
		strings.Contains(txt, "Ben Reviewer") {
		t.Errorf("reviewer's dashboard: %s", txt)
	}
	bv := s.browser()
	bv.login(viewer)
	if txt := bv.get("/console/live/dashboard").text(); strings.Contains(txt, "Jane Reviewer") || !strings.Contains(txt, "1 waiting for review") {
		t.Errorf("viewer's dashboard: %s", txt)
	}
	// The sandbox has its own figures.
	if txt := ba.get("/console/sandbox/dashboard").text(); !strings.Contains(txt, "0 waiting for review") || !strings.Contains(txt, "0 decided") {
		t.Errorf("sandbox dashboard: %s", txt)
	}
	for _, bad := range []string{"days=8", "days=x", "days=-30"} {
		if r := ba.get("/console/live/dashboard?" + bad); r.status != http.StatusBadRequest {
			t.Errorf("%s: %d", bad, r.status)
		}
	}
	if txt := ba.get("/console/live/dashboard?days=7").text(); !strings.Contains(txt, "Decisions in the last 7 days") {
		t.Errorf("7 days: %s", txt)
	}

	// The same figures on /metrics.
	org := s.org.ID
	m := scrape(t, s.srv.URL)
	for _, want := range []string{
		`kycd_review_queue_depth{environment="live",organization="` + org + `"} 1`,
		`kycd_review_queue_oldest_age_seconds{environment="live",organization="` + org + `"} 90000`,
		`kycd_review_overdue{environment="live",organization="` + org + `"} 1`,
		`kycd_kyc_decisions_total{decided_by="engine",decision="rejected",environment="live",organization="` + org + `"} 1`,
		`kycd_kyc_decisions_total{decided_by="person",decision="approved",environment="live",organization="` + org + `"} 1`,
		`kycd_kyc_decisions_total{decided_by="person",decision="rejected",environment="live",organization="` + org + `"} 1`,
		`kycd_kyc_reviewer_decisions_total{environment="live",organization="` + org + `",reviewer="` + jane.User.ID + `"} 1`,
		`kycd_kyc_reviewer_decisions_total{environment="live",organization="` + org + `",reviewer="` + ben.User.ID + `"} 1`,
		`kycd_kyc_automation_ratio{environment="live",organization="` + org + `"} 0.3333333333333333`,
		`kycd_kyc_decision_time_seconds{environment="live",organization="` + org + `",quantile="0.5"} 10500`,
		`kycd_kyc_decision_time_seconds{environment="live",organization="` + org + `",quantile="0.9"} 97500`,
		`kycd_review_queue_depth{environment="sandbox",organization="` + org + `"} 0`,
	} {
		if !strings.Contains(m, want+"\n") {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(m, `kycd_kyc_automation_ratio{environment="sandbox"`) {
		t.Error("an automation ratio for an environment where nothing was decided")
	}
	// Read at most once per 30 s: a decision now shows at the next reading.
	bj.login(jane)
	if r := bj.post("/console/live/cases/"+later.ID+"/decision", "decision", "approve", "note", "Fine."); r.status != http.StatusSeeOther {
		t.Fatalf("decision: %d %s", r.status, r.text())
	}
	depth := regexp.MustCompile(`(?m)^kycd_review_queue_depth\{environment="live",organization="` + org + `"\} (\d+)$`)
	if got := depth.FindStringSubmatch(scrape(t, s.srv.URL)); got == nil || got[1] != "1" {
		t.Errorf("within 30 s the cached depth changed: %v", got)
	}
	s.clock.Advance(31 * time.Second)
	if got := depth.FindStringSubmatch(scrape(t, s.srv.URL)); got == nil || got[1] != "0" {
		t.Errorf("after 30 s the depth was not read again: %v", got)
	}
}

func scrape(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d %v", res.StatusCode, err)
	}
	return string(b)
}
