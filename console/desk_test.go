package console_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"
	"time"

	"kycd/console"
	"kycd/internal/reviewdata"
	"kycd/kyc"
	"kycd/store"
)

// TestVerificationsList: the list of all verifications shows every
// request of the environment (awaiting and decided, by the engine or a
// person), filters by status, decision, reason, decider, assignee, risk
// and dates, refuses filters the form cannot produce, and stays inside
// its environment.
func TestVerificationsList(t *testing.T) {
	s := newReviewStack(t)
	viktor := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	// Maria is on the test sanctions list: the engine rejects her.
	if maria := s.processed(kyc.Live, reviewdata.Person{FirstName: "Maria", LastName: "Kowalczyk", DOB: "1975", Country: "PL", DocNumber: "T22000130"}); maria.Status != kyc.KYCRejected {
		t.Fatalf("Maria: %s", maria.Status)
	}
	sandra := s.awaiting(kyc.Sandbox, reviewdata.Person{FirstName: "Sandra", LastName: "Review", DOB: "1980-01-01", Country: "DE", DocNumber: "T22000131"})
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	b := s.browser()
	b.login(jane)
	if r := b.post("/console/sandbox/cases/"+sandra.ID+"/decision", "decision", "reject", "reasonCode", "DOCUMENT_FORGED", "note", "Forged."); r.status != http.StatusSeeOther {
		t.Fatalf("decision: %d %s", r.status, r.text())
	}
	if r := b.post("/console/live/cases/"+viktor.ID+"/assign", "assignee", "me"); r.status != http.StatusSeeOther {
		t.Fatalf("assign: %d %s", r.status, r.text())
	}
	day := s.clock.Now().UTC().Format(time.DateOnly)
	tomorrow := s.clock.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	for _, tc := range []struct {
		query     string
		viktor    bool
		maria     bool
		wantCount string
	}{
		{"", true, true, "2 requests"},
		{"status=awaiting_review", true, false, "1 request."},
		{"status=rejected", false, true, "1 request."},
		{"decision=rejected", false, true, ""},
		{"decision=pending", true, false, ""},
		{"decidedBy=engine", false, true, ""},
		{"decidedBy=person", false, false, "0 requests"},
		{"assignee=me", true, false, ""},
		{"assignee=none", false, true, ""},
		{"assignee=" + jane.User.ID, true, false, ""},
		{"reason=SANCTIONS_MATCH", true, true, ""},
		{"reason=FACE_MISMATCH", false, false, ""},
		{"riskMin=0&riskMax=100", true, true, ""},
		{"createdFrom=" + day + "&createdTo=" + day, true, true, ""},
		{"createdFrom=" + tomorrow, false, false, ""},
		{"decidedFrom=" + day + "&decidedTo=" + day, false, true, ""},
		{"decidedTo=" + day + "&sort=decided", false, true, ""},
		{"sort=risk", true, true, ""},
		{"sort=oldest", true, true, ""},
	} {
		p := b.get("/console/live/verifications?" + tc.query)
		if p.status != http.StatusOK {
			t.Errorf("%s: %d %s", tc.query, p.status, p.text())
			continue
		}
		txt := p.text()
		if strings.Contains(txt, "Viktor Petrenko") != tc.viktor || strings.Contains(txt, "Maria Kowalczyk") != tc.maria {
			t.Errorf("%s: Viktor %v Maria %v, want %v %v", tc.query, strings.Contains(txt, "Viktor Petrenko"), strings.Contains(txt, "Maria Kowalczyk"), tc.viktor, tc.maria)
		}
		if tc.wantCount != "" && !strings.Contains(txt, tc.wantCount) {
			t.Errorf("%s: count: %s", tc.query, txt)
		}
		if strings.Contains(txt, "Sandra Review") {
			t.Errorf("%s: the sandbox request is in the live list", tc.query)
		}
	}
	// The sort orders put the newest (Maria) or the oldest (Viktor) first.
	if txt := b.get("/console/live/verifications?sort=oldest").text(); strings.Index(txt, "Viktor") > strings.Index(txt, "Maria") {
		t.Errorf("oldest first: %s", txt)
	}
	if txt := b.get("/console/live/verifications").text(); strings.Index(txt, "Maria") > strings.Index(txt, "Viktor") {
		t.Errorf("newest first: %s", txt)
	}
	if txt := b.get("/console/live/verifications").text(); !strings.Contains(txt, "by the engine") {
		t.Errorf("decider not shown: %s", txt)
	}
	if txt := b.get("/console/sandbox/verifications?decidedBy=person").text(); !strings.Contains(txt, "Sandra Review") || !strings.Contains(txt, "by a reviewer") {
		t.Errorf("sandbox decided by a person: %s", txt)
	}
	for _, q := range []string{"status=done", "decision=maybe", "sort=name", "decidedBy=robot", "riskMin=101", "riskMax=x", "createdFrom=27.11.2026",
		"reason=A%20B", "assignee=" + strings.Repeat("x", 65)} {
		if p := b.get("/console/live/verifications?" + q); p.status != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", q, p.status)
		}
	}
	if txt := b.get("/console/sandbox/verifications").text(); !strings.Contains(txt, "Sandra Review") || strings.Contains(txt, "Viktor") || strings.Contains(txt, "Maria") {
		t.Errorf("sandbox list: %s", txt)
	}
}

