package aml_test

import (
	"testing"
	"time"

	"kycd/aml"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

func (e *env) decide(c *kyc.AMLCheck, matchID string, d kyc.MatchDecision) *kyc.AMLCheck {
	e.t.Helper()
	var out *kyc.AMLCheck
	err := e.st.InTx(e.t.Context(), func(tx *store.Tx) (err error) {
		out, err = e.svc.DecideMatch(tx, e.org.ID, kyc.Live, c.ID, matchID, d, "checked", aml.Actor{Type: kyc.ActorUser, ID: "usr_test"})
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

func (e *env) load(id string) *kyc.AMLCheck {
	e.t.Helper()
	c, err := e.svc.Load(e.t.Context(), e.org.ID, kyc.Live, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// TestMonitoringFalsePositive: a match decided false_positive raises no
// new alert on later re-screens — not daily, not after a list import that
// leaves the entity as it was, not even when the match drops out of a
// screening and comes back — until a list version changes the entity;
// then one alert says what changed, the decision stops applying (the
// check is pending again), and the next re-screen does not alert again.
// On the old code the disappear-and-return case and the changed entity
// case behave the other way round (a re-alert, then none).
func TestMonitoringFalsePositive(t *testing.T) {
	e := newEnv(t)
	const v1 = "name,reference,dob,country,reason\nIvan Sidorov,S-1,1961,RU,Listed\n"
	e.importList("in-house", screening.Sanctions, v1)
	e.importList("peps", screening.PEP, pepCSV)
	e.importList("media", screening.AdverseMedia, mediaCSV)
	if err := e.svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	c := e.create("Ivan", "Sidorov", true)
	if c.Status != kyc.AMLPotentialMatch || c.ReviewStatus != kyc.AMLReviewPending {
		t.Fatalf("initial: %s %s", c.Status, c.ReviewStatus)
	}
	_, m := kyc.FindMatch(c.Results, kyc.MatchID("in-house", "S-1"))
	if m == nil {
		t.Fatalf("no match for S-1: %+v", c.Results)
	}
	c = e.decide(c, m.ID, kyc.MatchFalsePositive)
	if c.ReviewStatus != kyc.AMLReviewResolved || c.ResolvedAt == nil {
		t.Fatalf("after the decision: %s %v", c.ReviewStatus, c.ResolvedAt)
	}

	step := func(name string, csv string) {
		t.Helper()
		e.clock.Advance(25 * time.Hour)
		if csv != "" {
			e.importList("in-house", screening.Sanctions, csv)
		}
		if n := e.rescreenAll(); n != 1 {
			t.Fatalf("%s: re-screened %d checks, want 1", name, n)
		}
	}
	step("daily", "")
	step("same entity, new version", v1+"Somebody Else,S-9,1950,FR,Other\n")
	if a := e.alerts(); len(a) != 0 {
		t.Fatalf("alerts for a false positive whose entity did not change: %v", a)
	}
	// The entity leaves the list: the status changes (spec §3.2), which
	// alerts as always.
	step("entity gone", "name,reference\nSomebody Else,S-9\n")
	if a := e.alerts(); len(a) != 1 || a[0]["status"] != "no_match" {
		t.Fatalf("alerts after the entity left the list: %v", a)
	}
	step("entity back, unchanged", v1)
	if a := e.alerts(); len(a) != 1 {
		t.Fatalf("the false positive came back unchanged and alerted: %v", a[1:])
	}
	if got := e.load(c.ID); got.ReviewStatus != kyc.AMLReviewResolved {
		t.Fatalf("review status after it came back: %s", got.ReviewStatus)
	}

	step("entity changed", "name,reference,dob,country,reason\nIvan Sidorov,S-1,1961;1984-03-02,RU;BY,Listed again\n")
	alerts := e.alerts()
	if len(alerts) != 2 {
		t.Fatalf("alerts after the entity changed: %d, want 2: %v", len(alerts), alerts)
	}
	var ch []any
	for _, a := range alerts {
		if l, _ := a["changedEntities"].([]any); len(l) > 0 {
			ch = l
		}
	}
	if len(ch) != 1 {
		t.Fatalf("no alert names the changed entity: %v", alerts)
	}
	change := ch[0].(map[string]any)
	if change["key"] != "in-house/S-1" || change["previousDecision"] != "false_positive" || len(change["changes"].([]any)) != 3 {
		t.Errorf("change: %v (want dates of birth, countries and reason)", change)
	}
	got := e.load(c.ID)
	if got.ReviewStatus != kyc.AMLReviewPending || got.ResolvedAt != nil {
		t.Errorf("after the change: review %s resolvedAt %v, want pending again", got.ReviewStatus, got.ResolvedAt)
	}
	_, m = kyc.FindMatch(got.Results, m.ID)
	if m.Review == nil || m.Review.Current || len(m.Review.Changes) != 3 {
		t.Errorf("the old decision: %+v", m.Review)
	}
	last := got.History[len(got.History)-1]
	if !last.Changed || len(last.ChangedEntities) != 1 {
		t.Errorf("history: %+v", last)
	}

	step("still changed, nobody decided yet", "")
	if n := len(e.alerts()); n != 2 {
		t.Errorf("alerts on the next re-screen: %d, want still 2", n)
	}
	e.decide(got, m.ID, kyc.MatchFalsePositive)
	if got := e.load(c.ID); got.ReviewStatus != kyc.AMLReviewResolved {
		t.Errorf("decided again: %s", got.ReviewStatus)
	}
}
