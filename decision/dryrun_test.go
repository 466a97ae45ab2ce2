package decision_test

import (
	"time"

	"testing"

	"kycd/decision"
	"kycd/internal/reviewdata"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/store/storetest"
	"kycd/verification"
)

// TestDryRunPolicy: the dry run takes the organization's and the
// environment's decided requests only, latest first; a request the
// manual engine decided is listed as skipped, not compared; only
// outcomes that differ are counted, by move.
func TestDryRunPolicy(t *testing.T) {
	st := storetest.Open(t)
	clock := &storetest.Clock{}
	st.Now = clock.Now
	a, b := storetest.MustOrg(t, st, "acme", nil), storetest.MustOrg(t, st, "bravo", nil)
	_, engine, err := reviewdata.Engine(t.Context(), st, t.TempDir(), "test-sanctions", []reviewdata.Listed{
		{Reference: "TS-1", Name: "Viktor Petrenko", DOB: "1961-04-12", Country: "RU", Reason: "Test listing"}}, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	auto := verification.New(st, engine, "http://x/portal", nil)
	manual := verification.New(st, decision.Manual{}, "http://x/portal", nil)
	decide := func(svc *verification.Service, org string, env kyc.Environment, p reviewdata.Person) string {
		t.Helper()
		runner := jobs.New(jobs.Options{Store: st, Now: clock.Now})
		svc.RegisterJobs(runner)
		req, err := reviewdata.Submit(t.Context(), st, svc, org, env, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runner.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
		return req.ID
	}
	petrenko := reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T1"}
	schmidt := reviewdata.Person{FirstName: "Anna", LastName: "Schmidt", DOB: "1990-02-03", Country: "DE", DocNumber: "T2"}
	first := decide(auto, a.ID, kyc.Live, petrenko)
	decide(auto, a.ID, kyc.Sandbox, petrenko)
	decide(auto, b.ID, kyc.Live, petrenko)
	second := decide(auto, a.ID, kyc.Live, schmidt)
	third := decide(manual, a.ID, kyc.Live, schmidt)

	proposed := decision.DefaultPolicy()
	proposed.Version, proposed.Actions[decision.CodeSanctionsMatch] = "strict", decision.ActReject
	dr, err := decision.DryRunPolicy(t.Context(), st, a.ID, kyc.Live, decision.DefaultPolicy(), proposed)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range dr.Rows {
		ids = append(ids, r.Request.ID)
	}
	if len(ids) != 3 || ids[0] != third || ids[1] != second || ids[2] != first {
		t.Fatalf("rows %v, want %v", ids, []string{third, second, first})
	}
	if dr.Rows[0].Skipped == "" || dr.Rows[1].Changed || !dr.Rows[2].Changed || dr.Compared != 2 || dr.Changed != 1 {
		t.Errorf("rows: skipped %q, changed %v %v; compared %d changed %d", dr.Rows[0].Skipped, dr.Rows[1].Changed, dr.Rows[2].Changed, dr.Compared, dr.Changed)
	}
	if got := dr.MoveList(); len(got) != 1 || got[0] != "review → reject ×1" {
		t.Errorf("moves %v", got)
	}
	// The policy in force against itself changes nothing.
	same, err := decision.DryRunPolicy(t.Context(), st, a.ID, kyc.Live, decision.DefaultPolicy(), decision.DefaultPolicy())
	if err != nil || same.Changed != 0 || same.Compared != 2 {
		t.Errorf("same policy: %+v %v", same, err)
	}
}
