package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kycd/internal/reviewdata"
	"kycd/kyc"
	"kycd/store/storetest"
)

// TestAttackNewConsoleForms attacks this session's console actions
// (resubmission, erase, legal hold, retention, round-robin, availability,
// face crops): a cross-site form post is refused and changes nothing; a
// reviewer cannot set a colleague in; another environment's and another
// organization's pages do not reach the case; malformed and hostile form
// values are refused, never a 500.
func TestAttackNewConsoleForms(t *testing.T) {
	s := newReviewStack(t)
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	admin := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	jane, ben := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer), s.mustUser("ben@acme.example", "Ben Reviewer", kyc.RoleReviewer)
	ba, bj := s.browser(), s.browser()
	ba.login(admin)
	bj.login(jane)
	casePath := "/console/live/cases/" + req.ID
	appPath := "/console/live/applicants/" + req.ApplicantID
	a, err := s.st.FindApplicant(t.Context(), s.org.ID, kyc.Live, req.ApplicantID)
	if err != nil {
		t.Fatal(err)
	}
	unchanged := func(after string) {
		t.Helper()
		r, err := s.st.FindKYCRequest(t.Context(), s.org.ID, kyc.Live, req.ID)
		if err != nil || r.Status != kyc.KYCAwaitingReview || r.Attempt != 1 {
			t.Fatalf("after %s: request %v %v", after, r.Status, err)
		}
		got, err := s.st.FindApplicant(t.Context(), s.org.ID, kyc.Live, req.ApplicantID)
		if err != nil || got.ErasedAt != nil || got.ErasureScheduledAt != nil || got.LegalHoldReason != nil {
			t.Fatalf("after %s: applicant %+v %v", after, got, err)
		}
		set, err := s.st.FindOrgSettings(t.Context(), s.org.ID)
		if err != nil || set.RoundRobin {
			t.Fatalf("after %s: round-robin on (%v)", after, err)
		}
		pol, err := s.st.RetentionOf(t.Context(), s.org.ID)
		if err != nil || pol != kyc.DefaultRetention {
			t.Fatalf("after %s: retention %+v %v", after, pol, err)
		}
		for _, p := range []*person{jane, ben} {
			u, err := s.st.FindUser(t.Context(), s.org.ID, p.User.ID)
			if err != nil || u.ReviewAvailable {
				t.Fatalf("after %s: %s is in (%v)", after, p.User.Email, err)
			}
		}
	}
	unchanged("setting up")

	// Cross-site form posts, each well formed.
	forms := []struct {
		path string
		kv   []string
	}{
		{casePath + "/resubmission", []string{"step", "document_front", "message", "Please take it again."}},
		{appPath + "/erase", []string{"confirm", a.PublicID, "reason", "asked"}},
		{appPath + "/legal-hold", []string{"reason", "litigation"}},
		{"/console/settings/retention", []string{"decidedYears", "1", "inactiveDays", "1", "sandboxDays", "1", "amlYears", "1"}},
		{"/console/settings/round-robin", []string{"roundRobin", "on"}},
		{"/console/account/availability", []string{"available", "in"}},
	}
	for _, f := range forms {
		v := url.Values{}
		for i := 0; i+1 < len(f.kv); i += 2 {
			v.Add(f.kv[i], f.kv[i+1])
		}
		for _, b := range []*browser{ba, bj} {
			if p := b.do("POST", f.path, v, "Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example"); p.status != http.StatusForbidden {
				t.Errorf("cross-site POST %s: %d", f.path, p.status)
			}
		}
	}
	unchanged("cross-site posts")

	// Jane names Ben in every way a form could: only Jane changes.
	if p := bj.post("/console/account/availability", "available", "in", "userId", ben.User.ID, "user", ben.User.ID, "id", ben.User.ID); p.status != http.StatusSeeOther {
		t.Fatalf("availability: %d %s", p.status, p.text())
	}
	if u, err := s.st.FindUser(t.Context(), s.org.ID, ben.User.ID); err != nil || u.ReviewAvailable {
		t.Errorf("Jane set Ben in (%v)", err)
	}
	if u, err := s.st.FindUser(t.Context(), s.org.ID, jane.User.ID); err != nil || !u.ReviewAvailable {
		t.Errorf("Jane is not in (%v)", err)
	}
	if p := bj.post("/console/account/availability", "available", "out"); p.status != http.StatusSeeOther {
		t.Fatalf("availability out: %d", p.status)
	}

	// The other environment's pages, and another organization's admin.
	sandboxCase := "/console/sandbox/cases/" + req.ID
	for _, pg := range []*page{
		ba.post(sandboxCase+"/resubmission", "step", "document_front", "message", "Please take it again."),
		ba.get(sandboxCase + "/faces/document"),
		ba.get(sandboxCase + "/faces/selfie"),
	} {
		if (pg.status != http.StatusNotFound && pg.status != http.StatusForbidden) || strings.Contains(pg.body, "Petrenko") {
			t.Errorf("through the sandbox pages: %d", pg.status)
		}
	}
	mine := s.org
	s.org = storetest.MustOrg(t, s.st, "other", nil)
	other := s.mustUser("admin@other.example", "Otto Other", kyc.RoleAdmin)
	s.org = mine
	bo := s.browser()
	bo.login(other)
	for _, pg := range []*page{
		bo.post(casePath+"/resubmission", "step", "document_front", "message", "Please take it again."),
		bo.get(casePath + "/faces/document"),
		bo.get(casePath + "/faces/selfie"),
	} {
		if pg.status != http.StatusNotFound || strings.Contains(pg.body, "Petrenko") {
			t.Errorf("another organization's admin: %d", pg.status)
		}
	}
	unchanged("other environment and organization")

	// Hostile values: refused with a 4xx, never a 500, nothing changed.
	huge := strings.Repeat("x", 200_000)
	bad := []struct {
		path string
		kv   []string
	}{
		{casePath + "/resubmission", []string{"step", "selfie\x00", "message", "Please take it again."}},
		{casePath + "/resubmission", []string{"step", "document_front", "message", "Bitte \xff\xfe noch einmal."}},
		{casePath + "/resubmission", []string{"step", "document_front", "message", huge}},
		{casePath + "/resubmission", []string{"step", "document_front", "step", "selfie", "message", "Please \u2066take\u2069 it again."}},
		{"/console/settings/retention", []string{"decidedYears", "99999999999999999999999"}},
		{"/console/settings/retention", []string{"decidedYears", "-1"}},
		{"/console/settings/retention", []string{"decidedYears", "1.5"}},
		{"/console/settings/retention", []string{"inactiveDays", "１２"}},
		{"/console/settings/retention", []string{"amlYears", "0x10"}},
		{"/console/settings/retention", []string{"sandboxDays", "\xff"}},
		{"/console/settings/round-robin", []string{"roundRobin", "ON"}},
		{"/console/settings/round-robin", []string{}},
		{"/console/account/availability", []string{"available", "in\x00"}},
		{appPath + "/legal-hold", []string{"reason", huge}},
		{appPath + "/legal-hold", []string{"reason", "   "}},
		{appPath + "/erase", []string{"confirm", a.PublicID + "\x00", "reason", "asked"}},
		{appPath + "/erase", []string{"confirm", a.PublicID, "reason", huge}},
	}
	for _, f := range bad {
		p := ba.post(f.path, f.kv...)
		if p.status < 400 || p.status >= 500 {
			t.Errorf("POST %s %q: %d %s", f.path, f.kv, p.status, p.text())
		}
	}
	for _, path := range []string{casePath + "/faces/..", casePath + "/faces/portrait", casePath + "/faces/%00", casePath + "/faces/document%2F..",
		"/console/live/cases/kyc_nonexistent/faces/document", "/console/live/cases/%ff/faces/selfie"} {
		if p := ba.get(path); p.status >= 500 || p.status == http.StatusOK {
			t.Errorf("GET %s: %d", path, p.status)
		}
	}
	unchanged("hostile values")
}
