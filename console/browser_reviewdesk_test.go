package console_test

import (
	"strings"
	"testing"
	"time"

	"kycd/internal/reviewdata"
	"kycd/kyc"
	"kycd/store"
)

// TestBrowserReviewerDesk is a reviewer's desk in Chromium: with a 24-hour due
// time, one case overdue and one on time, a reviewer opens the queue
// (reasons in words, risk out of 100, due times, the overdue count),
// assigns a case to herself from the case page, filters the queue by
// assignee, and opens the list of all verifications with filters. Every
// page is checked at 390 and 1280 px (no CSP violation, no serious or
// critical axe-core violation, no horizontal scrolling) and kept as a
// screenshot.
func TestBrowserReviewerDesk(t *testing.T) {
	s := newReviewStack(t)
	old := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	s.clock.Advance(30 * time.Hour)
	s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Erika", LastName: "Petrenko", DOB: "1964-01-01", Country: "DE", DocNumber: "T22000130"})
	s.processed(kyc.Live, reviewdata.Person{FirstName: "Maria", LastName: "Kowalczyk", DOB: "1975", Country: "PL", DocNumber: "T22000131"})
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetReviewSLA(s.org.ID, kyc.Live, 24) }); err != nil {
		t.Fatal(err)
	}
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	s.mustUser("ben@acme.example", "Ben Reviewer", kyc.RoleReviewer)
	base := s.srv.URL
	b := newTab(t, 1280)
	b.signIn(base, jane)
	b.open(base, "/console/live/queue")
	body := b.body()
	for _, want := range []string{"1 overdue", "overdue by 6 hours", "due in 24 hours", "Possible sanctions match", "of\u00a0100"} {
		if !strings.Contains(body, want) {
			t.Errorf("queue lacks %q:\n%s", want, body)
		}
	}
	b.check("desk-queue")
	b.open(base, "/console/live/cases/"+old.ID)
	b.click(`#assign button`)
	b.waitFor(`document.body.innerText.includes('The case is assigned.')`)
	if body := b.body(); !strings.Contains(body, "Assigned to\nYou") && !strings.Contains(body, "Assigned to\tYou") && !strings.Contains(body, "You since") {
		t.Errorf("case after assign to me:\n%s", body)
	}
	b.check("desk-case")
	// Tags, for the list's Tags column.
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error {
		for _, tag := range []string{"high-value", "needs-callback"} {
			if _, err := tx.AddTag(s.org.ID, kyc.Live, kyc.SubjectKYCRequest, old.ID, tag); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	pages := []struct{ name, path string }{
		{"desk-queue-mine", "/console/live/queue?assignee=me&overdue=1"},
		{"desk-verifications", "/console/live/verifications"},
		{"desk-verifications-filtered", "/console/live/verifications?decidedBy=engine&sort=decided&reason=SANCTIONS_MATCH"},
		{"desk-case", "/console/live/cases/" + old.ID},
	}
	for _, w := range []int64{390, 1280} {
		b.resize(w)
		for _, p := range pages {
			b.open(base, p.path)
			b.check(p.name)
		}
	}
	b.open(base, "/console/live/verifications")
	if body := b.body(); !strings.Contains(body, "high-value") || !strings.Contains(body, "needs-callback") {
		t.Errorf("verifications lack the tags:\n%s", body)
	} else if n := strings.Count(body, "Check not run"); n != 3 {
		t.Errorf("verifications say \"Check not run\" %d times, want once per request (3)", n)
	}
	b.open(base, "/console/live/verifications?decidedBy=engine")
	if body := b.body(); !strings.Contains(body, "Maria Kowalczyk") || strings.Contains(body, "Viktor Petrenko") || !strings.Contains(body, "by the engine") {
		t.Errorf("verifications decided by the engine:\n%s", body)
	}
}