// TestVerificationsExport: the CSV has every matching row, contact
// details only for roles with personal data, and no cell a spreadsheet
// would run as a formula; the export is audited.
func TestVerificationsExport(t *testing.T) {
	s := newReviewStack(t)
	viktor := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129",
		Email: "viktor@example.com", ExternalRef: `=HYPERLINK("http://evil.example","x")`})
	s.processed(kyc.Live, reviewdata.Person{FirstName: "Maria", LastName: "Kowalczyk", DOB: "1975", Country: "PL", DocNumber: "T22000130",
		ExternalRef: "@SUM(1+1)"})
	// Viktor's case is tagged and rejected with two codes: the list shows
	// the tags, the export both.
	rb := s.browser()
	rb.login(s.mustUser("rita@acme.example", "Rita Reviewer", kyc.RoleReviewer))
	casePath := "/console/live/cases/" + viktor.ID
	for _, tag := range []string{"vip", "ring:7"} {
		if r := rb.post(casePath+"/tags", "tag", tag); r.status != http.StatusSeeOther {
			t.Fatalf("tag %s: %d %s", tag, r.status, r.text())
		}
	}
	if r := rb.post(casePath+"/decision", "decision", "reject", "reasonCode", "SANCTIONS_MATCH", "reasonCodes", "DOCUMENT_FORGED",
		"note", "Listed."); r.status != http.StatusSeeOther {
		t.Fatalf("decision: %d %s", r.status, r.text())
	}
	if p := rb.get("/console/live/verifications"); !strings.Contains(p.body, `<th scope="col">Tags</th>`) ||
		!strings.Contains(p.body, `<span class="badge">ring:7</span> <span class="badge">vip</span>`) {
		t.Errorf("the list lacks the tags column or Viktor's tags: %s", p.text())
	}
	read := func(role kyc.Role) [][]string {
		t.Helper()
		p := s.mustUser(string(role)+"@acme.example", "Test "+string(role), role)
		b := s.browser()
		b.login(p)
		r := b.get("/console/live/verifications/export.csv?sort=oldest")
		if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") {
			t.Fatalf("%s export: %d %s", role, r.status, r.body)
		}
		rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	col := func(rows [][]string, name string) int {
		for i, h := range rows[0] {
			if h == name {
				return i
			}
		}
		return -1
	}
	admin := read(kyc.RoleAdmin)
	if len(admin) != 3 {
		t.Fatalf("admin export: %d rows: %v", len(admin), admin)
	}
	e, ref := col(admin, "email"), col(admin, "applicantExternalRef")
	if e < 0 || !strings.Contains(admin[1][e]+admin[2][e], "viktor@example.com") {
		t.Errorf("admin export without contact details: %v", admin)
	}
	for _, row := range admin[1:] {
		for i, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("cell %s is a formula: %q", admin[0][i], cell)
			}
		}
	}
	if refs := admin[1][ref] + " " + admin[2][ref]; !strings.Contains(refs, `'=HYPERLINK(`) || !strings.Contains(refs, "'@SUM(1+1)") {
		t.Errorf("formula cells not quoted: %s", refs)
	}
	tags, codes := col(admin, "tags"), col(admin, "decisionReasonCodes")
	if tags < 0 || codes < 0 {
		t.Fatalf("export lacks the tags or decisionReasonCodes column: %v", admin[0])
	}
	for _, row := range admin[1:] {
		want := [2]string{"", ""}
		if row[3] == "Viktor" {
			want = [2]string{"ring:7 vip", "SANCTIONS_MATCH DOCUMENT_FORGED"}
		}
		if got := [2]string{row[tags], row[codes]}; got != want {
			t.Errorf("%s's tags and decision codes: %q, want %q", row[3], got, want)
		}
	}
	// Read one row at a time: the export pages by id (newest, oldest) or
	// by offset (risk) and must list each row once.
	defer console.SetExportChunk(1)()
	for _, sort := range []string{"newest", "oldest", "risk"} {
		p := s.mustUser("paging-"+sort+"@acme.example", "Paging "+sort, kyc.RoleAnalyst)
		b := s.browser()
		b.login(p)
		r := b.get("/console/live/verifications/export.csv?sort=" + sort)
		rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
		if err != nil || len(rows) != 3 || rows[1][0] == rows[2][0] {
			t.Errorf("export sorted by %s, one row a page: %v %v", sort, rows, err)
		}
		if sort == "oldest" && len(rows) == 3 && rows[1][3] != "Viktor" {
			t.Errorf("oldest first: %v", rows)
		}
	}
	viewer := read(kyc.RoleViewer)
	if col(viewer, "email") >= 0 || col(viewer, "phone") >= 0 || strings.Contains(strings.Join(viewer[1], ",")+strings.Join(viewer[2], ","), "viktor@example.com") {
		t.Errorf("viewer export has contact details: %v", viewer)
	}
	rows, err := s.st.FindAuditRows(t.Context(), store.AuditFilter{OrganizationID: s.org.ID}, 100)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r.Action == "kyc.verifications_exported" {
			n++
		}
	}
	if n != 5 {
		t.Errorf("%d export audit entries, want 5 (one per download)", n)
	}
}

// processed submits p in env and runs the processing job, whatever the
// engine decides.
func (s *reviewStack) processed(e kyc.Environment, p reviewdata.Person) *kyc.KYCRequest {
	s.t.Helper()
	req, err := reviewdata.Submit(s.t.Context(), s.st, s.kyc, s.org.ID, e, p)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.runner.RunOnce(s.t.Context()); err != nil {
		s.t.Fatal(err)
	}
	got, err := s.st.FindKYCRequest(s.t.Context(), s.org.ID, e, req.ID)
	if err != nil {
		s.t.Fatal(err)
	}
	return got
}
