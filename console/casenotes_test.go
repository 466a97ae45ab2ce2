package console_test

import (
	"net/http"
	"strings"
	"testing"

	"kycd/internal/reviewdata"
	"kycd/kyc"
)

// TestCaseTagsAndComments: a reviewer tags a case (the lists and the
// queue filter by the tag) and comments with a mention (the colleague is
// e-mailed a link, not the text); a role with personal data reads the
// thread, a viewer only its count; a mention of nobody is refused with
// the text kept; every change is in the audit chain.
func TestCaseTagsAndComments(t *testing.T) {
	s := newReviewStack(t)
	viktor := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	erika := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Erika", LastName: "Mustermann", DOB: "1964-01-01", Country: "DE", DocNumber: "T22000132"})
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	ann := s.mustUser("ann@acme.example", "Ann Analyst", kyc.RoleAnalyst)
	vic := s.mustUser("vic@acme.example", "Vic Viewer", kyc.RoleViewer)
	bj, ba, bv := s.browser(), s.browser(), s.browser()
	bj.login(jane)
	ba.login(ann)
	bv.login(vic)
	casePath := "/console/live/cases/" + viktor.ID

	if r := bj.post(casePath+"/tags", "tag", " VIP "); r.status != http.StatusSeeOther {
		t.Fatalf("tag: %d %s", r.status, r.text())
	}
	if p := bj.get(casePath); !strings.Contains(p.body, `<span class="badge">vip</span>`) || !strings.Contains(p.body, "Remove the tag vip") {
		t.Errorf("case page lacks the tag: %s", p.text())
	}
	if r := bj.post(casePath+"/tags", "tag", "two words"); r.status != http.StatusBadRequest || !strings.Contains(r.text(), "must be 1 to 40") {
		t.Errorf("bad tag: %d %s", r.status, r.text())
	}
	for _, path := range []string{"/console/live/verifications", "/console/live/queue"} {
		p := bj.get(path + "?tag=vip")
		if p.status != http.StatusOK || !strings.Contains(p.text(), "Viktor Petrenko") || strings.Contains(p.text(), "Erika Mustermann") {
			t.Errorf("%s?tag=vip: %d %s", path, p.status, p.text())
		}
		if p := bj.get(path + "?tag=other"); strings.Contains(p.text(), "Viktor Petrenko") {
			t.Errorf("%s?tag=other lists Viktor", path)
		}
		if p := bj.get(path + "?tag=" + strings.Repeat("x", 50)); p.status != http.StatusBadRequest {
			t.Errorf("%s with a tag the form cannot send: %d", path, p.status)
		}
	}

	// A comment with a mention by name, one by address, then one of nobody.
	if r := bj.post(casePath+"/comments", "body", "Document number T22000129 looks reprinted. @[ann analyst] please look."); r.status != http.StatusSeeOther ||
		!strings.Contains(r.header.Get("Location"), "notice=mentioned") {
		t.Fatalf("comment: %d %v %s", r.status, r.header, r.text())
	}
	if got := mentionEmails(t, s.st, "ann@acme.example", "Jane Reviewer mentioned you"); len(got) != 1 ||
		!strings.Contains(got[0].Body, casePath) || strings.Contains(got[0].Body, "T22000129") {
		t.Errorf("mention e-mails to Ann (one, a link to the case, without the comment): %+v", got)
	}
	r := bj.post(casePath+"/comments", "body", "Ask @[Nobody Here] too.")
	if r.status != http.StatusBadRequest || !strings.Contains(r.text(), "@[Nobody Here] names no active user") || !strings.Contains(r.body, "Ask @[Nobody Here] too.") {
		t.Errorf("mention of nobody: %d %s", r.status, r.text())
	}
	// A comment is text, never markup.
	if r := bj.post(casePath+"/comments", "body", `<script>alert(1)</script> <b>bold</b>`); r.status != http.StatusSeeOther {
		t.Fatalf("comment with markup: %d %s", r.status, r.text())
	}
	if p := bj.get(casePath); strings.Contains(p.body, "<script>alert(1)") || !strings.Contains(p.body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the comment's markup is not escaped")
	}
	if p := ba.get(casePath); !strings.Contains(p.text(), "looks reprinted") || !strings.Contains(p.text(), "mentioned Ann Analyst") {
		t.Errorf("the analyst does not read the thread: %s", p.text())
	} else if strings.Contains(p.body, `action="`+casePath+`/comments"`) {
		t.Errorf("the analyst, who does not work cases, is offered the comment form")
	}
	if p := bv.get(casePath); strings.Contains(p.text(), "looks reprinted") || !strings.Contains(p.text(), "2 comments.") {
		t.Errorf("the viewer sees the comment's text, or not its count: %s", p.text())
	}

	if r := bj.post(casePath+"/tags/remove", "tag", "vip"); r.status != http.StatusSeeOther {
		t.Fatalf("untag: %d %s", r.status, r.text())
	}
	if r := bj.post(casePath+"/tags/remove", "tag", "vip"); r.status != http.StatusNotFound {
		t.Errorf("untag again: %d", r.status)
	}
	rows, err := s.st.FindAudit(t.Context(), viktor.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, a := range rows {
		got[a.Action]++
		if a.Action == "kyc.commented" && (a.ActorID == nil || *a.ActorID != jane.User.ID || strings.Contains(*a.Reason, "T22000129") || strings.Contains(*a.Reason, "script")) {
			t.Errorf("comment audit: %+v %s", a, *a.Reason)
		}
	}
	if got["kyc.tag_added"] != 1 || got["kyc.tag_removed"] != 1 || got["kyc.commented"] != 2 {
		t.Errorf("audit: %v", got)
	}
	_ = erika
}

// TestDecisionReasonCodes: an admin adds the organization's own code in
// settings (a built-in one cannot be removed); a reviewer decides with a
// main code and more; the case shows them in words, the list filters by
// a decision's code, and a code that is on no list is refused.
func TestDecisionReasonCodes(t *testing.T) {
	s := newReviewStack(t)
	viktor := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	admin := s.mustUser("boss@acme.example", "Boss Admin", kyc.RoleAdmin)
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	ba, bj := s.browser(), s.browser()
	ba.login(admin)
	bj.login(jane)

	if r := ba.post("/console/settings/reason-codes", "environment", "live", "code", "source_of_funds_unclear", "label", "Source of funds unclear"); r.status != http.StatusSeeOther {
		t.Fatalf("add code: %d %s", r.status, r.text())
	}
	for _, tc := range []struct {
		why, path string
		kv        []string
		status    int
	}{
		{"again", "/console/settings/reason-codes", []string{"environment", "live", "code", "SOURCE_OF_FUNDS_UNCLEAR", "label", "x"}, http.StatusConflict},
		{"built-in code", "/console/settings/reason-codes", []string{"environment", "live", "code", "DOCUMENT_FORGED", "label", "x"}, http.StatusBadRequest},
		{"no label", "/console/settings/reason-codes", []string{"environment", "live", "code", "X1", "label", " "}, http.StatusBadRequest},
		{"no environment", "/console/settings/reason-codes", []string{"code", "X1", "label", "x"}, http.StatusBadRequest},
		{"remove a built-in code", "/console/settings/reason-codes/remove", []string{"environment", "live", "code", "DOCUMENT_FORGED"}, http.StatusBadRequest},
	} {
		if r := ba.post(tc.path, tc.kv...); r.status != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.why, r.status, r.text(), tc.status)
		}
	}
	if p := ba.get("/console/settings"); !strings.Contains(p.text(), "SOURCE_OF_FUNDS_UNCLEAR Source of funds unclear") {
		t.Errorf("settings lacks the code: %s", p.text())
	}
	casePath := "/console/live/cases/" + viktor.ID
	if p := bj.get(casePath); !strings.Contains(p.body, `name="reasonCodes" value="SOURCE_OF_FUNDS_UNCLEAR"`) {
		t.Errorf("the decision form does not offer the organization's code")
	}
	if r := bj.post(casePath+"/decision", "decision", "reject", "reasonCode", "SANCTIONS_MATCH", "reasonCodes", "NOT_ON_ANY_LIST", "note", "Listed."); r.status != http.StatusBadRequest ||
		!strings.Contains(r.text(), "NOT_ON_ANY_LIST is not a reason code") {
		t.Errorf("a code on no list: %d %s", r.status, r.text())
	}
	if r := bj.post(casePath+"/decision", "decision", "reject", "reasonCode", "SANCTIONS_MATCH", "reasonCodes", "SOURCE_OF_FUNDS_UNCLEAR",
		"reasonCodes", "SANCTIONS_MATCH", "note", "Listed."); r.status != http.StatusSeeOther {
		t.Fatalf("decision: %d %s", r.status, r.text())
	}
	got, err := s.st.FindKYCRequest(t.Context(), s.org.ID, kyc.Live, viktor.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.ReviewReasonCodes, " ") != "SANCTIONS_MATCH SOURCE_OF_FUNDS_UNCLEAR" || got.ReviewReasonCode == nil || *got.ReviewReasonCode != "SANCTIONS_MATCH" {
		t.Errorf("stored codes: %v %v", got.ReviewReasonCodes, got.ReviewReasonCode)
	}
	if p := bj.get(casePath); !strings.Contains(p.body, `<span class="badge" title="SOURCE_OF_FUNDS_UNCLEAR">Source of funds unclear</span>`) {
		t.Errorf("the case does not show the codes in words: %s", p.text())
	}
	// The list filters by a decision's code (kyc_request_reasons).
	if p := bj.get("/console/live/verifications?reason=SOURCE_OF_FUNDS_UNCLEAR"); !strings.Contains(p.text(), "Viktor Petrenko") {
		t.Errorf("reason filter on the decision's code: %s", p.text())
	}
	if p := bj.get("/console/live/verifications?reason=SOURCE_OF_FUNDS_UNCLEAR&status=rejected"); !strings.Contains(p.text(), "Viktor Petrenko") {
		t.Errorf("reason filter with a status: %s", p.text())
	}
	if r := ba.post("/console/settings/reason-codes/remove", "environment", "live", "code", "SOURCE_OF_FUNDS_UNCLEAR"); r.status != http.StatusSeeOther {
		t.Errorf("remove: %d %s", r.status, r.text())
	}
	if p := bj.get(casePath); !strings.Contains(p.body, `title="SOURCE_OF_FUNDS_UNCLEAR"`) {
		t.Errorf("the decision lost its removed code")
	}
}
