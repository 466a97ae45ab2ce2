package console_test

import (
	"net/http"
	"strings"
	"testing"

	"kycd/internal/reviewdata"
	"kycd/kyc"
	"kycd/store"
)

// TestBrowserAMLWork is an analyst's AML work in Chromium: a confirmed
// match's case in the list and on its page (assigned, with a note), and a
// batch pasted into the upload page and screened (its rows' outcomes and
// errors); every page checked at 390 and 1280 px (no CSP violation, no serious
// or critical axe-core violation, no horizontal scrolling) and kept as
// screenshots.
func TestBrowserAMLWork(t *testing.T) {
	s := newReviewStack(t)
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetReviewSLA(s.org.ID, kyc.Sandbox, 24) }); err != nil {
		t.Fatal(err)
	}
	c := s.api(s.org.SandboxKey, "POST", "/v1/aml-checks", map[string]any{"firstName": "Sandbox", "lastName": "Sanctioned"}, http.StatusCreated)
	m := c["results"].([]any)[0].(map[string]any)["matches"].([]any)[0].(map[string]any)["id"].(string)
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	base := s.srv.URL
	b := newTab(t, 1280)
	b.signIn(base, jane)
	b.open(base, "/console/sandbox/alerts/"+c["id"].(string))
	form := `form[action$="/matches/` + m + `"]`
	eval[any](b, `document.querySelector('`+form+` input[value="confirmed"]').checked = true`)
	b.typeInto(form+` textarea[name="note"]`, "Same person: date of birth and passport agree.")
	b.click(form + ` button`)
	b.waitFor(`document.body.innerText.includes('A confirmed match is investigated in an AML case')`)
	b.open(base, "/console/sandbox/aml-cases")
	if body := b.body(); !strings.Contains(body, "Sandbox Sanctioned") || !strings.Contains(body, "nobody") {
		t.Fatalf("case list:\n%s", body)
	}
	cases := s.api(s.org.SandboxKey, "GET", "/v1/aml-cases", nil, http.StatusOK)["data"].([]any)
	id := cases[0].(map[string]any)["id"].(string)
	s.api(s.org.SandboxKey, "PATCH", "/v1/aml-cases/"+id, map[string]any{"assigneeId": jane.User.ID, "note": "Jane takes it."}, http.StatusOK)
	// A comment with a mention, typed into the case's thread.
	s.mustUser("ann@acme.example", "Ann Analyst", kyc.RoleAnalyst)
	b.open(base, "/console/sandbox/aml-cases/"+id)
	b.typeInto(`#comment-body`, "The registry extract gives another birth year. @[Ann Analyst] can you check the source?")
	b.click(`form[action$="/aml-cases/` + id + `/comments"] button`)
	b.waitFor(`document.body.innerText.includes('The colleagues you mentioned are e-mailed')`)
	// A batch pasted into the upload page, screened by the job.
	b.open(base, "/console/sandbox/aml-batches")
	b.typeInto(`#batch-rows`, "Sandbox,Sanctioned,1970-01-01,RU,c-1\nAnna,Example,12/03/1980,DE,c-2\nMaria,Kowalczyk")
	b.click(`form[action$="/aml-batches"] button`)
	b.waitFor(`document.body.innerText.includes('The batch is uploaded')`)
	batch := eval[string](b, `location.pathname`)
	if _, err := s.runner.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	b.open(base, batch)
	if body := b.body(); !strings.Contains(body, "3 of 3 rows done") || !strings.Contains(body, "must be a real date") {
		t.Errorf("batch page:\n%s", body)
	}
	pages := []struct{ name, path string }{
		{"aml-cases", "/console/sandbox/aml-cases"},
		{"aml-case", "/console/sandbox/aml-cases/" + id},
		{"aml-batches", "/console/sandbox/aml-batches"},
		{"aml-batch", batch},
	}
	for _, w := range []int64{390, 1280} {
		b.resize(w)
		for _, p := range pages {
			b.open(base, p.path)
			b.check(p.name)
		}
	}
	b.open(base, "/console/sandbox/aml-cases/"+id)
	if body := b.body(); !strings.Contains(body, "Jane takes it.") || !strings.Contains(body, "Close with an outcome") ||
		!strings.Contains(body, "mentioned Ann Analyst") {
		t.Errorf("case page:\n%s", body)
	}
}

// TestBrowserEscalation is escalation in Chromium: a senior reviewer
// escalates a case from its page (any reviewer may; one tab and one
// sign-in keep the test short), finds it in the senior queue and opens
// it. The senior queue and the escalated case are checked at 390
// and 1280 px (no CSP violation, no serious or critical axe-core
// violation, no horizontal scrolling) and kept as screenshots.
func TestBrowserEscalation(t *testing.T) {
	s := newReviewStack(t)
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	sue := s.mustUser("sue@acme.example", "Sue Senior", kyc.RoleReviewer)
	yes := true
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		_, err = tx.UpdateUser(s.org.ID, sue.User.ID, store.UserUpdate{Senior: &yes})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	base := s.srv.URL
	b := newTab(t, 1280)
	b.signIn(base, sue)
	b.open(base, "/console/live/cases/"+req.ID)
	eval[any](b, `document.querySelector('#escalate').open = true`)
	b.typeInto(`#escalate-reason`, "The passport photo looks re-laminated; please take a second look.")
	b.click(`#escalate button`)
	b.waitFor(`document.body.innerText.includes('waits in the senior queue')`)
	pages := []struct{ name, path string }{
		{"senior-queue", "/console/live/senior-queue"},
		{"escalated-case", "/console/live/cases/" + req.ID},
	}
	for _, w := range []int64{390, 1280} {
		b.resize(w)
		for _, p := range pages {
			b.open(base, p.path)
			b.check(p.name)
		}
	}
	if body := b.body(); !strings.Contains(body, "re-laminated") || !strings.Contains(body, "Return to the review queue") {
		t.Errorf("escalated case for the senior:\n%s", body)
	}
	b.open(base, "/console/live/senior-queue")
	if body := b.body(); !strings.Contains(body, "Viktor Petrenko") {
		t.Errorf("senior queue:\n%s", body)
	}
}
