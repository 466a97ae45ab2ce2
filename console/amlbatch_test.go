package console_test

import (
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestAMLBatchConsole: a reviewer uploads a CSV (one row with a bad date
// of birth, one whose name starts a spreadsheet formula) and pastes rows
// without a header; each becomes a batch whose page shows progress, then,
// after the batch job, every row's outcome or its errors. The export is a
// CSV whose formula-like cells are defused, with dates of birth for roles
// with personal data only. A viewer sees the batches but no upload form
// and is refused uploading; an empty or malformed upload is refused
// naming the field.
func TestAMLBatchConsole(t *testing.T) {
	s := newReviewStack(t)
	rev := s.mustUser("rob@acme.example", "Rob Reviewer", kyc.RoleReviewer)
	b := s.browser()
	b.login(rev)
	list := "/console/live/aml-batches"
	if p := b.get(list); !strings.Contains(p.body, `enctype="multipart/form-data"`) {
		t.Fatal("no upload form for a reviewer")
	}
	file := "firstName,lastName,dob,country,externalRef\nViktor,Petrenko,1961-04-12,RU,c-1\nAnna,Example,12/03/1980,DE,c-2\n\"=HYPERLINK(\"\"http://x\"\")\",Evil,,,c-3\n"
	p := b.multipart(list, nil, formFile{"file", "people.csv", []byte(file)})
	loc := p.header.Get("Location")
	if p.status != http.StatusSeeOther || !strings.HasPrefix(loc, list+"/amb_") {
		t.Fatalf("upload: %d %s %s", p.status, loc, p.text())
	}
	page := loc[:strings.Index(loc, "?")]
	if p := b.get(page); !strings.Contains(p.text(), "1 of 3 rows done") || !strings.Contains(p.body, "data-running") {
		t.Fatalf("before the job: %s", p.text())
	}
	if _, err := s.runner.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	p = b.get(page)
	for _, want := range []string{"3 of 3 rows done", "potential match", "dob must be a real date", "Petrenko"} {
		if !strings.Contains(p.text(), want) {
			t.Errorf("batch page lacks %q:\n%s", want, p.text())
		}
	}
	if strings.Contains(p.body, "data-running") {
		t.Error("a completed batch's page still reloads")
	}
	exp := b.get(page + "/export.csv")
	recs, err := csv.NewReader(strings.NewReader(exp.body)).ReadAll()
	if err != nil || len(recs) != 4 {
		t.Fatalf("export: %v %d rows\n%s", err, len(recs), exp.body)
	}
	if recs[0][4] != "dob" || recs[3][2] != `'=HYPERLINK("http://x")` {
		t.Errorf("export header %v, formula row %v", recs[0], recs[3])
	}

	if p := b.post(list, "rows", "Maria,Kowalczyk,1975-03-02,PL\nErika,Mustermann"); p.status != http.StatusSeeOther {
		t.Fatalf("paste: %d %s", p.status, p.text())
	}
	for _, tt := range []struct {
		name, rows, want string
	}{
		{"empty", "  ", "choose a CSV file or paste the rows"},
		{"bad csv", "firstName,lastName\n\"Anna,Example\n", "is not valid CSV"},
		{"unknown column", "firstName,lastName,salary\nA,B,1\n", "is not one of"},
	} {
		if p := b.post(list, "rows", tt.rows); p.status != http.StatusBadRequest || !strings.Contains(p.text(), tt.want) {
			t.Errorf("%s: %d, want 400 saying %q: %s", tt.name, p.status, tt.want, p.text())
		}
	}

	viewer := s.mustUser("vic@acme.example", "Vic Viewer", kyc.RoleViewer)
	vb := s.browser()
	vb.login(viewer)
	if p := vb.get(list); p.status != 200 || strings.Contains(p.body, `enctype="multipart/form-data"`) || !strings.Contains(p.body, page) {
		t.Errorf("viewer's batch list: %d", p.status)
	}
	if p := vb.post(list, "rows", "A,B"); p.status != http.StatusForbidden {
		t.Errorf("viewer uploads: %d", p.status)
	}
	if p := vb.get(page); strings.Contains(p.text(), "1961-04-12") {
		t.Error("a viewer sees dates of birth")
	}
	vexp := vb.get(page + "/export.csv")
	if head, _, _ := strings.Cut(vexp.body, "\n"); strings.Contains(head, "dob") || strings.Contains(vexp.body, "1961-04-12") {
		t.Errorf("a viewer's export holds dates of birth: %s", head)
	}
}
