package aml_test

import (
	"testing"
	"time"

	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// TestMonitoringFollowsAMLKinds: a monitored check is re-screened over the
// kinds its organization screens now: a PEP list gaining the person is no
// alert for an organization that screens sanctions only, and becomes one
// once it adds pep.
func TestMonitoringFollowsAMLKinds(t *testing.T) {
	e := newEnv(t)
	e.importList("in-house", screening.Sanctions, "name,reference\nIvan Sidorov,S-1\n")
	if err := e.svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	set := func(kinds []string) {
		t.Helper()
		if err := e.st.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetAMLKinds(e.org.ID, kinds) }); err != nil {
			t.Fatal(err)
		}
	}
	set([]string{"sanctions"})
	c := e.create("Pepe", "Politico", true)
	if c.Status != kyc.AMLNoMatch || c.Results[1].Status != kyc.ListNotScreened || c.Results[2].Status != kyc.ListNotScreened {
		t.Fatalf("initial: %s %+v", c.Status, c.Results)
	}
	e.clock.Advance(time.Hour)
	e.importList("peps", screening.PEP, pepCSV)
	if n := e.rescreenAll(); n != 1 {
		t.Fatalf("re-screened %d", n)
	}
	if got := e.get(c.ID); got.Status != kyc.AMLNoMatch || got.Results[1].Status != kyc.ListNotScreened || len(e.alerts()) != 0 {
		t.Fatalf("PEP out of scope: %s %+v, %d alerts", got.Status, got.Results[1], len(e.alerts()))
	}
	set([]string{"sanctions", "pep"})
	e.clock.Advance(25 * time.Hour)
	if n := e.rescreenAll(); n != 1 {
		t.Fatalf("daily re-screen: %d", n)
	}
	if got := e.get(c.ID); got.Status != kyc.AMLPotentialMatch || got.Results[1].Status != kyc.ListHit || len(e.alerts()) != 1 {
		t.Fatalf("PEP in scope: %s %+v, %d alerts", got.Status, got.Results[1], len(e.alerts()))
	}
}
