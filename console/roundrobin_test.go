package console_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"kycd/internal/reviewdata"
	"kycd/kyc"
)

// TestRoundRobin: with round-robin on, each case that comes to review is
// assigned to the next reviewer who is in, in a fixed order; a reviewer
// who goes out mid-rotation is skipped at once and, back in, rejoins at
// their place; with nobody in (or the setting off) cases stay
// unassigned. Each reviewer sets only themselves in or out. An assigned
// case is not claimed, and a colleague's claim leaves the assignment
// alone. Every automatic assignment is in the audit chain.
func TestRoundRobin(t *testing.T) {
	s := newReviewStack(t)
	admin := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	revs := []*person{
		s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer),
		s.mustUser("ben@acme.example", "Ben Reviewer", kyc.RoleReviewer),
		s.mustUser("carl@acme.example", "Carl Reviewer", kyc.RoleReviewer),
	}
	analyst := s.mustUser("ann@acme.example", "Ann Analyst", kyc.RoleAnalyst)
	// The rotation's order is the users' ids.
	slices.SortFunc(revs, func(a, b *person) int { return strings.Compare(a.User.ID, b.User.ID) })
	name := map[string]string{"": "no one"}
	browsers := map[string]*browser{}
	for _, p := range append(revs, admin, analyst) {
		name[p.User.ID] = p.User.Name
		b := s.browser()
		b.login(p)
		browsers[p.User.ID] = b
	}
	ba := browsers[admin.User.ID]
	n := 0
	next := func() (string, *kyc.KYCRequest) {
		t.Helper()
		n++
		req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE",
			DocNumber: fmt.Sprintf("T2200%04d", n)})
		if req.Status != kyc.KYCAwaitingReview {
			t.Fatalf("case %d: %s", n, req.Status)
		}
		a, err := s.st.FindAssignment(t.Context(), req.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a == nil {
			return "no one", req
		}
		return name[a.UserID], req
	}
	setIn := func(p *person, in bool) {
		t.Helper()
		v := map[bool]string{true: "in", false: "out"}[in]
		if r := browsers[p.User.ID].post("/console/account/availability", "available", v, "env", "live"); r.status != http.StatusSeeOther ||
			!strings.Contains(r.header.Get("Location"), "notice="+v) {
			t.Fatalf("%s %s: %d %s", p.User.Name, v, r.status, r.text())
		}
	}

	// Off (the default): nobody is assigned, even when in.
	setIn(revs[0], true)
	if got, _ := next(); got != "no one" {
		t.Errorf("round-robin off: assigned to %s", got)
	}
	if r := ba.post("/console/settings/round-robin", "roundRobin", "maybe"); r.status != http.StatusBadRequest {
		t.Errorf("roundRobin=maybe: %d", r.status)
	}
	if r := ba.post("/console/settings/round-robin", "roundRobin", "on"); r.status != http.StatusSeeOther {
		t.Fatalf("round-robin on: %d %s", r.status, r.text())
	}
	setIn(revs[0], false)
	// On, nobody in: the case waits unassigned.
	if got, _ := next(); got != "no one" {
		t.Errorf("nobody in: assigned to %s", got)
	}
	for _, p := range revs {
		setIn(p, true)
	}
	if txt := ba.get("/console/settings").text(); !strings.Contains(txt, "In now: ") || !strings.Contains(txt, revs[1].User.Name) {
		t.Errorf("settings do not say who is in: %s", txt)
	}
	var got []string
	var firstCase *kyc.KYCRequest
	for i := range 2 {
		who, req := next()
		got = append(got, who)
		if i == 0 {
			firstCase = req
		}
	}
	// The second reviewer in the order goes out mid-rotation: skipped.
	setIn(revs[1], false)
	for range 2 {
		who, _ := next()
		got = append(got, who)
	}
	setIn(revs[1], true) // back in: rejoins at their place
	for range 3 {
		who, _ := next()
		got = append(got, who)
	}
	r0, r1, r2 := revs[0].User.Name, revs[1].User.Name, revs[2].User.Name
	want := []string{r0, r1, r2, r0, r1, r2, r0}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("rotation: %s\nwant:     %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}

	// Assignment is not a claim: the first case is revs[0]'s, unclaimed;
	// revs[2] claims it and it stays revs[0]'s.
	casePath := "/console/live/cases/" + firstCase.ID
	b2 := browsers[revs[2].User.ID]
	if txt := b2.get(casePath).text(); !strings.Contains(txt, "Assigned to "+r0) || !strings.Contains(txt, "Claim not claimed") {
		t.Errorf("assigned case: %s", txt)
	}
	if r := b2.post(casePath + "/claim"); r.status != http.StatusSeeOther {
		t.Fatalf("claim: %d %s", r.status, r.text())
	}
	if txt := b2.get(casePath).text(); !strings.Contains(txt, "Assigned to "+r0) || !strings.Contains(txt, "Claim You until") {
		t.Errorf("claimed by a colleague: %s", txt)
	}
	if txt := browsers[revs[0].User.ID].get("/console/live/queue?assignee=me").text(); !strings.Contains(txt, "You are in") ||
		!strings.Contains(txt, r2+" until") {
		t.Errorf("queue of the assignee: %s", txt)
	}

	// Each sets only themselves; an analyst decides nothing and has no
	// turn to take.
	if r := browsers[analyst.User.ID].post("/console/account/availability", "available", "in"); r.status != http.StatusForbidden {
		t.Errorf("analyst in: %d", r.status)
	}
	if r := browsers[revs[0].User.ID].post("/console/account/availability", "available", "maybe"); r.status != http.StatusBadRequest {
		t.Errorf("available=maybe: %d", r.status)
	}
	// Off again: the next case waits unassigned.
	if r := ba.post("/console/settings/round-robin", "roundRobin", "off"); r.status != http.StatusSeeOther {
		t.Fatalf("round-robin off: %d", r.status)
	}
	if who, _ := next(); who != "no one" {
		t.Errorf("after turning it off: %s", who)
	}

	audit, err := s.st.FindAudit(t.Context(), firstCase.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range audit {
		if a.Action == "kyc.assigned" && a.ActorType == kyc.ActorSystem && a.Reason != nil && *a.Reason == "to "+revs[0].User.ID+" (round-robin)" {
			found = true
		}
	}
	if !found {
		t.Errorf("no audit row for the round-robin assignment: %+v", audit)
	}
	rows, err := s.st.FindAudit(t.Context(), revs[1].User.ID)
	if err != nil {
		t.Fatal(err)
	}
	var moves []string
	for _, a := range rows {
		if a.Action == "user.review_availability_changed" {
			moves = append(moves, *a.ToStatus+" by "+*a.ActorID)
		}
	}
	id := revs[1].User.ID
	if strings.Join(moves, ", ") != "in by "+id+", out by "+id+", in by "+id {
		t.Errorf("availability audit: %v", moves)
	}
}
