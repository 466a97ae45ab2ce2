package cmd

import (
	"errors"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestRetentionRun: the daily run erases sandbox data past its period
// (rule retention_period) and the applicants whose scheduled erasure is due
// (rule scheduled_request), leaves those not yet due and those under legal
// hold, and a second run finds nothing left.
func TestRetentionRun(t *testing.T) {
	st, clock := storetest.Open(t), &storetest.Clock{}
	st.Now = clock.Now
	org := storetest.MustOrg(t, st, "r", nil)
	decided := func(name string) string {
		var id string
		err := st.InTx(t.Context(), func(tx *store.Tx) error {
			a, err := tx.CreateApplicant(org.ID, kyc.Live, &kyc.ApplicantInput{FirstName: &name, LastName: &name})
			if err != nil {
				return err
			}
			now := tx.Now()
			r := &kyc.KYCRequest{OrganizationID: org.ID, Environment: kyc.Live, ApplicantID: a.ID, Status: kyc.KYCLinkGenerated,
				Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: now}
			if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
				return err
			}
			r.Status, r.Decision, r.DecidedAt = kyc.KYCApproved, kyc.DecisionApproved, &now
			id = a.ID
			return tx.SaveKYCRequest(r)
		})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	ask := func(id string) {
		_, err := st.EraseApplicant(t.Context(), store.ErasureRequest{OrganizationID: org.ID, Environment: kyc.Live,
			ApplicantID: id, Rule: kyc.ErasureOnRequest})
		var d *kyc.ErasureDeferred
		if !errors.As(err, &d) {
			t.Fatalf("erase %s: %v, want deferred", id, err)
		}
	}
	first, held := decided("First"), decided("Held")
	var sandbox string
	if err := st.InTx(t.Context(), func(tx *store.Tx) error {
		n := "Sandy"
		a, err := tx.CreateApplicant(org.ID, kyc.Sandbox, &kyc.ApplicantInput{FirstName: &n, LastName: &n})
		sandbox = a.ID
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ask(first)
	ask(held)
	clock.Advance(400 * 24 * time.Hour)
	late := decided("Late") // decided a year later: due a year later
	ask(late)
	if err := st.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.SetLegalHold(org.ID, kyc.Live, held, true, "regulator inquiry")
		return err
	}); err != nil {
		t.Fatal(err)
	}

	// Only the sandbox applicant's period (30 days) has ended.
	if n, err := runRetention(t.Context(), st); err != nil || n != 1 {
		t.Fatalf("run before any scheduled erasure is due: %d, %v", n, err)
	}
	if rec, err := st.FindErasure(t.Context(), org.ID, kyc.Sandbox, sandbox); err != nil || rec.Rule != kyc.ErasureRetention ||
		rec.Reason == nil || *rec.Reason != "sandbox data, no activity for 30 days" {
		t.Errorf("sandbox receipt: %v %+v", err, rec)
	}
	clock.Advance(time.Duration(kyc.RetainDecidedYears)*365*24*time.Hour - 300*24*time.Hour)
	if n, err := runRetention(t.Context(), st); err != nil || n != 1 {
		t.Fatalf("run when the first is due: %d, %v", n, err)
	}
	rec, err := st.FindErasure(t.Context(), org.ID, kyc.Live, first)
	if err != nil || rec.Rule != kyc.ErasureScheduled || rec.ActorType != "system" {
		t.Errorf("receipt: %v %+v", err, rec)
	}
	for _, id := range []string{held, late} {
		if a, err := st.FindApplicant(t.Context(), org.ID, kyc.Live, id); err != nil || a.ErasedAt != nil {
			t.Errorf("%s erased too early or under hold: %v", id, err)
		}
	}
	if n, err := runRetention(t.Context(), st); err != nil || n != 0 {
		t.Errorf("second run: %d, %v", n, err)
	}
}

// TestRetentionRunAML: the daily run erases a live AML check not monitored
// five years (the default) after its last screening, keeping its tombstone,
// and erases the old history of a monitored one while keeping the check.
func TestRetentionRunAML(t *testing.T) {
	st, clock := storetest.Open(t), &storetest.Clock{}
	st.Now = clock.Now
	org := storetest.MustOrg(t, st, "r", nil)
	mk := func(monitoring bool) *kyc.AMLCheck {
		c := &kyc.AMLCheck{OrganizationID: org.ID, Environment: kyc.Live, FirstName: "Ada", LastName: "Lovelace",
			MonitoringEnabled: monitoring, Status: kyc.AMLNoMatch, Threshold: 0.82, Results: []kyc.ListResult{}}
		if err := st.InTx(t.Context(), func(tx *store.Tx) error {
			return tx.CreateAMLCheck(c, &kyc.Screening{Trigger: kyc.TriggerInitial, Status: kyc.AMLNoMatch, ListVersions: []string{"x@1"}})
		}); err != nil {
			t.Fatal(err)
		}
		return c
	}
	once, monitored := mk(false), mk(true)
	clock.Advance(time.Duration(kyc.RetainAMLYears)*366*24*time.Hour + 24*time.Hour)
	if n, err := runRetention(t.Context(), st); err != nil || n != 1 {
		t.Fatalf("run: %d, %v", n, err)
	}
	c, err := st.FindAMLCheck(t.Context(), org.ID, kyc.Live, once.ID)
	if err != nil || c.ErasedAt == nil || c.FirstName != "" || c.Status != kyc.AMLNoMatch {
		t.Errorf("unmonitored check: %+v %v", c, err)
	}
	m, err := st.FindAMLCheck(t.Context(), org.ID, kyc.Live, monitored.ID)
	if err != nil || m.ErasedAt != nil || m.FirstName != "Ada" {
		t.Errorf("monitored check: %+v %v", m, err)
	}
	h, err := st.FindScreenings(t.Context(), monitored.ID)
	if err != nil || len(h) != 1 || h[0].ErasedAt == nil {
		t.Errorf("monitored check's old history: %+v %v", h, err)
	}
	if n, err := runRetention(t.Context(), st); err != nil || n != 0 {
		t.Errorf("second run: %d, %v", n, err)
	}
}
