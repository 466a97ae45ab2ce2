package console_test

import (
	"net/http"
	"strings"
	"testing"

	"kycd/aml"
	"kycd/decision"
	"kycd/internal/reviewdata"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/screening"
	"kycd/server"
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

func newReviewStack(t *testing.T) *reviewStack {
	t.Helper()
	s := &reviewStack{}
	s.env = newEnv(t, func(e *env, o *server.Options) {
		sc, err := screening.NewScreener()
		if err != nil {
			t.Fatal(err)
		}
		s.aml = aml.New(e.st, sc, nil)
		if err := reviewdata.ImportList(t.Context(), e.st, t.TempDir(), "test-sanctions", watchList); err != nil {
			t.Fatal(err)
		}
		if err := s.aml.Refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
		engine := &decision.Auto{Store: e.st, Screen: s.aml.ScreenPerson, Policy: decision.StorePolicy(e.st), Now: e.clock.Now}
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

func TestSmoke(t *testing.T) {
	s := newReviewStack(t)
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Erika", LastName: "Mustermann", DOB: "1984-08-12", Country: "DE", DocNumber: "L01X00T47", DocGiven: "Erica"})
	admin := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := s.browser()
	b.login(admin)
	p := b.get("/console/live/queue")
	if p.status != http.StatusOK || !strings.Contains(p.text(), "Erika Mustermann") {
		t.Fatalf("queue: %d %s", p.status, p.text())
	}
	p = b.get("/console/live/cases/" + req.ID)
	if p.status != http.StatusOK {
		t.Fatalf("case: %d %s", p.status, p.body)
	}
	t.Log(p.text())
}
