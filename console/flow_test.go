package console_test

import (
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"kycd/aml"
	"kycd/decision"
	"kycd/internal/reviewdata"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/server"
	"kycd/store"
	"kycd/verification"
)

// reviewStack adds the decision engine (every signal but the image ones,
// with the real screener and a small sanctions list) and the job runner
// to env, so that submitted requests are processed for real.
type reviewStack struct {
	*env
	aml    *aml.Service
	runner *jobs.Runner
}

// newReviewStack builds the stack; images runs the image signals too
// (quality, faces, face match and the MRZ read from document photos),
// slower but what serve runs.
func newReviewStack(t *testing.T, images ...bool) *reviewStack {
	t.Helper()
	s := &reviewStack{}
	s.env = newEnv(t, func(e *env, o *server.Options) {
		var engine *decision.Auto
		var err error
		if s.aml, engine, err = reviewdata.Engine(t.Context(), e.st, t.TempDir(), "test-sanctions", watchList, e.clock.Now); err != nil {
			t.Fatal(err)
		}
		if len(images) > 0 && images[0] {
			engine.ImageSignals = decision.ImageSignals
		}
		e.kyc = verification.New(e.st, engine, e.srv.URL+"/portal", nil)
		o.KYC, o.AML = e.kyc, s.aml
	})
	e := s.env
	s.runner = jobs.New(jobs.Options{Store: e.st, Now: e.clock.Now})
	e.kyc.RegisterJobs(s.runner)
	s.aml.RegisterJobs(s.runner)
	return s
}

var watchList = []reviewdata.Listed{
	{Reference: "TS-1", Name: "Viktor Petrenko", DOB: "1961-04-12", Country: "RU", Reason: "Test listing"},
	{Reference: "TS-2", Name: "Maria Kowalczyk", Aliases: "Maria Kowalczykowa", DOB: "1975", Country: "PL", Reason: "Test listing"},
	{Reference: "TS-4", Name: "Erika Mustermann", DOB: "1964-01-01", Country: "AT", Reason: "Test listing"},
}

