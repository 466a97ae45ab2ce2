package console_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kycd/internal/realdata"
	"kycd/internal/reviewdata"
	"kycd/kyc"
	"kycd/store"
	"kycd/users"
)

// TestBrowserDesk is a compliance team's day in Chromium: an admin signs
// in with password and TOTP (typed, keyboard only); a reviewer signs in
// without TOTP, claims a case from the queue and approves it; four-eyes
// makes a second reviewer confirm; a reviewer decides two AML matches;
// a monitoring re-screen with a new list version does not re-alert on the
// false positive, and one that changes the listed entity does, saying
// what changed. Every console page is checked at 390 and 1280 px: no CSP
// violation, no serious or critical axe-core violation, no horizontal
// scrolling; screenshots go to $KYCD_TEST_ARTIFACTS.
func TestBrowserDesk(t *testing.T) {
	s := newReviewStack(t, true)
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetFourEyes(s.org.ID, true) }); err != nil {
		t.Fatal(err)
	}
	// The desk is shown a real document read from its photo: the German
	// passport specimen. The default policy rejects published specimens
	// (DOCUMENT_SPECIMEN); this organization sends them to review, so that
	// the case reaches the queue with the finding shown.
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error {
		return tx.SetDecisionPolicy(s.org.ID, []byte(`{"version": "desk-1", "actions": {"DOCUMENT_SPECIMEN": "review"}}`))
	}); err != nil {
		t.Fatal(err)
	}
	viktor := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE",
		DocNumber: "T22000129", Email: "viktor@example.com"})
	// A real passport specimen (Erika Mustermann, born 1964-08-12, valid
	// until 2018-02-21): the engine reads its MRZ; the applicant typed
	// her first name differently. The clock goes back to when it was valid.
	front, err := os.ReadFile(realdata.Path(t, "images/doc_td3_deu_passport_specimen.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	s.clock.Advance(time.Date(2017, 6, 1, 9, 0, 0, 0, time.UTC).Sub(s.clock.Now()))
	erika := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Erica", LastName: "Mustermann", DOB: "1964-08-12", Country: "DE",
		DocNumber: "C01X00T47", ExternalRef: "customer-7", Front: front})
	s.awaiting(kyc.Sandbox, reviewdata.Person{FirstName: "Sam", LastName: "Review", DOB: "1990-01-01", Country: "GB", DocNumber: "S1"})
	check := s.api(s.org.LiveKey, "POST", "/v1/aml-checks", map[string]any{"firstName": "Viktor", "lastName": "Petrenko", "monitoring": true}, http.StatusCreated)
	sbx := s.api(s.org.SandboxKey, "POST", "/v1/aml-checks", map[string]any{"firstName": "Sandbox", "lastName": "Everything"}, http.StatusCreated)

	ada := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	ada.Secret = s.enableTOTP(ada)
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	ben := s.mustUser("ben@acme.example", "Ben Reviewer", kyc.RoleReviewer)
	base := s.srv.URL
	b := newTab(t, 390)

	// Sign in with TOTP, keyboard only; the sign-in pages at both widths.
	b.open(base, "/console/live/queue")
	if !b.at("/console/login") {
		t.Fatalf("anonymous queue went to %s", eval[string](b, `location.href`))
	}
	b.check("login")
	b.resize(1280)
	b.check("login")
	b.typeInto("#email", ada.User.Email)
	b.do(chromeKey("\t"))
	b.do(chromeKey(ada.Password))
	b.submit()
	if !b.at("/console/login/code") {
		t.Fatalf("after the password: %s", eval[string](b, `location.href`))
	}
	b.check("code")
	b.resize(390)
	b.check("code")
	b.typeInto("#code", codeAt(t, ada.Secret, s.clock.Now()))
	b.submit()
	if !b.at("/console/live/queue") || !strings.Contains(b.body(), "Viktor Petrenko") {
		t.Fatalf("after the code: %s\n%s", eval[string](b, `location.href`), b.body())
	}

	// Every page an admin reaches, at both widths.
	link := s.inviteLink("new@acme.example")
	pages := []struct{ name, path string }{
		{"queue", "/console/live/queue"},
		{"queue-filtered", "/console/live/queue?claim=unclaimed&reason=SANCTIONS_MATCH"},
		{"queue-sandbox", "/console/sandbox/queue"},
		{"case", "/console/live/cases/" + erika.ID},
		{"alerts", "/console/live/alerts"},
		{"alert", "/console/live/alerts/" + check["id"].(string)},
		{"alert-sandbox", "/console/sandbox/alerts/" + sbx["id"].(string)},
		{"applicants", "/console/live/applicants?q=petrenko"},
		{"applicant", "/console/live/applicants/" + viktor.ApplicantID},
		{"users", "/console/users"},
		{"account", "/console/account"},
		{"not-found", "/console/live/cases/kyc_00000000000000000000000000"},
		{"set-password", strings.TrimPrefix(link, base)},
	}
	for _, w := range []int64{390, 1280} {
		b.resize(w)
		for _, p := range pages {
			b.open(base, p.path)
			b.check(p.name)
		}
	}
	// A new link for a user who has a password goes by e-mail only: the
	// page says so and shows no link (issue 23 item 1).
	b.open(base, "/console/users")
	b.click(`form[action="/console/users/` + jane.User.ID + `/link"] button`)
	b.waitFor(`document.body.innerText.includes('to them only')`)
	if strings.Contains(eval[string](b, `document.body.innerHTML`), "set-password?token=") {
		t.Error("the users page shows a reviewer's reset link")
	}
	b.check("users-link-emailed")
	if body := b.bodyAt(base, "/console/live/cases/"+erika.ID); !strings.Contains(body, "Given names differs") || strings.Contains(body, "Date of birth differs") ||
		!strings.Contains(body, "MUSTERMANN") {
		t.Errorf("the case does not highlight the document's differences:\n%s", body)
	}
	// The document-authenticity signals, with their findings and the
	// measurement in the message, are on the case.
	if body := b.bodyAt(base, "/console/live/cases/"+erika.ID); !strings.Contains(body, "document specimen") ||
		!strings.Contains(body, "DOCUMENT_SPECIMEN: The holder ERIKA MUSTERMANN is a published specimen") ||
		!strings.Contains(body, "document rendering") || !strings.Contains(body, "DOCUMENT_UPLOADED") {
		t.Errorf("the case does not show the authenticity signals:\n%s", body)
	}
	b.signOut(base)

	// A reviewer works the queue: claims the sanctions case and decides
	// first (four-eyes).
	b.signIn(base, jane)
	b.click(`form[action="/console/live/cases/` + viktor.ID + `/claim"] button`)
	if !b.at("/console/live/cases/"+viktor.ID) || !strings.Contains(b.body(), "You have claimed this case") {
		t.Fatalf("after claiming: %s", b.body())
	}
	b.check("case-claimed")
	b.press(`input[name=decision][value=approve]`)
	b.do(chromedpSetValue("#reasonCode", "SCREENING_FALSE_POSITIVE"))
	b.typeInto("#note", "The listed Viktor Petrenko is Russian; this applicant is German, same date of birth by chance.")
	b.click(`#decide button[type=submit]`)
	if !strings.Contains(b.body(), "a second, different reviewer must confirm it") {
		t.Fatalf("first decision: %s", b.body())
	}
	b.check("case-first-decision")
	b.signOut(base)

	// The second reviewer confirms.
	b.signIn(base, ben)
	b.open(base, "/console/live/queue?foureyes=1")
	if !strings.Contains(b.body(), "second reviewer needed") {
		t.Fatalf("four-eyes filter: %s", b.body())
	}
	b.click(`#queue a[href="/console/live/cases/` + viktor.ID + `"]`)
	if !strings.Contains(b.body(), "First decision: approve by Jane Reviewer") {
		t.Fatalf("second reviewer's case: %s", b.body())
	}
	b.press(`input[name=decision][value=approve]`)
	b.typeInto("#note", "Agreed.")
	b.click(`#decide button[type=submit]`)
	if got := eval[string](b, `document.getElementById('case-status').innerText`); !strings.Contains(got, "approved") {
		t.Fatalf("after confirmation: %s", got)
	}
	b.check("case-approved")
	if r, _ := s.st.FindKYCRequest(t.Context(), s.org.ID, kyc.Live, viktor.ID); r.Status != kyc.KYCApproved {
		t.Fatalf("stored status %s", r.Status)
	}

	// Two AML matches decided in sandbox; the live one marked false positive.
	sid := sbx["id"].(string)
	ids := matchIDsOf(sbx)
	for i, d := range []string{"false_positive", "confirmed"} {
		b.open(base, "/console/sandbox/alerts/"+sid)
		b.press(`form[action$="/matches/` + ids[i] + `"] input[value=` + d + `]`)
		b.typeInto("#"+ids[i]+"-note", "Decided in the browser test.")
		b.click(`form[action$="/matches/` + ids[i] + `"] button[type=submit]`)
		if !strings.Contains(b.body(), "Your decision on the match is recorded") {
			t.Fatalf("match decision %d: %s", i, b.body())
		}
	}
	b.check("alert-two-decided")
	lid := check["id"].(string)
	lm := matchIDsOf(check)[0]
	b.open(base, "/console/live/alerts/"+lid)
	b.press(`form[action$="/matches/` + lm + `"] input[value=false_positive]`)
	b.typeInto("#"+lm+"-note", "Different nationality.")
	b.click(`form[action$="/matches/` + lm + `"] button[type=submit]`)
	if got := eval[string](b, `document.getElementById('review-status').innerText`); !strings.Contains(got, "resolved") {
		t.Fatalf("after the false positive: %s", got)
	}

	// A new list version that leaves the entity as it was: no alert.
	list := append([]reviewdata.Listed(nil), watchList...)
	list = append(list, reviewdata.Listed{Reference: "TS-3", Name: "Somebody Else", DOB: "1950", Country: "FR", Reason: "Other"})
	s.importAndMonitor(list)
	b.open(base, "/console/live/alerts/"+lid)
	last := eval[string](b, `(function () { var r = document.querySelectorAll('#history tbody tr'); return r[r.length - 1].innerText; })()`)
	if !strings.Contains(last, "list update") || !strings.Contains(last, "no") || s.alertCount(kyc.Live) != 0 {
		t.Fatalf("re-screen on an unchanged entity alerted: %q, %d alerts", last, s.alertCount(kyc.Live))
	}
	// One that changes it: an alert that says what changed.
	list[0].DOB, list[0].Reason = "1961-04-12;1970-01-01", "Listed again in 2026"
	s.importAndMonitor(list)
	b.open(base, "/console/live/alerts/"+lid)
	if body := b.body(); !strings.Contains(body, "The list's entry changed after this decision") || !strings.Contains(body, "added 1970-01-01") ||
		s.alertCount(kyc.Live) != 1 {
		t.Fatalf("after the entity changed (%d alerts): %s", s.alertCount(kyc.Live), body)
	}
	b.check("alert-entity-changed")
}

