package console_test

import (
	"net/http"
	"strings"
	"testing"

	"kycd/internal/reviewdata"
	"kycd/kyc"
)

// TestResubmissionFromCase: a reviewer sends one step of a case back to
// the applicant from the case page; a bad form keeps the case and names
// the field; another reviewer's claim blocks it; the case then shows the
// resubmission and no decision form; a read-only role sees no form and
// is refused the action.
func TestResubmissionFromCase(t *testing.T) {
	s := newReviewStack(t)
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	jane, ben := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer), s.mustUser("ben@acme.example", "Ben Reviewer", kyc.RoleReviewer)
	viewer := s.mustUser("vera@acme.example", "Vera Viewer", kyc.RoleViewer)
	bj, bb, bv := s.browser(), s.browser(), s.browser()
	bj.login(jane)
	bb.login(ben)
	bv.login(viewer)
	casePath := "/console/live/cases/" + req.ID

	if p := bj.get(casePath); !strings.Contains(p.body, `id="redo-form"`) || !strings.Contains(p.text(), "3 of 3 resubmissions left") {
		t.Fatalf("case page lacks the resubmission form:\n%s", p.text())
	}
	if p := bv.get(casePath); strings.Contains(p.body, `id="redo-form"`) {
		t.Error("a viewer sees the resubmission form")
	}
	if p := bv.post(casePath+"/resubmission", "step", "selfie", "message", "Please take it again."); p.status != http.StatusForbidden {
		t.Errorf("viewer: %d", p.status)
	}
	for _, bad := range []struct{ step, message, field string }{
		{"selfie", "", "message"},
		{"details", "Please type them again.", "step"},
	} {
		p := bj.post(casePath+"/resubmission", "step", bad.step, "message", bad.message)
		if p.status != http.StatusBadRequest || !strings.Contains(p.body, `id="redo-`+map[string]string{"message": "message", "step": "step"}[bad.field]+`-error"`) {
			t.Errorf("%+v: %d\n%s", bad, p.status, p.text())
		}
	}
	if p := bb.post(casePath + "/claim"); p.status != http.StatusSeeOther {
		t.Fatalf("claim: %d", p.status)
	}
	if p := bj.post(casePath+"/resubmission", "step", "selfie", "message", "Please take it again."); p.status != http.StatusConflict ||
		!strings.Contains(p.text(), "Ben Reviewer is working on this case") {
		t.Errorf("while Ben holds the claim: %d %s", p.status, p.text())
	}
	p := bb.post(casePath+"/resubmission", "step", "document_front", "message", "Your photo is blurred; please take it again in good light.")
	// Viktor has no e-mail address: the notice says the integration must
	// deliver the link.
	if p.status != http.StatusSeeOther || !strings.Contains(p.header.Get("Location"), "notice=resubmission-no-email") {
		t.Fatalf("resubmission: %d %v %s", p.status, p.header, p.text())
	}
	got, err := s.st.FindKYCRequest(t.Context(), s.org.ID, kyc.Live, req.ID)
	if err != nil || got.Status != kyc.KYCResubmissionRequested || got.Attempt != 2 {
		t.Fatalf("after: %+v %v", got, err)
	}
	page := bj.get(casePath)
	text := page.text()
	for _, want := range []string{"resubmission requested", "Waiting for the applicant", "document front", "blurred", "CHECK_NOT_RUN ×7"} {
		if !strings.Contains(text, want) {
			t.Errorf("case page lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(page.body, `id="redo-form"`) || strings.Contains(page.body, "/decision\"") {
		t.Error("a case awaiting the applicant offers a decision or another resubmission")
	}
	// The message is free text about the person: like the timeline's
	// notes, only roles that see personal data read it.
	if v := bv.get(casePath).text(); !strings.Contains(v, "document front") || strings.Contains(v, "blurred") {
		t.Errorf("the viewer's case page:\n%s", v)
	}
	// The action is in the audit chain, by the user who took it.
	rows, err := s.st.FindAudit(t.Context(), req.ID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows {
		found = found || (r.Action == string(kyc.EventKYCResubmissionRequested) && r.ActorID != nil && *r.ActorID == ben.User.ID)
	}
	if !found {
		t.Errorf("audit has no resubmission by Ben: %v", rows)
	}
}

// TestBrowserResubmission is the case page's new action in Chromium: a
// reviewer asks for the document's front again with a message; the case
// page before and after passes the page checks (no CSP violation, no
// serious or critical axe-core violation, no horizontal scrolling) at 390
// and 1280 px, with screenshots.
func TestBrowserResubmission(t *testing.T) {
	s := newReviewStack(t)
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE",
		DocNumber: "T22000129", Email: "viktor@example.com"})
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	base := s.srv.URL
	casePath := "/console/live/cases/" + req.ID
	b := newTab(t, 1280)
	b.signIn(base, jane)
	for _, w := range []int64{390, 1280} {
		b.resize(w)
		b.open(base, casePath)
		b.check("resubmission-form")
	}
	b.typeInto("#redo-message", "The photo of your document is blurred. Please take it again in good light.")
	b.click("#redo-form button")
	b.waitFor(`document.body.innerText.includes('The applicant has been sent a link')`)
	if body := b.body(); !strings.Contains(body, "Waiting for the applicant") || !strings.Contains(body, "document front") {
		t.Errorf("after the resubmission:\n%s", body)
	}
	for _, w := range []int64{390, 1280} {
		b.resize(w)
		b.open(base, casePath)
		b.check("resubmission-requested")
	}
}
