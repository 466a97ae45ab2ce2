package aml_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"kycd/aml"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

func strp(s string) *string { return &s }

// createFor screens a subject with a date of birth and country in org.
func (e *env) createFor(orgID, first, last string, dob, country *string, monitoring bool) *kyc.AMLCheck {
	e.t.Helper()
	sc, err := e.svc.Screen(e.t.Context(), orgID, kyc.Live, aml.Subject{FirstName: first, LastName: last, DOB: dob, Country: country})
	if err != nil {
		e.t.Fatal(err)
	}
	var c *kyc.AMLCheck
	err = e.st.InTx(e.t.Context(), func(tx *store.Tx) (err error) {
		c, err = e.svc.Create(tx, orgID, kyc.Live, sc, monitoring)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// events counts the deliveries of one event type for a check.
func (e *env) events(typ kyc.EventType, checkID string) int {
	e.t.Helper()
	ds, _, err := e.st.FindDeliveries(context.Background(), e.org.ID, kyc.Live, store.DeliveryFilter{EventType: string(typ), Page: 1, Size: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, d := range ds {
		full, err := e.st.FindDelivery(context.Background(), e.org.ID, kyc.Live, d.ID)
		if err != nil {
			e.t.Fatal(err)
		}
		var body struct {
			ResourceID string `json:"resourceId"`
		}
		if err := json.Unmarshal(full.Payload, &body); err != nil {
			e.t.Fatal(err)
		}
		if body.ResourceID == checkID {
			n++
		}
	}
	return n
}

func onlyMatch(t *testing.T, c *kyc.AMLCheck) *kyc.MatchRecord {
	t.Helper()
	_, m := kyc.FindMatch(c.Results, kyc.MatchID("in-house", "S-1"))
	if m == nil {
		t.Fatalf("no match for S-1 in %s: %+v", c.ID, c.Results)
	}
	return m
}

// TestFalsePositiveStaysDecided: a match decided false_positive on one
// check is suppressed on every later screening of the same subject — a
// new check (name typed with other accents, case and spaces), and the
// monitoring re-screen of a check created before the decision — with no
// match_found and no monitoring alert; it is not suppressed for a person
// of the same name with another date of birth or none (the attack: reuse
// someone's cleared name), nor in another organization, nor once the
// listed entity changed, nor after a reviewer lifted it. Every step is in
// the audit log.
func TestFalsePositiveStaysDecided(t *testing.T) {
	e := newEnv(t)
	const v1 = "name,reference,dob,country,reason\nIvan Sidorov,S-1,,,Listed\n"
	e.importList("in-house", screening.Sanctions, v1)
	e.importList("peps", screening.PEP, pepCSV)
	e.importList("media", screening.AdverseMedia, mediaCSV)
	if err := e.svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	dob, ru := strp("1980-02-03"), strp("RU")
	sibling := e.createFor(e.org.ID, "Ivan", "Sidorov", dob, ru, true) // monitored, screened before the decision
	first := e.createFor(e.org.ID, "Ivan", "Sidorov", dob, ru, false)
	if first.Status != kyc.AMLPotentialMatch || first.ReviewStatus != kyc.AMLReviewPending {
		t.Fatalf("first: %s %s", first.Status, first.ReviewStatus)
	}
	decided := e.decide(first, onlyMatch(t, first).ID, kyc.MatchFalsePositive)
	decision := onlyMatch(t, decided).Review

	again := e.createFor(e.org.ID, " ívan ", "SIDOROV", dob, strp("ru"), false)
	m := onlyMatch(t, again)
	if m.Suppressed == nil || m.Suppressed.DecisionID != decision.ID || m.Suppressed.CheckID != first.ID {
		t.Fatalf("same subject: match not suppressed by %s: %+v", decision.ID, m.Suppressed)
	}
	if again.Status != kyc.AMLPotentialMatch || again.ReviewStatus != kyc.AMLReviewResolved || again.ResolvedAt == nil {
		t.Fatalf("same subject: %s %s %v", again.Status, again.ReviewStatus, again.ResolvedAt)
	}
	if n := e.events(kyc.EventAMLMatchFound, again.ID); n != 0 {
		t.Fatalf("match_found fired %d times for a suppressed false positive", n)
	}
	// Stored with the screening: reading the check shows it.
	if m := onlyMatch(t, e.load(again.ID)); m.Suppressed == nil {
		t.Fatal("suppression not stored with the screening")
	}

	// The monitored sibling, screened before the decision, is suppressed
	// at its next re-screen, silently.
	e.clock.Advance(25 * time.Hour)
	if n := e.rescreenAll(); n != 1 {
		t.Fatalf("re-screened %d, want 1", n)
	}
	sib := e.load(sibling.ID)
	if onlyMatch(t, sib).Suppressed == nil || sib.ReviewStatus != kyc.AMLReviewResolved {
		t.Fatalf("monitored sibling: %+v %s", onlyMatch(t, sib).Suppressed, sib.ReviewStatus)
	}
	if a := e.alerts(); len(a) != 0 {
		t.Fatalf("alerts for a suppressed false positive: %v", a)
	}

	notSuppressed := func(name string, c *kyc.AMLCheck) {
		t.Helper()
		if m := onlyMatch(t, c); m.Suppressed != nil || c.ReviewStatus != kyc.AMLReviewPending {
			t.Fatalf("%s: suppressed %+v, review %s", name, m.Suppressed, c.ReviewStatus)
		}
	}
	other := e.createFor(e.org.ID, "Ivan", "Sidorov", strp("1991-07-08"), ru, false)
	notSuppressed("another date of birth", other)
	if e.events(kyc.EventAMLMatchFound, other.ID) != 1 {
		t.Fatal("another date of birth: no match_found")
	}
	notSuppressed("no date of birth", e.createFor(e.org.ID, "Ivan", "Sidorov", nil, ru, false))
	notSuppressed("another country", e.createFor(e.org.ID, "Ivan", "Sidorov", dob, strp("UA"), false))
	otherOrg := e.otherOrg("other", nil)
	if m := onlyMatch(t, e.createFor(otherOrg, "Ivan", "Sidorov", dob, ru, false)); m.Suppressed != nil {
		t.Fatal("suppressed in another organization")
	}

	// The list changes what it says about the entity: no longer suppressed.
	e.importList("in-house", screening.Sanctions, "name,reference,dob,country,reason\nIvan Sidorov,S-1,,,Listed again for fraud\n")
	if err := e.svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	notSuppressed("entity changed", e.createFor(e.org.ID, "Ivan", "Sidorov", dob, ru, false))
	// Back to what was decided on: suppressed again.
	e.importList("in-house", screening.Sanctions, v1)
	if err := e.svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	back := e.createFor(e.org.ID, "Ivan", "Sidorov", dob, ru, false)
	supID := onlyMatch(t, back).Suppressed
	if supID == nil {
		t.Fatal("entity as decided: not suppressed")
	}

	// Lifted by a reviewer: later screenings show the match again.
	actor := aml.Actor{Type: kyc.ActorUser, ID: "usr_lead"}
	err := e.st.InTx(t.Context(), func(tx *store.Tx) error {
		s, err := e.svc.LiftSuppression(tx, e.org.ID, kyc.Live, supID.ID, "customer's passport re-checked", actor)
		if err == nil && (s.LiftedAt == nil || *s.LiftedByID != "usr_lead") {
			t.Errorf("lifted: %+v", s)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = e.st.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := e.svc.LiftSuppression(tx, e.org.ID, kyc.Live, supID.ID, "again", actor)
		return err
	})
	if ke := kyc.AsError(err); ke == nil || ke.Code != kyc.EConflict {
		t.Fatalf("lifting twice: %v", err)
	}
	notSuppressed("after lifting", e.createFor(e.org.ID, "Ivan", "Sidorov", dob, ru, false))

	rows, err := e.st.FindAudit(t.Context(), supID.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Action != "aml.suppression.created" || rows[1].Action != "aml.suppression.lifted" {
		t.Fatalf("audit of the suppression: %+v", rows)
	}
}

// TestConfirmedLiftsSuppression: a reviewer who later confirms the match
// for the same subject ends the suppression; the next check is pending.
func TestConfirmedLiftsSuppression(t *testing.T) {
	e := newEnv(t)
	e.importList("in-house", screening.Sanctions, "name,reference\nIvan Sidorov,S-1\n")
	if err := e.svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	dob := strp("1980-02-03")
	a := e.createFor(e.org.ID, "Ivan", "Sidorov", dob, nil, false)
	e.decide(a, onlyMatch(t, a).ID, kyc.MatchFalsePositive)
	b := e.createFor(e.org.ID, "Ivan", "Sidorov", dob, nil, false)
	if onlyMatch(t, b).Suppressed == nil {
		t.Fatal("not suppressed")
	}
	b = e.decide(b, onlyMatch(t, b).ID, kyc.MatchConfirmed)
	if m := onlyMatch(t, b); m.Suppressed != nil || m.Review == nil || m.Review.Decision != kyc.MatchConfirmed {
		t.Fatalf("own decision does not come first: %+v %+v", m.Suppressed, m.Review)
	}
	c := e.createFor(e.org.ID, "Ivan", "Sidorov", dob, nil, false)
	if onlyMatch(t, c).Suppressed != nil || c.ReviewStatus != kyc.AMLReviewPending {
		t.Fatal("still suppressed after a confirmation")
	}
}