// inviteLink invites a user and returns their one-time link.
func (s *reviewStack) inviteLink(email string) string {
	s.t.Helper()
	var link string
	err := s.st.InTx(s.t.Context(), func(tx *store.Tx) (err error) {
		_, link, err = s.users.Invite(tx, s.org.ID, usersInvite(email), systemActor)
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return link
}

// importAndMonitor imports a new version of the test list and runs the
// monitor job it queues.
func (s *reviewStack) importAndMonitor(rows []reviewdata.Listed) {
	s.t.Helper()
	if err := reviewdata.ImportList(s.t.Context(), s.st, s.t.TempDir(), "test-sanctions", rows); err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.runner.RunOnce(s.t.Context()); err != nil {
		s.t.Fatal(err)
	}
}

// alertCount counts the monitoring alerts fired in env.
func (s *reviewStack) alertCount(e kyc.Environment) int {
	s.t.Helper()
	n, err := s.st.CountEvents(s.t.Context(), s.org.ID, e, string(kyc.EventAMLMonitoringAlert))
	if err != nil {
		s.t.Fatal(err)
	}
	return n
}

func matchIDsOf(c map[string]any) []string {
	var ids []string
	for _, r := range c["results"].([]any) {
		for _, m := range r.(map[string]any)["matches"].([]any) {
			ids = append(ids, m.(map[string]any)["id"].(string))
		}
	}
	return ids
}

// signIn signs p in through the form (no second factor).
func (b *tab) signIn(base string, p *person) {
	b.t.Helper()
	b.open(base, "/console/login")
	b.typeInto("#email", p.User.Email)
	b.typeInto("#password", p.Password)
	b.submit()
	if !b.at("/console/live/queue") {
		b.fail(errorf("sign-in of %s ended at %s", p.User.Email, eval[string](b, `location.href`)))
	}
}

func (b *tab) bodyAt(base, path string) string {
	b.open(base, path)
	return b.body()
}

func chromeKey(keys string) chromedp.Action[chromedp.Void] { return chromedp.KeyEvent(keys) }

func chromedpSetValue(css, v string) chromedp.Action[chromedp.Void] {
	return chromedp.SetValue(chromedp.CSS(css), v)
}

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

func usersInvite(email string) users.InviteInput {
	return users.InviteInput{Email: email, Name: "New Person", Role: kyc.RoleAnalyst}
}

var systemActor = users.Actor{Type: kyc.ActorSystem, ID: "test"}