// awaiting submits p in env and runs the processing job.
func (s *reviewStack) awaiting(e kyc.Environment, p reviewdata.Person) *kyc.KYCRequest {
	s.t.Helper()
	req, err := reviewdata.Submit(s.t.Context(), s.st, s.kyc, s.org.ID, e, p)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.runner.RunOnce(s.t.Context()); err != nil {
		s.t.Fatal(err)
	}
	got, err := s.st.FindKYCRequest(s.t.Context(), s.org.ID, e, req.ID)
	if err != nil {
		s.t.Fatal(err)
	}
	if got.Status != kyc.KYCAwaitingReview {
		s.t.Fatalf("request of %s %s is %s (%s), want awaiting_review", p.FirstName, p.LastName, got.Status, deref(got.DecisionReason))
	}
	return got
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestFourEyesByUsers: with four-eyes on (live), a reviewer claims the
// case from the queue, decides first; the same user cannot confirm; a
// second reviewer sees who decided first and confirms; the request is
// approved, and the timeline, the audit log and the report name both.
// A reviewer cannot decide a case someone else has claimed.
func TestFourEyesByUsers(t *testing.T) {
	s := newReviewStack(t)
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetFourEyes(s.org.ID, true) }); err != nil {
		t.Fatal(err)
	}
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	jane, ben := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer), s.mustUser("ben@acme.example", "Ben Reviewer", kyc.RoleReviewer)
	bj, bb := s.browser(), s.browser()
	bj.login(jane)
	bb.login(ben)
	casePath := "/console/live/cases/" + req.ID

	q := bj.get("/console/live/queue")
	// The reason in words, its code on hover.
	if !strings.Contains(q.text(), "Viktor Petrenko") || !strings.Contains(q.text(), "Possible sanctions match") || !strings.Contains(q.body, `title="SANCTIONS_MATCH"`) {
		t.Fatalf("queue: %s", q.text())
	}
	for filter, want := range map[string]bool{"reason=SANCTIONS_MATCH": true, "reason=FACE_MISMATCH": false, "claim=unclaimed": true,
		"claim=mine": false, "foureyes=1": false} {
		if got := strings.Contains(bj.get("/console/live/queue?"+filter).text(), "Viktor Petrenko"); got != want {
			t.Errorf("queue?%s lists the case: %v, want %v", filter, got, want)
		}
	}
	if r := bj.post(casePath + "/claim"); r.status != http.StatusSeeOther {
		t.Fatalf("claim: %d %s", r.status, r.text())
	}
	// Ben cannot claim or decide while Jane holds it.
	if r := bb.post(casePath + "/claim"); r.status != http.StatusConflict || !strings.Contains(r.text(), "Jane Reviewer is working on this case") {
		t.Fatalf("second claim: %d %s", r.status, r.text())
	}
	if r := bb.post(casePath+"/decision", "decision", "approve", "note", "Looks fine."); r.status != http.StatusConflict {
		t.Fatalf("decision on a case claimed by another: %d", r.status)
	}
	if r := bj.post(casePath+"/decision", "decision", "approve", "note", ""); r.status != http.StatusBadRequest || !strings.Contains(r.text(), "note: is required") {
		t.Fatalf("decision without a note: %d %s", r.status, r.text())
	}
	r := bj.post(casePath+"/decision", "decision", "approve", "reasonCode", "SCREENING_FALSE_POSITIVE", "note", "Different person: the listed one is Russian.")
	if r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Location"), "notice=first") {
		t.Fatalf("first decision: %d %v", r.status, r.header)
	}
	// The claim ended with the decision; Jane cannot confirm her own.
	if p := bj.get(casePath); !strings.Contains(p.text(), "You made the first decision") {
		t.Errorf("case for the first reviewer: %s", p.text())
	}
	if r := bj.post(casePath+"/decision", "decision", "approve", "note", "Again."); r.status != http.StatusConflict {
		t.Errorf("same reviewer twice: %d", r.status)
	}
	p := bb.get(casePath)
	if !strings.Contains(p.text(), "First decision: approve by Jane Reviewer") {
		t.Errorf("second reviewer does not see the first decision: %s", p.text())
	}
	if r := bb.post(casePath+"/decision", "decision", "reject", "note", "No."); r.status != http.StatusConflict {
		t.Errorf("a different decision: %d", r.status)
	}
	if r := bb.post(casePath+"/decision", "decision", "approve", "note", "Agreed: date of birth and nationality differ."); r.status != http.StatusSeeOther ||
		!strings.Contains(r.header.Get("Location"), "notice=decided") {
		t.Fatalf("confirmation: %d %v %s", r.status, r.header, r.text())
	}
	got, _ := s.st.FindKYCRequest(t.Context(), s.org.ID, kyc.Live, req.ID)
	if got.Status != kyc.KYCApproved || got.ReviewReasonCode == nil || *got.ReviewReasonCode != "SCREENING_FALSE_POSITIVE" {
		t.Fatalf("after four-eyes: %s %v", got.Status, got.ReviewReasonCode)
	}
	tl := bb.get(casePath).text()
	if !strings.Contains(tl, "reviewer Jane Reviewer") || !strings.Contains(tl, "reviewer Ben Reviewer") {
		t.Errorf("timeline does not name both reviewers: %s", tl)
	}
	var audit bytes.Buffer
	if err := s.st.ExportAudit(t.Context(), time.Time{}, &audit); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"action":"kyc.claimed","actorType":"user","actorId":"` + jane.User.ID,
		`"action":"svc.kyc.review.first_decision","actorType":"reviewer","actorId":"` + jane.User.ID,
		`"action":"svc.kyc.request.approved","actorType":"reviewer","actorId":"` + ben.User.ID,
		`"action":"console.login","actorType":"user","actorId":"` + ben.User.ID} {
		if !strings.Contains(audit.String(), want) {
			t.Errorf("audit log lacks %s", want)
		}
	}
	if p := bb.get(casePath + "/report.json"); p.status != 200 || !strings.Contains(p.body, jane.User.ID) || !strings.Contains(p.body, ben.User.ID) {
		t.Errorf("report: %d", p.status)
	}
}

