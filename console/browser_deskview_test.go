package console_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"kycd/internal/realdata"
	"kycd/internal/reviewdata"
	"kycd/kyc"
	"kycd/store"
)

// TestBrowserEvidenceFirst is the reviewer's desk, part 2, in Chromium:
// the case view shows the evidence first (the document portrait and the
// selfie cropped to the same scale, the document's data beside the
// applicant's with the differences named, then the reasons and signals,
// then the decision form), the queue shows reasons in words with the code
// on hover, risk out of 100, age and due time, and the dashboard shows
// the queue and the decisions. Each page is checked at 390 and 1280 px
// (no CSP violation, no serious or critical axe-core violation, no
// horizontal scrolling) and kept as a screenshot.
func TestBrowserEvidenceFirst(t *testing.T) {
	s := newReviewStack(t, true)
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error {
		if err := tx.SetReviewSLA(s.org.ID, kyc.Live, 24); err != nil {
			return err
		}
		// The passport is a published specimen: sent to review, not
		// rejected, so that its case reaches the desk.
		return tx.SetDecisionPolicy(s.org.ID, []byte(`{"version": "desk-2", "actions": {"DOCUMENT_SPECIMEN": "review"}}`))
	}); err != nil {
		t.Fatal(err)
	}
	read := func(rel string) []byte {
		t.Helper()
		b, err := os.ReadFile(realdata.Path(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The German passport specimen (Erika Mustermann, born 1964-08-12,
	// valid until 2018-02-21) with a selfie of someone else; the applicant
	// typed her first name and the expiry otherwise. The clock goes back
	// to when the passport was valid.
	s.clock.Advance(time.Date(2017, 6, 1, 9, 0, 0, 0, time.UTC).Sub(s.clock.Now()))
	s.processed(kyc.Live, reviewdata.Person{FirstName: "Maria", LastName: "Kowalczyk", DOB: "1975", Country: "PL", DocNumber: "T22000131"})
	old := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	s.clock.Advance(26 * time.Hour)
	erika := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Erica", LastName: "Mustermann", DOB: "1964-08-12", Country: "DE",
		DocNumber: "C01X00T47", Front: read("images/doc_td3_deu_passport_specimen.jpg"), Selfie: read("images/face_eileencollins_01.png")})
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	// A senior reviewer: the screenshots in docs/console show every
	// entry of the menu, the senior queue too.
	yes := true
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		_, err = tx.UpdateUser(s.org.ID, jane.User.ID, store.UserUpdate{Senior: &yes})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ada := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	base := s.srv.URL

	b := newTab(t, 1280)
	b.signIn(base, jane)
	b.open(base, "/console/live/cases/"+erika.ID)
	// Evidence first: the faces and the comparison before the signals,
	// and the decision form after them.
	order := eval[[]string](b, `Array.from(document.querySelectorAll('main section h2')).map(function (h) { return h.id; })`)
	idx := func(id string) int {
		for i, v := range order {
			if v == id {
				return i
			}
		}
		return -1
	}
	if e, sig, dec := idx("evidence-h"), idx("signals-h"), idx("decide-h"); e != 0 || sig < e || dec < sig {
		t.Errorf("sections in order %v: want the evidence first, then signals, then the decision", order)
	}
	// Both crops are there, loaded, at the same size.
	sizes := eval[[]int64](b, `Array.from(document.querySelectorAll('#faces img')).map(function (i) { return i.complete ? i.naturalWidth : -1; })`)
	if len(sizes) != 2 || sizes[0] != 320 || sizes[1] != 320 {
		t.Errorf("face crops: %v, want two of 320 px", sizes)
	}
	body := b.body()
	for _, want := range []string{"Document portrait", "Selfie", "px between the eyes", "difference", "given names", "expiry date"} {
		if !strings.Contains(body, want) {
			t.Errorf("case lacks %q:\n%s", want, body)
		}
	}
	b.check("deskview-case")
	// The crops are personal data: a viewer gets none.
	viewer := s.mustUser("vera@acme.example", "Vera Viewer", kyc.RoleViewer)
	bv := s.browser()
	bv.login(viewer)
	if r := bv.get("/console/live/cases/" + erika.ID + "/faces/document"); r.status != http.StatusForbidden {
		t.Errorf("viewer's face crop: %d", r.status)
	}

	b.open(base, "/console/live/queue")
	body = b.body()
	for _, want := range []string{"overdue by 2 hours", "due in 24 hours", "of\u00a0100", "Possible sanctions match", "You are out"} {
		if !strings.Contains(body, want) {
			t.Errorf("queue lacks %q:\n%s", want, body)
		}
	}
	if titles := eval[[]string](b, `Array.from(document.querySelectorAll('#queue .badge[title]')).map(function (e) { return e.title; })`); len(titles) == 0 ||
		!strings.Contains(strings.Join(titles, " "), "SANCTIONS_MATCH") {
		t.Errorf("reason codes on hover: %v", titles)
	}
	for _, row := range eval[[]string](b, `Array.from(document.querySelectorAll('#queue tbody tr')).map(function (r) {
  return Array.from(r.querySelectorAll('.badge[title]')).map(function (e) { return e.title; }).join(' '); })`) {
		codes := strings.Fields(row)
		if len(codes) != len(uniqueStrings(codes)) {
			t.Errorf("a reason shown twice in one row: %v", codes)
		}
	}
	b.check("deskview-queue")
	// Jane decides the old case; the dashboard counts it.
	jb := s.browser()
	jb.login(jane)
	if r := jb.post("/console/live/cases/"+old.ID+"/decision", "decision", "approve", "reasonCode", "SCREENING_FALSE_POSITIVE", "note", "Other man."); r.status != http.StatusSeeOther {
		t.Fatalf("decision: %d %s", r.status, r.text())
	}
	b.signOut(base)
	b.signIn(base, ada)
	b.open(base, "/console/live/dashboard")
	body = b.body()
	for _, want := range []string{"1\nwaiting for review", "2\ndecided", "50%", "Jane Reviewer"} {
		if !strings.Contains(body, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, body)
		}
	}
	b.check("deskview-dashboard")
	b.resize(390)
	for _, p := range []struct{ name, path string }{
		{"deskview-case", "/console/live/cases/" + erika.ID},
		{"deskview-queue", "/console/live/queue"},
		{"deskview-dashboard", "/console/live/dashboard"},
	} {
		b.open(base, p.path)
		b.check(p.name)
	}
	// At 390 px the two faces still sit side by side.
	b.open(base, "/console/live/cases/"+erika.ID)
	if tops := eval[[]float64](b, `Array.from(document.querySelectorAll('#faces img')).map(function (i) { return i.getBoundingClientRect().top; })`); len(tops) != 2 || tops[0] != tops[1] {
		t.Errorf("faces at 390 px are not side by side: %v", tops)
	}
}

func uniqueStrings(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}
