package console_test

import (
	"net/http"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestAMLCaseConsole: confirming a match in the console opens a case the
// alert page links; a reviewer assigns it to themself, adds a note,
// records a SAR with a PDF copy (an HTML file named .pdf is refused) and
// closes it as reported; the timeline names them; an analyst reads the
// case and downloads the copy but gets no forms and is refused the
// changes; a viewer sees no download link and is refused the copy.
func TestAMLCaseConsole(t *testing.T) {
	s := newReviewStack(t)
	c := s.api(s.org.SandboxKey, "POST", "/v1/aml-checks", map[string]any{"firstName": "Sandbox", "lastName": "Sanctioned"}, http.StatusCreated)
	m := c["results"].([]any)[0].(map[string]any)["matches"].([]any)[0].(map[string]any)["id"].(string)
	rev := s.mustUser("rob@acme.example", "Rob Reviewer", kyc.RoleReviewer)
	b := s.browser()
	b.login(rev)
	alert := "/console/sandbox/alerts/" + c["id"].(string)
	if p := b.post(alert+"/matches/"+m, "decision", "confirmed", "note", "Same person."); p.status != http.StatusSeeOther ||
		!strings.Contains(p.header.Get("Location"), "notice=match-case") {
		t.Fatalf("confirm: %d %v", p.status, p.header)
	}
	cases := s.api(s.org.SandboxKey, "GET", "/v1/aml-cases", nil, http.StatusOK)["data"].([]any)
	if len(cases) != 1 {
		t.Fatalf("%d cases after confirming", len(cases))
	}
	id := cases[0].(map[string]any)["id"].(string)
	path := "/console/sandbox/aml-cases/" + id
	if p := b.get(alert); !strings.Contains(p.body, `href="`+path+`"`) {
		t.Fatal("the alert page does not link the case")
	}
	if p := b.get("/console/sandbox/aml-cases"); !strings.Contains(p.body, `href="`+path+`"`) || !strings.Contains(p.text(), "Sandbox Sanctioned") {
		t.Fatalf("the case list does not show the case: %s", p.text())
	}
	for _, kv := range [][]string{{"action", "assign", "assignee", "me"}, {"action", "note", "note", "Asked the branch for the passport."}} {
		if p := b.post(path, kv...); p.status != http.StatusSeeOther {
			t.Fatalf("%v: %d %s", kv, p.status, p.text())
		}
	}
	if p := b.post(path, "action", "close", "outcome", "reported", "note", "Filed."); p.status != http.StatusUnprocessableEntity ||
		!strings.Contains(p.text(), "Record the suspicious-activity report") {
		t.Fatalf("closed as reported without a SAR: %d", p.status)
	}
	if p := b.multipart(path+"/sar", []string{"reference", "FIU-7", "filedOn", "2026-01-02"},
		formFile{"file", "sar.pdf", []byte("<html><script>alert(1)</script></html>")}); p.status != http.StatusBadRequest ||
		!strings.Contains(p.text(), "must be a PDF, PNG, JPEG or XML file") {
		t.Fatalf("HTML as a SAR copy: %d %s", p.status, p.text())
	}
	pdf := []byte("%PDF-1.4\n% the report\n%%EOF\n")
	if p := b.multipart(path+"/sar", []string{"reference", "FIU-7", "filedOn", "2026-01-02"}, formFile{"file", "sar.pdf", pdf}); p.status != http.StatusSeeOther {
		t.Fatalf("SAR: %d %s", p.status, p.text())
	}
	if p := b.post(path, "action", "close", "outcome", "reported", "note", "Filed; relationship ended."); p.status != http.StatusSeeOther {
		t.Fatalf("close: %d %s", p.status, p.text())
	}
	p := b.get(path)
	for _, want := range []string{"Rob Reviewer", "Asked the branch for the passport.", "reference FIU-7", "reported", "Closed: reported"} {
		if !strings.Contains(p.text(), want) {
			t.Errorf("case page lacks %q", want)
		}
	}

	analyst := s.mustUser("ann@acme.example", "Ann Analyst", kyc.RoleAnalyst)
	ab := s.browser()
	ab.login(analyst)
	ap := ab.get(path)
	if ap.status != 200 || strings.Contains(ap.body, `method="post" action="`+path) || !strings.Contains(ap.body, path+"/sar/file") {
		t.Fatalf("analyst's case page: %d forms=%v", ap.status, strings.Contains(ap.body, `action="`+path))
	}
	if dl := ab.get(path + "/sar/file"); dl.status != 200 || dl.body != string(pdf) || !strings.HasPrefix(dl.header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("analyst download: %d %v", dl.status, dl.header)
	}
	if p := ab.post(path, "action", "reopen", "note", "x"); p.status != http.StatusForbidden {
		t.Errorf("analyst reopens: %d", p.status)
	}
	viewer := s.mustUser("vic@acme.example", "Vic Viewer", kyc.RoleViewer)
	vb := s.browser()
	vb.login(viewer)
	if p := vb.get(path); p.status != 200 || strings.Contains(p.body, "/sar/file") {
		t.Errorf("viewer's case page: %d, download link shown: %v", p.status, strings.Contains(p.body, "/sar/file"))
	}
	if p := vb.get(path + "/sar/file"); p.status != http.StatusForbidden {
		t.Errorf("viewer downloads: %d", p.status)
	}
}