// TestEnvironmentsAndViewer: a live case is never shown under the sandbox
// banner (nor the reverse); a viewer sees names and outcomes, not dates of
// birth, images, documents or reports; images are sent through the
// session and never cached.
func TestEnvironmentsAndViewer(t *testing.T) {
	s := newReviewStack(t)
	live := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Maria", LastName: "Kowalczyk", DOB: "1981-02-03", Country: "PL", DocNumber: "AB1234567"})
	sb := s.awaiting(kyc.Sandbox, reviewdata.Person{FirstName: "Sam", LastName: "Review", DOB: "1990-01-01", Country: "GB", DocNumber: "S1"})
	analyst, viewer := s.mustUser("ann@acme.example", "Ann Analyst", kyc.RoleAnalyst), s.mustUser("vic@acme.example", "Vic Viewer", kyc.RoleViewer)
	ba, bv := s.browser(), s.browser()
	ba.login(analyst)
	bv.login(viewer)

	if p := ba.get("/console/sandbox/cases/" + live.ID); p.status != http.StatusForbidden || strings.Contains(p.text(), "Kowalczyk") ||
		!strings.Contains(p.text(), "in the other environment") || !strings.Contains(p.text(), "Sandbox: test data only") {
		t.Errorf("live case under sandbox: %d %s", p.status, p.text())
	}
	if p := ba.get("/console/live/cases/" + sb.ID); p.status != http.StatusForbidden || strings.Contains(p.text(), "Sam Review") {
		t.Errorf("sandbox case under live: %d %s", p.status, p.text())
	}
	if p := ba.get("/console/live/queue"); strings.Contains(p.text(), "Sam Review") || !strings.Contains(p.text(), "Maria Kowalczyk") ||
		strings.Contains(p.text(), "Sandbox: test data only") {
		t.Errorf("live queue: %s", p.text())
	}
	if p := ba.get("/console/sandbox/queue"); !strings.Contains(p.text(), "Sam Review") || strings.Contains(p.text(), "Kowalczyk") ||
		!strings.Contains(p.text(), "Sandbox: test data only") {
		t.Errorf("sandbox queue: %s", p.text())
	}

	full := ba.get("/console/live/cases/" + live.ID)
	for _, want := range []string{"1981-02-03", "Document front", "AB1234567", "Signals", "Record decision"} {
		if want == "Record decision" {
			if strings.Contains(full.text(), want) {
				t.Errorf("analyst sees the decision form")
			}
			continue
		}
		if !strings.Contains(full.text(), want) {
			t.Errorf("analyst's case view lacks %q", want)
		}
	}
	caps, _ := s.st.FindCaptures(t.Context(), live.ID, "")
	img := ba.get("/console/live/cases/" + live.ID + "/images/" + caps[0].ID)
	if img.status != 200 || img.header.Get("Content-Type") != "image/jpeg" || !strings.Contains(img.header.Get("Cache-Control"), "no-store") {
		t.Errorf("image: %d %v", img.status, img.header)
	}
	if p := ba.get("/console/live/cases/" + sb.ID + "/images/" + caps[0].ID); p.status == 200 {
		t.Errorf("an image through another request's path: %d", p.status)
	}

	v := bv.get("/console/live/cases/" + live.ID)
	if v.status != 200 || !strings.Contains(v.text(), "Maria Kowalczyk") {
		t.Fatalf("viewer: %d", v.status)
	}
	for _, hidden := range []string{"1981-02-03", "AB1234567", "/images/", "report.pdf", "Test listing"} {
		if strings.Contains(v.body, hidden) {
			t.Errorf("viewer sees %q", hidden)
		}
	}
	if p := bv.get("/console/live/cases/" + live.ID + "/images/" + caps[0].ID); p.status != http.StatusForbidden {
		t.Errorf("viewer image: %d", p.status)
	}
}

