package console_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"kycd/internal/reviewdata"
	"kycd/kyc"
)

// TestAssignment: "assign to me", reassign to a colleague and unassign,
// each audited; the assignment outlives claims and is not one (the case
// stays assigned when its claim is released); the queue filters by
// assignee; only active users who decide can be assigned.
func TestAssignment(t *testing.T) {
	s := newReviewStack(t)
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	jane, ben := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer), s.mustUser("ben@acme.example", "Ben Reviewer", kyc.RoleReviewer)
	viewer := s.mustUser("vera@acme.example", "Vera Viewer", kyc.RoleViewer)
	bj, bb := s.browser(), s.browser()
	bj.login(jane)
	bb.login(ben)
	casePath := "/console/live/cases/" + req.ID
	inQueue := func(b *browser, filter string) bool {
		t.Helper()
		return strings.Contains(b.get("/console/live/queue?"+filter).text(), "Viktor Petrenko")
	}
	if !inQueue(bj, "assignee=none") || inQueue(bj, "assignee=me") {
		t.Fatal("unassigned case: queue filters wrong")
	}
	if r := bj.post(casePath+"/assign", "assignee", "me"); r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Location"), "notice=assigned") {
		t.Fatalf("assign to me: %d %s", r.status, r.text())
	}
	p := bj.get(casePath)
	if !strings.Contains(p.text(), "Assigned to You") || !strings.Contains(p.text(), "Claim not claimed") {
		t.Errorf("case after assign to me (assignment is not a claim): %s", p.text())
	}
	if !inQueue(bj, "assignee=me") || inQueue(bb, "assignee=me") || inQueue(bj, "assignee=none") || !inQueue(bb, "assignee="+jane.User.ID) {
		t.Error("queue filters after assign to me")
	}
	if txt := bb.get("/console/live/queue").text(); !strings.Contains(txt, "Jane Reviewer") {
		t.Errorf("queue does not name the assignee: %s", txt)
	}
	// A claim and its release leave the assignment alone.
	if r := bb.post(casePath + "/claim"); r.status != http.StatusSeeOther {
		t.Fatalf("claim: %d", r.status)
	}
	if r := bb.post(casePath + "/release"); r.status != http.StatusSeeOther {
		t.Fatalf("release: %d", r.status)
	}
	if txt := bb.get(casePath).text(); !strings.Contains(txt, "Assigned to Jane Reviewer") {
		t.Errorf("assignment lost with the claim: %s", txt)
	}
	if r := bj.post(casePath+"/assign", "assignee", ben.User.ID); r.status != http.StatusSeeOther {
		t.Fatalf("reassign: %d %s", r.status, r.text())
	}
	if !inQueue(bb, "assignee=me") || inQueue(bj, "assignee=me") {
		t.Error("queue filters after reassign")
	}
	for _, bad := range []string{viewer.User.ID, "usr_01JXXXXXXXXXXXXXXXXXXXXXXX", strings.Repeat("u", 65)} {
		if r := bj.post(casePath+"/assign", "assignee", bad); r.status != http.StatusBadRequest || !strings.Contains(r.text(), "assignee") {
			t.Errorf("assign to %s: %d %s", bad, r.status, r.text())
		}
	}
	if r := bb.post(casePath+"/assign", "assignee", ""); r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Location"), "notice=unassigned") {
		t.Fatalf("unassign: %d %s", r.status, r.text())
	}
	if !inQueue(bj, "assignee=none") {
		t.Error("unassigned case not in assignee=none")
	}
	audit, err := s.st.FindAudit(t.Context(), req.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range audit {
		if strings.Contains(a.Action, "assign") {
			got = append(got, a.Action+" by "+*a.ActorID+": "+*a.Reason)
		}
	}
	want := []string{"kyc.assigned by " + jane.User.ID + ": to " + jane.User.ID, "kyc.reassigned by " + jane.User.ID + ": from " + jane.User.ID + " to " + ben.User.ID,
		"kyc.unassigned by " + ben.User.ID + ": was " + ben.User.ID}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A decided case cannot be assigned.
	if r := bj.post(casePath+"/decision", "decision", "reject", "reasonCode", "SANCTIONS_MATCH", "note", "Listed."); r.status != http.StatusSeeOther {
		t.Fatalf("decision: %d %s", r.status, r.text())
	}
	if r := bj.post(casePath+"/assign", "assignee", "me"); r.status != http.StatusConflict && r.status != http.StatusBadRequest && r.status != http.StatusUnprocessableEntity {
		t.Errorf("assign a decided case: %d %s", r.status, r.text())
	}
}

// TestReviewDueTimes: an admin sets a due time per environment; the
// queue and the case show when a case is due and, once it is late, that
// it is overdue, and the queue counts and filters the overdue ones.
func TestReviewDueTimes(t *testing.T) {
	s := newReviewStack(t)
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	admin := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := s.browser()
	b.login(admin)
	if txt := b.get("/console/live/queue").text(); strings.Contains(txt, "overdue") || strings.Contains(txt, "due in") {
		t.Errorf("queue without an SLA speaks of due times: %s", txt)
	}
	for _, bad := range []string{"0", "8761", "1.5", "x"} {
		if r := b.post("/console/settings/sla", "liveHours", bad); r.status != http.StatusBadRequest || !strings.Contains(r.text(), "whole number of hours") {
			t.Errorf("liveHours=%s: %d %s", bad, r.status, r.text())
		}
	}
	if r := b.post("/console/settings/sla", "liveHours", "24", "sandboxHours", ""); r.status != http.StatusSeeOther {
		t.Fatalf("set SLA: %d %s", r.status, r.text())
	}
	set, err := s.st.FindOrgSettings(t.Context(), s.org.ID)
	if err != nil || set.SLA(kyc.Live) != 24*time.Hour || set.SLA(kyc.Sandbox) != 0 {
		t.Fatalf("settings: %+v %v", set, err)
	}
	if txt := b.get("/console/live/queue").text(); !strings.Contains(txt, "None overdue") || !strings.Contains(txt, "due in 24 hours") {
		t.Errorf("queue with an SLA: %s", txt)
	}
	if strings.Contains(b.get("/console/live/queue?overdue=1").text(), "Viktor Petrenko") {
		t.Error("a case on time is in the overdue filter")
	}
	s.clock.Advance(26 * time.Hour)
	b.login(admin) // the session ended meanwhile
	q := b.get("/console/live/queue").text()
	if !strings.Contains(q, "1 overdue") || !strings.Contains(q, "overdue by 2 hours") {
		t.Errorf("queue after the due time: %s", q)
	}
	if !strings.Contains(b.get("/console/live/queue?overdue=1").text(), "Viktor Petrenko") {
		t.Error("overdue case not in the overdue filter")
	}
	if txt := b.get("/console/live/cases/" + req.ID).text(); !strings.Contains(txt, "Due overdue by 2 hours") {
		t.Errorf("case after the due time: %s", txt)
	}
	// The sandbox has no due time.
	if txt := b.get("/console/sandbox/queue").text(); strings.Contains(txt, "overdue") {
		t.Errorf("sandbox queue: %s", txt)
	}
	if txt := b.get("/console/settings").body; !strings.Contains(txt, `name="liveHours" min="1" max="8760" value="24"`) {
		t.Error("settings page does not show the live due time")
	}
	rows, err := s.st.FindAudit(t.Context(), s.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range rows {
		found = found || (a.Action == "organization.review_sla_changed" && *a.Reason == "review SLA: 24 h")
	}
	if !found {
		t.Error("SLA change not audited")
	}
}
