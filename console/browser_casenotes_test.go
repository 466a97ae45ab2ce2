package console_test

import (
	"strings"
	"testing"

	"kycd/internal/reviewdata"
	"kycd/kyc"
	"kycd/store"
)

// TestBrowserCaseNotes is the case page's tags, comments and reason codes
// in Chromium: a reviewer tags a case and comments with a mention by
// typing and pressing the buttons, decides with a main code and a further
// one of the organization's, and an admin opens the settings' reason
// codes. The case page (before and after the decision) and the settings
// are checked at 390 and 1280 px (no CSP violation, no serious or
// critical axe-core violation, no horizontal scrolling) and kept as
// screenshots.
func TestBrowserCaseNotes(t *testing.T) {
	s := newReviewStack(t)
	viktor := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	other := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Erika", LastName: "Mustermann", DOB: "1964-01-01", Country: "DE", DocNumber: "T22000130"})
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error {
		_, err := tx.CreateReasonCode(s.org.ID, kyc.Live, "SOURCE_OF_FUNDS_UNCLEAR", "Source of funds unclear")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	s.mustUser("ann@acme.example", "Ann Analyst", kyc.RoleAnalyst)
	admin := s.mustUser("boss@acme.example", "Boss Admin", kyc.RoleAdmin)
	base := s.srv.URL
	casePath := "/console/live/cases/" + viktor.ID

	b := newTab(t, 1280)
	b.signIn(base, jane)
	b.open(base, casePath)
	b.typeInto("#tag", "needs-callback")
	b.click(`form[action$="/tags"] button`)
	b.waitFor(`document.body.innerText.includes('The tag is added.')`)
	b.typeInto("#comment-body", "Called the applicant, no answer. @[Ann Analyst] can you try tomorrow?")
	b.click(`form[action$="/comments"] button`)
	b.waitFor(`document.body.innerText.includes('colleagues you mentioned are e-mailed')`)
	if body := b.body(); !strings.Contains(body, "needs-callback") || !strings.Contains(body, "no answer") || !strings.Contains(body, "mentioned Ann Analyst") {
		t.Errorf("case after tag and comment:\n%s", body)
	}
	for _, w := range []int64{390, 1280} {
		b.resize(w)
		b.open(base, casePath)
		b.press("#more-codes summary")
		b.check("notes-case")
		b.open(base, "/console/live/verifications?tag=needs-callback")
		if body := b.body(); !strings.Contains(body, "Viktor Petrenko") || strings.Contains(body, "Erika Mustermann") {
			t.Errorf("verifications by tag at %d px:\n%s", w, body)
		}
		b.check("notes-verifications-tag")
	}
	// The decision with a main code and a further one.
	b.open(base, casePath)
	b.press(`input[name="decision"][value="reject"]`)
	b.do(chromedpSetValue("#reasonCode", "DATA_MISMATCH"))
	b.press("#more-codes summary")
	b.press(`input[name="reasonCodes"][value="SOURCE_OF_FUNDS_UNCLEAR"]`)
	b.typeInto("#note", "The address differs and the funds are not explained.")
	b.click(`form[action$="/decision"] button[type="submit"]`)
	b.waitFor(`document.body.innerText.includes('Your decision is recorded.')`)
	if body := b.body(); !strings.Contains(body, "Data differs from the document") || !strings.Contains(body, "Source of funds unclear") {
		t.Errorf("case after the decision:\n%s", body)
	}
	for _, w := range []int64{390, 1280} {
		b.resize(w)
		b.open(base, casePath)
		b.check("notes-case-decided")
	}

	a := newTab(t, 1280)
	a.signIn(base, admin)
	for _, w := range []int64{390, 1280} {
		a.resize(w)
		a.open(base, "/console/settings#reason-codes")
		a.check("notes-settings")
	}
	a.open(base, "/console/settings")
	a.typeInto("#code-code", "PROOF_OF_ADDRESS_MISSING")
	a.typeInto("#code-label", "Proof of address missing")
	a.click(`form[action="/console/settings/reason-codes"] button`)
	a.waitFor(`document.body.innerText.includes('The reason code is added.')`)
	if body := a.body(); !strings.Contains(body, "PROOF_OF_ADDRESS_MISSING") {
		t.Errorf("settings after adding a code:\n%s", body)
	}
	_ = other
}