// TestSignInPages: the cookie is HttpOnly, SameSite=Strict, rotated at
// sign-in; a cross-site form post is refused; a disabled user's session
// ends at once; sign-out ends the session.
func TestSignInPages(t *testing.T) {
	s := newReviewStack(t)
	admin := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	rev := s.mustUser("rob@acme.example", "Rob Reviewer", kyc.RoleReviewer)
	b := s.browser()
	if p := b.get("/console/live/queue"); p.status != http.StatusSeeOther || p.header.Get("Location") != "/console/login?next=%2Fconsole%2Flive%2Fqueue" {
		t.Fatalf("anonymous: %d %v", p.status, p.header)
	}
	if p := b.post("/console/login", "email", admin.User.Email, "password", "wrong password 123"); p.status != http.StatusUnauthorized ||
		!strings.Contains(p.text(), "The e-mail address or the password is not right") {
		t.Fatalf("wrong password: %d %s", p.status, p.text())
	}
	p := b.post("/console/login", "email", admin.User.Email, "password", admin.Password, "next", "/console/live/alerts")
	ck := p.header.Get("Set-Cookie")
	if p.status != http.StatusSeeOther || p.header.Get("Location") != "/console/live/alerts" ||
		!strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Strict") || !strings.Contains(ck, "Path=/") {
		t.Fatalf("login: %d %v", p.status, p.header)
	}
	if p := b.post("/console/login", "email", admin.User.Email, "password", admin.Password, "next", "https://evil.example/"); p.header.Get("Location") != "/console/" {
		t.Errorf("open redirect after login: %v", p.header.Get("Location"))
	}
	if p := b.do("POST", "/console/users", url.Values{"email": {"x@evil.example"}, "name": {"X"}, "role": {"admin"}},
		"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); p.status != http.StatusForbidden {
		t.Errorf("cross-site form: %d", p.status)
	}
	// An invitation through the console shows the link once.
	inv := b.post("/console/users", "email", "new@acme.example", "name", "New Person", "role", "analyst")
	if inv.status != 200 || !strings.Contains(inv.text(), "/console/set-password?token=") {
		t.Fatalf("invite: %d %s", inv.status, inv.text())
	}
	br := s.browser()
	br.login(rev)
	if p := br.get("/console/live/queue"); p.status != 200 {
		t.Fatalf("reviewer: %d", p.status)
	}
	if p := b.post("/console/users/"+rev.User.ID, "disabled", "true"); p.status != http.StatusSeeOther {
		t.Fatalf("disable: %d %s", p.status, p.text())
	}
	if p := br.get("/console/live/queue"); p.status != http.StatusSeeOther {
		t.Errorf("disabled user's session: %d, want a redirect to sign-in", p.status)
	}
	if p := b.post("/console/logout"); p.status != http.StatusSeeOther {
		t.Fatalf("logout: %d", p.status)
	}
	if p := b.get("/console/live/queue"); p.status != http.StatusSeeOther {
		t.Errorf("after logout: %d", p.status)
	}
}

// TestAlertDecisions: a reviewer decides two matches of a check in the
// console; it is resolved, and the API shows the users' decisions.
func TestAlertDecisions(t *testing.T) {
	s := newReviewStack(t)
	c := s.api(s.org.SandboxKey, "POST", "/v1/aml-checks", map[string]any{"firstName": "Sandbox", "lastName": "Everything"}, http.StatusCreated)
	id := c["id"].(string)
	rev := s.mustUser("rob@acme.example", "Rob Reviewer", kyc.RoleReviewer)
	b := s.browser()
	b.login(rev)
	if p := b.get("/console/sandbox/alerts"); !strings.Contains(p.text(), "Sandbox Everything") {
		t.Fatalf("alerts: %s", p.text())
	}
	var ids []string
	for _, r := range c["results"].([]any) {
		for _, m := range r.(map[string]any)["matches"].([]any) {
			ids = append(ids, m.(map[string]any)["id"].(string))
		}
	}
	for i, m := range ids {
		d := "false_positive"
		if i == 1 {
			d = "confirmed"
		}
		if p := b.post("/console/sandbox/alerts/"+id+"/matches/"+m, "decision", d, "note", "Checked by Rob."); p.status != http.StatusSeeOther {
			t.Fatalf("decide %s: %d %s", m, p.status, p.text())
		}
	}
	got := s.api(s.org.SandboxKey, "GET", "/v1/aml-checks/"+id, nil, 200)
	if got["reviewStatus"] != "resolved" {
		t.Errorf("reviewStatus %v", got["reviewStatus"])
	}
	rv := got["results"].([]any)[0].(map[string]any)["matches"].([]any)[0].(map[string]any)["review"].(map[string]any)
	if rv["actorType"] != "user" || rv["actorId"] != rev.User.ID {
		t.Errorf("review by %v", rv)
	}
	if p := b.get("/console/sandbox/alerts/" + id); !strings.Contains(p.text(), "by Rob Reviewer") || !strings.Contains(p.text(), "resolved") {
		t.Errorf("alert page: %s", p.text())
	}
}
