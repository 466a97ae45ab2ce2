package store_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestAMLRetention: the daily run's AML part. A live check not monitored is
// erased AMLYears after its last screening (default 5, then a changed
// policy), a monitored one is kept but its old history loses its matches,
// a sandbox check goes after SandboxDays; the erased check stays as a
// tombstone (ids, dates, status, counts, the hash of the subject) and is
// never screened again. Both engines (KYCD_TEST_ENGINE=postgres).
func TestAMLRetention(t *testing.T) {
	s, clock := storetest.Open(t), &storetest.Clock{}
	s.Now = clock.Now
	org := storetest.MustOrg(t, s, "acme", nil)
	other := storetest.MustOrg(t, s, "other", nil)
	dob := "1961-04-12"
	mkReview := func(orgID string, env kyc.Environment, monitoring bool, review kyc.AMLReviewStatus) *kyc.AMLCheck {
		t.Helper()
		risk := kyc.RiskLevel("high")
		c := &kyc.AMLCheck{OrganizationID: orgID, Environment: env, FirstName: "Viktor", LastName: "Petrenko", DOB: &dob,
			MonitoringEnabled: monitoring, Status: kyc.AMLPotentialMatch, RiskLevel: &risk, MatchCount: 1, Threshold: 0.82, ReviewStatus: review,
			Results: []kyc.ListResult{{CheckType: "sanctions", Provider: "test", Status: kyc.ListStatus("potential_match"), RiskLevel: &risk, MatchCount: 1,
				Matches: []kyc.MatchRecord{{EntityID: "TS-1", Source: "test", MatchedName: "Viktor Petrenko", Score: 0.97}}}}}
		sc := &kyc.Screening{Trigger: kyc.TriggerInitial, Status: c.Status, RiskLevel: &risk, MatchCount: 1,
			NewMatches: []string{"test/TS-1"}, Changed: true, ListVersions: []string{"test@1"}}
		if err := s.InTx(t.Context(), func(tx *store.Tx) error { return tx.CreateAMLCheck(c, sc) }); err != nil {
			t.Fatal(err)
		}
		return c
	}
	// Decided checks: their matches were reviewed.
	mk := func(orgID string, env kyc.Environment, monitoring bool) *kyc.AMLCheck {
		return mkReview(orgID, env, monitoring, kyc.AMLReviewResolved)
	}
	live := mk(org.ID, kyc.Live, false)
	monitored := mk(org.ID, kyc.Live, true)
	sandbox := mkReview(org.ID, kyc.Sandbox, false, kyc.AMLReviewPending)
	otherLive := mk(other.ID, kyc.Live, false)
	// A live match nobody reviewed is an open matter: never aged.
	unreviewed := mkReview(org.ID, kyc.Live, false, kyc.AMLReviewPending)

	aged := func(at time.Time) []string {
		t.Helper()
		got, err := s.FindAgedAMLChecks(t.Context(), at, 100)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, g := range got {
			if g.Reason == "" {
				t.Errorf("aged %+v without a reason", g)
			}
			ids = append(ids, g.CheckID)
		}
		slices.Sort(ids)
		return ids
	}
	want := func(ids ...string) []string { slices.Sort(ids); return ids }
	now := clock.Now()
	if got := aged(now.AddDate(0, 0, 29)); len(got) != 0 {
		t.Errorf("after 29 days: %v", got)
	}
	if got := aged(now.AddDate(0, 0, 31)); !slices.Equal(got, want(sandbox.ID)) {
		t.Errorf("after 31 days: %v, want the sandbox check", got)
	}
	if got := aged(now.AddDate(4, 11, 0)); !slices.Equal(got, want(sandbox.ID)) {
		t.Errorf("before 5 years: %v", got)
	}
	if got := aged(now.AddDate(5, 0, 1)); !slices.Equal(got, want(live.ID, sandbox.ID, otherLive.ID)) {
		t.Errorf("after 5 years: %v, want all but the monitored and the unreviewed checks", got)
	}
	// A shorter period for one organization only.
	two := 2
	if err := s.InTx(t.Context(), func(tx *store.Tx) error {
		p, err := tx.SetRetention(org.ID, store.RetentionChange{AMLYears: &two})
		if err == nil && (p.AMLYears != 2 || p.DecidedYears != 5) {
			t.Errorf("policy %+v", p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := aged(now.AddDate(2, 0, 1)); !slices.Equal(got, want(live.ID, sandbox.ID)) {
		t.Errorf("after 2 years with AML 2: %v, want acme's unmonitored checks only", got)
	}
	for _, bad := range []int{-1, 51} {
		if err := s.InTx(t.Context(), func(tx *store.Tx) error {
			_, err := tx.SetRetention(org.ID, store.RetentionChange{AMLYears: &bad})
			return err
		}); kyc.AsError(err).Code != kyc.EValidation {
			t.Errorf("AML years %d: %v", bad, err)
		}
	}

	// AML cases with a comment thread: the erased check's comments go
	// with it (free text about the person); the monitored check's stay.
	caseWithComment := func(c *kyc.AMLCheck) string {
		t.Helper()
		cs := &kyc.AMLCase{OrganizationID: c.OrganizationID, Environment: c.Environment, CheckID: c.ID, MatchID: "m1", MatchKey: "test/TS-1"}
		if err := s.InTx(t.Context(), func(tx *store.Tx) error {
			if err := tx.CreateAMLCase(cs); err != nil {
				return err
			}
			return tx.CreateComment(c.OrganizationID, c.Environment, &kyc.Comment{SubjectType: kyc.SubjectAMLCase, SubjectID: cs.ID,
				AuthorType: kyc.CommentByUser, AuthorID: "usr_1", AuthorName: "Rob", Body: "Viktor's DOB differs."})
		}); err != nil {
			t.Fatal(err)
		}
		return cs.ID
	}
	liveCase, monitoredCase := caseWithComment(live), caseWithComment(monitored)
	clock.Advance(now.AddDate(2, 0, 1).Sub(now)) // two years and a day on
	found, err := s.FindAgedAMLChecks(t.Context(), clock.Now(), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range found {
		if ok, err := s.EraseAMLCheck(t.Context(), a); err != nil || !ok {
			t.Fatalf("erase %s: %v %v", a.CheckID, ok, err)
		}
	}
	if ok, err := s.EraseAMLCheck(t.Context(), found[0]); err != nil || ok {
		t.Errorf("erasing twice: %v %v", ok, err)
	}
	got, err := s.FindAMLCheck(t.Context(), org.ID, kyc.Live, live.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ErasedAt == nil || got.FirstName != "" || got.LastName != "" || got.DOB != nil || len(got.Results) != 0 {
		t.Errorf("erased check still holds %+v", got)
	}
	if got.Status != kyc.AMLPotentialMatch || got.MatchCount != 1 || got.PublicID != live.PublicID || !got.CreatedAt.Equal(live.CreatedAt) {
		t.Errorf("tombstone lost its status, counts or ids: %+v", got)
	}
	hist, err := s.FindScreenings(t.Context(), live.ID)
	if err != nil || len(hist) != 1 || hist[0].ErasedAt == nil || len(hist[0].NewMatches) != 0 || hist[0].MatchCount != 1 {
		t.Errorf("history of the erased check: %+v %v", hist, err)
	}
	// Never screened again: monitoring cannot be turned on, a re-screen is refused.
	err = s.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.SetAMLMonitoring(org.ID, kyc.Live, live.ID, true)
		return err
	})
	if e := kyc.AsError(err); e.Code != kyc.EUnprocessable || e.Reason != "aml_check_erased" {
		t.Errorf("monitoring an erased check: %v", err)
	}
	err = s.InTx(t.Context(), func(tx *store.Tx) error {
		return tx.RecordManualRescreen(got, &kyc.Screening{Trigger: kyc.TriggerManual, Status: kyc.AMLNoMatch})
	})
	if e := kyc.AsError(err); e.Reason != "aml_check_erased" {
		t.Errorf("re-screening an erased check: %v", err)
	}
	// The erased sandbox check had a match pending: it leaves the queue.
	pending, _, err := s.FindAMLChecks(t.Context(), org.ID, kyc.Sandbox, kyc.AMLCheckFilter{ReviewStatus: kyc.AMLReviewPending, Page: 1, Size: 10})
	if err != nil || len(pending) != 0 {
		t.Errorf("erased sandbox check still pending review: %d %v", len(pending), err)
	}
	if pending, _, err := s.FindAMLChecks(t.Context(), org.ID, kyc.Live, kyc.AMLCheckFilter{ReviewStatus: kyc.AMLReviewPending, Page: 1, Size: 10}); err != nil ||
		len(pending) != 1 || pending[0].ID != unreviewed.ID || pending[0].ErasedAt != nil {
		t.Errorf("the unreviewed live check: %+v %v", pending, err)
	}
	for id, want := range map[string]int{liveCase: 0, monitoredCase: 1} {
		if cs, err := s.FindComments(t.Context(), org.ID, kyc.Live, kyc.SubjectAMLCase, id); err != nil || len(cs) != want {
			t.Errorf("comments of AML case %s after erasure: %d %v, want %d", id, len(cs), err, want)
		}
	}
	// The other organization's check is untouched; so is the monitored one.
	for _, c := range []*kyc.AMLCheck{otherLive, monitored} {
		k, err := s.FindAMLCheck(t.Context(), c.OrganizationID, kyc.Live, c.ID)
		if err != nil || k.ErasedAt != nil || k.FirstName != "Viktor" || len(k.Results) != 1 {
			t.Errorf("%s: %+v %v", c.ID, k, err)
		}
	}

	// The monitored check's history older than two years loses its matches;
	// a row screened today keeps them.
	if err := s.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.RecordRescreen(monitored, &kyc.Screening{Trigger: kyc.TriggerDaily, Status: monitored.Status,
			MatchCount: 1, NewMatches: []string{"test/TS-9"}, ListVersions: []string{"test@2"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// Batches of one: the monitored check's first row and the unreviewed
	// check's (which itself stays whole).
	n, err := s.EraseAgedScreenings(t.Context(), clock.Now(), 1)
	if err != nil || n != 2 {
		t.Fatalf("erase aged screenings: %d %v", n, err)
	}
	hist, err = s.FindScreenings(t.Context(), monitored.ID)
	if err != nil || len(hist) != 2 {
		t.Fatalf("monitored history: %+v %v", hist, err)
	}
	if hist[0].ErasedAt == nil || len(hist[0].NewMatches) != 0 || hist[0].Trigger != kyc.TriggerInitial {
		t.Errorf("old row: %+v", hist[0])
	}
	if hist[1].ErasedAt != nil || !slices.Equal(hist[1].NewMatches, []string{"test/TS-9"}) {
		t.Errorf("today's row: %+v", hist[1])
	}
	if n, err := s.EraseAgedScreenings(t.Context(), clock.Now(), 1); err != nil || n != 0 {
		t.Errorf("second run: %d %v", n, err)
	}
	// The other organization keeps five years: its check's history stays.
	if h, err := s.FindScreenings(t.Context(), otherLive.ID); err != nil || h[0].ErasedAt != nil {
		t.Errorf("other org's history: %+v %v", h, err)
	}
	entries, err := s.FindAuditRows(t.Context(), store.AuditFilter{OrganizationID: org.ID}, 500)
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range entries {
		actions = append(actions, e.Action)
	}
	for _, a := range []string{"aml_check.erased", "aml_check.history_erased"} {
		if !slices.Contains(actions, a) {
			t.Errorf("audit lacks %s: %s", a, strings.Join(actions, ", "))
		}
	}
}
