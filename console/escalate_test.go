package console_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"kycd/internal/reviewdata"
	"kycd/kyc"
	"kycd/store"
)

// TestEscalation: an admin makes a reviewer a senior (audited; an analyst
// cannot be one); a reviewer escalates a case with a reason (required);
// it leaves the review queue and is in the senior queue, which the
// reviewer may not open; the reviewer can neither claim nor decide it
// any more; the senior returns it with a note, it is back in the review
// queue, the reviewer escalates it again and the senior decides it. Every
// step is in the audit chain with who did it.
func TestEscalation(t *testing.T) {
	s := newReviewStack(t)
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	casePath := "/console/live/cases/" + req.ID
	// With a one-hour due time two hours on, the case is overdue: counted
	// in the queue it is in, only.
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetReviewSLA(s.org.ID, kyc.Live, 1) }); err != nil {
		t.Fatal(err)
	}
	s.clock.Advance(2 * time.Hour)
	admin := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	rev := s.mustUser("rob@acme.example", "Rob Reviewer", kyc.RoleReviewer)
	sen := s.mustUser("sue@acme.example", "Sue Senior", kyc.RoleReviewer)
	ana := s.mustUser("ann@acme.example", "Ann Analyst", kyc.RoleAnalyst)
	ab, rb, sb := s.browser(), s.browser(), s.browser()
	ab.login(admin)
	rb.login(rev)
	if p := ab.post("/console/users/"+sen.User.ID, "senior", "true"); p.status != http.StatusSeeOther {
		t.Fatalf("make senior: %d %s", p.status, p.text())
	}
	if p := ab.post("/console/users/"+ana.User.ID, "senior", "true"); p.status != http.StatusBadRequest || !strings.Contains(p.text(), "only a reviewer") {
		t.Errorf("analyst made senior: %d", p.status)
	}
	sb.login(sen)
	inQueue := func(b *browser, path string) bool {
		t.Helper()
		p := b.get(path)
		if p.status != 200 {
			t.Fatalf("%s: %d", path, p.status)
		}
		return strings.Contains(p.body, `href="`+casePath+`"`)
	}
	if !inQueue(rb, "/console/live/queue") || inQueue(sb, "/console/live/senior-queue") {
		t.Fatal("before escalating: not in the queue, or in the senior queue")
	}
	overdue := func(b *browser, path string) bool {
		t.Helper()
		return strings.Contains(b.get(path).text(), "1 overdue")
	}
	if !overdue(rb, "/console/live/queue") || overdue(sb, "/console/live/senior-queue") {
		t.Error("before escalating: the overdue case is not counted in the review queue, or is in the senior queue's")
	}
	if p := rb.post(casePath+"/escalate", "reason", " "); p.status != http.StatusBadRequest {
		t.Errorf("escalate without a reason: %d", p.status)
	}
	if p := rb.post(casePath+"/escalate", "reason", "Passport photo looks re-laminated; need a second look."); p.status != http.StatusSeeOther ||
		!strings.Contains(p.header.Get("Location"), "notice=escalated") {
		t.Fatalf("escalate: %d %s", p.status, p.text())
	}
	if p := rb.post(casePath+"/escalate", "reason", "again"); p.status != http.StatusConflict {
		t.Errorf("escalate twice: %d", p.status)
	}
	if inQueue(rb, "/console/live/queue") || !inQueue(sb, "/console/live/senior-queue") || !inQueue(ab, "/console/live/senior-queue") {
		t.Fatal("after escalating: still in the review queue, or not in the senior queue")
	}
	if overdue(rb, "/console/live/queue") || !overdue(sb, "/console/live/senior-queue") {
		t.Error("after escalating: the overdue count did not move to the senior queue")
	}
	if p := rb.get("/console/live/senior-queue"); p.status != http.StatusForbidden {
		t.Errorf("a reviewer opens the senior queue: %d", p.status)
	}
	if p := rb.get(casePath); !strings.Contains(p.text(), "re-laminated") || !strings.Contains(p.text(), "only a senior reviewer or an admin can decide it") {
		t.Errorf("reviewer's case page: %s", p.text())
	}
	if p := rb.post(casePath + "/claim"); p.status != http.StatusForbidden {
		t.Errorf("reviewer claims an escalated case: %d", p.status)
	}
	if p := rb.post(casePath+"/decision", "decision", "approve", "note", "Fine."); p.status != http.StatusForbidden {
		t.Errorf("reviewer decides an escalated case: %d %s", p.status, p.text())
	}
	if p := rb.post(casePath+"/deescalate", "note", "x"); p.status != http.StatusForbidden {
		t.Errorf("reviewer de-escalates: %d", p.status)
	}
	if p := sb.post(casePath+"/deescalate", "note", "Lamination is fine; decide on the face match."); p.status != http.StatusSeeOther {
		t.Fatalf("de-escalate: %d %s", p.status, p.text())
	}
	if !inQueue(rb, "/console/live/queue") || inQueue(sb, "/console/live/senior-queue") {
		t.Fatal("after de-escalating: not back in the review queue")
	}
	if p := rb.post(casePath+"/escalate", "reason", "Still unsure."); p.status != http.StatusSeeOther {
		t.Fatalf("escalate again: %d", p.status)
	}
	if p := sb.post(casePath+"/decision", "decision", "reject", "reasonCode", "SANCTIONS_MATCH", "note", "Listed person."); p.status != http.StatusSeeOther {
		t.Fatalf("senior decides: %d %s", p.status, p.text())
	}
	if inQueue(sb, "/console/live/senior-queue") {
		t.Error("a decided case stays in the senior queue")
	}
	rows, err := s.st.FindAudit(t.Context(), req.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range rows {
		if strings.Contains(a.Action, "escalated") {
			got = append(got, a.Action+" by "+*a.ActorID)
		}
	}
	want := []string{"kyc.escalated by " + rev.User.ID, "kyc.deescalated by " + sen.User.ID, "kyc.escalated by " + rev.User.ID}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	users, err := s.st.FindAudit(t.Context(), sen.User.ID)
	if err != nil {
		t.Fatal(err)
	}
	audited := false
	for _, a := range users {
		audited = audited || a.Action == "user.updated" && a.Reason != nil && strings.Contains(*a.Reason, "senior reviewer") && *a.ActorID == admin.User.ID
	}
	if !audited {
		t.Error("making a senior is not audited with the admin")
	}
}
