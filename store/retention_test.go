package store_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestFindAgedErasures: which applicants the daily run erases, by the
// organization's retention policy (defaults, then changed), on both engines.
func TestFindAgedErasures(t *testing.T) {
	s, clock := storetest.Open(t), &storetest.Clock{}
	s.Now = clock.Now
	org := storetest.MustOrg(t, s, "acme", nil)
	mk := func(env kyc.Environment, status kyc.KYCStatus, decision kyc.KYCDecision) string {
		var id string
		err := s.InTx(t.Context(), func(tx *store.Tx) error {
			n := "X"
			a, err := tx.CreateApplicant(org.ID, env, &kyc.ApplicantInput{FirstName: &n, LastName: &n})
			if err != nil {
				return err
			}
			id = a.ID
			if status == "" {
				return nil
			}
			now := tx.Now()
			r := &kyc.KYCRequest{OrganizationID: org.ID, Environment: env, ApplicantID: a.ID, Status: kyc.KYCLinkGenerated,
				Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: now}
			if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
				return err
			}
			r.Status, r.Decision = status, decision
			if decision == kyc.DecisionApproved {
				r.DecidedAt = &now
			}
			return tx.SaveKYCRequest(r)
		})
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	sandbox := mk(kyc.Sandbox, "", "")
	expired := mk(kyc.Live, kyc.KYCExpired, kyc.DecisionNone)
	open := mk(kyc.Live, kyc.KYCLinkGenerated, kyc.DecisionPending)
	decided := mk(kyc.Live, kyc.KYCApproved, kyc.DecisionApproved)
	aged := func(at time.Time) []string {
		t.Helper()
		got, err := s.FindAgedErasures(t.Context(), at, 100)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, g := range got {
			if g.OrganizationID != org.ID || g.Reason == "" {
				t.Errorf("aged %+v", g)
			}
			ids = append(ids, g.ApplicantID)
		}
		slices.Sort(ids)
		return ids
	}
	want := func(ids ...string) []string { slices.Sort(ids); return ids }
	now := clock.Now()
	if got := aged(now.AddDate(0, 0, 29)); len(got) != 0 {
		t.Errorf("after 29 days: %v", got)
	}
	if got := aged(now.AddDate(0, 0, 31)); !slices.Equal(got, want(sandbox)) {
		t.Errorf("after 31 days: %v, want the sandbox applicant", got)
	}
	if got := aged(now.AddDate(0, 0, 91)); !slices.Equal(got, want(sandbox, expired)) {
		t.Errorf("after 91 days: %v, want sandbox and expired", got)
	}
	if got := aged(now.AddDate(5, 0, 1)); !slices.Equal(got, want(sandbox, expired, decided)) || slices.Contains(got, open) {
		t.Errorf("after 5 years: %v, want all but the open request's", got)
	}
	// A longer sandbox period, a shorter decided one.
	sixty, two := 60, 2
	if err := s.InTx(t.Context(), func(tx *store.Tx) error {
		p, err := tx.SetRetention(org.ID, store.RetentionChange{SandboxDays: &sixty, DecidedYears: &two})
		if err == nil && (p.SandboxDays != 60 || p.DecidedYears != 2 || p.InactiveDays != 90) {
			t.Errorf("policy %+v", p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := aged(now.AddDate(0, 0, 31)); len(got) != 0 {
		t.Errorf("after 31 days with sandbox 60: %v", got)
	}
	if got := aged(now.AddDate(2, 0, 1)); !slices.Equal(got, want(sandbox, expired, decided)) {
		t.Errorf("after 2 years with decided 2: %v", got)
	}
	bad := -1
	if err := s.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.SetRetention(org.ID, store.RetentionChange{InactiveDays: &bad})
		return err
	}); kyc.AsError(err).Code != kyc.EValidation {
		t.Errorf("negative period: %v", err)
	}
	// Legal hold keeps one out.
	if err := s.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.SetLegalHold(org.ID, kyc.Sandbox, sandbox, true, "hold")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := aged(now.AddDate(2, 0, 1)); slices.Contains(got, sandbox) {
		t.Errorf("held applicant aged: %v", got)
	}
}

// TestRelationshipEndRetention: decided live data is kept DecidedYears
// after the later of the decision and the relationship end, both by the
// daily run's look-up and by an erasure on request (deferred to that date,
// and moved when the end date changes); an archived applicant's end date
// may still be set, an erased one's not.
func TestRelationshipEndRetention(t *testing.T) {
	s, clock := storetest.Open(t), &storetest.Clock{}
	s.Now = clock.Now
	org := storetest.MustOrg(t, s, "acme", nil)
	now := clock.Now()
	end := now.AddDate(1, 0, 0).Format(time.DateOnly) // the relationship ends a year after the decision
	var id string
	if err := s.InTx(t.Context(), func(tx *store.Tx) error {
		n := "X"
		a, err := tx.CreateApplicant(org.ID, kyc.Live, &kyc.ApplicantInput{FirstName: &n, LastName: &n, RelationshipEnd: &end})
		if err != nil {
			return err
		}
		id = a.ID
		r := &kyc.KYCRequest{OrganizationID: org.ID, Environment: kyc.Live, ApplicantID: a.ID, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: now}
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		r.Status, r.Decision, r.DecidedAt = kyc.KYCApproved, kyc.DecisionApproved, &now
		if err := tx.SaveKYCRequest(r); err != nil {
			return err
		}
		_, err = tx.SetApplicantArchived(org.ID, kyc.Live, a.ID, true)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	a, err := s.FindApplicant(t.Context(), org.ID, kyc.Live, id)
	if err != nil || a.RelationshipEnd == nil || *a.RelationshipEnd != end {
		t.Fatalf("relationship end not stored: %+v %v", a, err)
	}
	aged := func(at time.Time) bool {
		t.Helper()
		got, err := s.FindAgedErasures(t.Context(), at, 100)
		if err != nil {
			t.Fatal(err)
		}
		return len(got) == 1 && got[0].ApplicantID == id
	}
	if aged(now.AddDate(5, 0, 1)) {
		t.Error("erased 5 years after the decision although the relationship ended a year later")
	}
	if !aged(now.AddDate(6, 0, 1)) {
		t.Error("not erased 5 years after the relationship end")
	}
	// On request: deferred to five years after the end date.
	_, err = s.EraseApplicant(t.Context(), store.ErasureRequest{OrganizationID: org.ID, Environment: kyc.Live, ApplicantID: id, Rule: kyc.ErasureOnRequest})
	var deferred *kyc.ErasureDeferred
	if !errors.As(err, &deferred) {
		t.Fatalf("erasure on request: %v", err)
	}
	endT, _ := kyc.ParseDate(end)
	if wantAt := endT.AddDate(5, 0, 0); !deferred.NotBefore.Equal(wantAt) || !strings.Contains(deferred.Rule, "relationship end") {
		t.Errorf("deferred to %s (%s), want %s", deferred.NotBefore, deferred.Rule, wantAt)
	}
	// The archived applicant's end date moves (only that field), and the
	// scheduled erasure with it.
	later := now.AddDate(2, 0, 0).Format(time.DateOnly)
	if err := s.InTx(t.Context(), func(tx *store.Tx) error {
		a, err := tx.UpdateApplicant(org.ID, kyc.Live, id, &kyc.ApplicantInput{RelationshipEnd: &later})
		if err == nil && (a.ErasureScheduledAt == nil || !a.ErasureScheduledAt.Equal(now.AddDate(2, 0, 0).Truncate(24*time.Hour).AddDate(5, 0, 0))) {
			t.Errorf("scheduled erasure after the end moved: %v", a.ErasureScheduledAt)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	name := "Y"
	if err := s.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.UpdateApplicant(org.ID, kyc.Live, id, &kyc.ApplicantInput{FirstName: &name, RelationshipEnd: &later})
		return err
	}); kyc.AsError(err).Code != kyc.EUnprocessable {
		t.Errorf("changing an archived applicant's name: %v", err)
	}
}
