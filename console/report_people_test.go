package console_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kycd/internal/reviewdata"
	"kycd/kyc"
)

// pdfFlow is a PDF's text in reading order with white space made single
// spaces (pdftotext -raw), so a phrase wrapped in a table cell reads whole.
func pdfFlow(t *testing.T, pdf string) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pdftotext is required under CI=true (apt-get install poppler-utils)")
		}
		t.Skip("pdftotext not installed")
	}
	path := filepath.Join(t.TempDir(), "report.pdf")
	if err := os.WriteFile(path, []byte(pdf), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-raw", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// TestAlertReportShowsDecisions: the AML PDF of a check whose matches were
// all decided shows each decision, its note, who (name and e-mail) and
// when, and the resolved state; it no longer asks a reviewer to compare
// the matches. One match is then decided by an API key, named by its
// name.
func TestAlertReportShowsDecisions(t *testing.T) {
	s := newReviewStack(t)
	c := s.api(s.org.SandboxKey, "POST", "/v1/aml-checks", map[string]any{"firstName": "Sandbox", "lastName": "Everything"}, http.StatusCreated)
	id := c["id"].(string)
	rev := s.mustUser("rob@acme.example", "Rob Reviewer", kyc.RoleReviewer)
	b := s.browser()
	b.login(rev)
	var ids []string
	for _, r := range c["results"].([]any) {
		for _, m := range r.(map[string]any)["matches"].([]any) {
			ids = append(ids, m.(map[string]any)["id"].(string))
		}
	}
	if len(ids) < 2 {
		t.Fatalf("the sandbox check has %d matches, want at least 2", len(ids))
	}
	report := func() string {
		p := b.get("/console/sandbox/alerts/" + id + "/report.pdf")
		if p.status != http.StatusOK {
			t.Fatalf("report.pdf: %d", p.status)
		}
		return pdfFlow(t, p.body)
	}
	if text := report(); !strings.Contains(text, "a reviewer must compare the matches with the subject") || !strings.Contains(text, "Decision none yet") {
		t.Errorf("undecided check's report: %s", text)
	}
	for i, m := range ids {
		d := "false_positive"
		if i == 0 {
			d = "confirmed"
		}
		if p := b.post("/console/sandbox/alerts/"+id+"/matches/"+m, "decision", d, "note", "Checked by Rob, match "+string(rune('A'+i))+"."); p.status != http.StatusSeeOther {
			t.Fatalf("decide %s: %d %s", m, p.status, p.text())
		}
	}
	got := s.api(s.org.SandboxKey, "GET", "/v1/aml-checks/"+id, nil, 200)
	text := report()
	for _, want := range []string{"Resolved: 1 of", "confirmed as the subject", "Review resolved: every match decided (1 confirmed",
		"Decision confirmed (the subject is the listed entity)", "Decision false positive (not the subject)",
		"Note Checked by Rob, match A.", "Note Checked by Rob, match B.", "Decided by Rob Reviewer <rob@acme.example> on 20"} {
		if !strings.Contains(text, want) {
			t.Errorf("decided check's report lacks %q", want)
		}
	}
	if strings.Contains(text, "a reviewer must compare the matches with the subject") || strings.Contains(text, "Decision none yet") {
		t.Errorf("a resolved check's report still asks for a reviewer")
	}
	if rv, _ := got["resolvedAt"].(string); rv == "" || !strings.Contains(text, rv) {
		t.Errorf("report lacks the resolved time %q", rv)
	}

	// A decision by an API key is named by the key's name.
	s.api(s.org.SandboxKey, "POST", "/v1/aml-checks/"+id+"/matches/"+ids[1]+"/decision",
		map[string]any{"decision": "confirmed", "note": "Confirmed by the back end."}, http.StatusOK)
	if text := report(); !strings.Contains(text, "Decided by API key “") || !strings.Contains(text, "Confirmed by the back end.") {
		t.Errorf("report does not name the API key that decided: %s", text)
	}
}

// TestCaseReportNamesReviewers: the KYC PDF names the reviewer by display
// name and e-mail, not only by usr_ id.
func TestCaseReportNamesReviewers(t *testing.T) {
	s := newReviewStack(t)
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	b := s.browser()
	b.login(jane)
	casePath := "/console/live/cases/" + req.ID
	if r := b.post(casePath + "/claim"); r.status != http.StatusSeeOther {
		t.Fatalf("claim: %d %s", r.status, r.text())
	}
	if r := b.post(casePath+"/decision", "decision", "approve", "reasonCode", "SCREENING_FALSE_POSITIVE", "note", "Different person."); r.status != http.StatusSeeOther {
		t.Fatalf("decision: %d %s", r.status, r.text())
	}
	p := b.get(casePath + "/report.pdf")
	if p.status != http.StatusOK {
		t.Fatalf("report.pdf: %d", p.status)
	}
	text := pdfFlow(t, p.body)
	for _, want := range []string{"Decided by Jane Reviewer <jane@acme.example>", "reviewer Jane Reviewer jane@acme.example Different person.", "Jane Reviewer jane@acme.example approved"} {
		if !strings.Contains(text, want) {
			t.Errorf("KYC report lacks %q:\n%s", want, text)
		}
	}
	j := b.get(casePath + "/report.json")
	if !strings.Contains(j.body, `"by": {`) || !strings.Contains(j.body, `"email": "jane@acme.example"`) {
		t.Errorf("report.json does not name the reviewer:\n%s", j.body)
	}
}

// TestReportPersonalDataSetting: an admin sets how reports print personal
// data on the settings page; the case's PDF and report.json follow it, and
// the change is audited with the admin as its actor.
func TestReportPersonalDataSetting(t *testing.T) {
	s := newReviewStack(t)
	admin := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := s.browser()
	b.login(admin)
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	casePath := "/console/live/cases/" + req.ID
	reports := func() (string, string) {
		p := b.get(casePath + "/report.pdf")
		if p.status != http.StatusOK {
			t.Fatalf("report.pdf: %d", p.status)
		}
		return pdfFlow(t, p.body), b.get(casePath + "/report.json").body
	}
	pdf, js := reports()
	if !strings.Contains(pdf, "Document number T22000129") || !strings.Contains(js, `"documentNumber": "T22000129"`) || !strings.Contains(js, `"personalData": "full"`) {
		t.Fatalf("by default reports print the number whole: %s", js)
	}
	if !strings.Contains(b.get("/console/settings").body, `name="personalData" value="full" checked`) {
		t.Error("settings page does not show full as the setting")
	}
	if p := b.post("/console/settings/reports", "personalData", "partly"); p.status != http.StatusBadRequest || !strings.Contains(p.text(), "must be full or masked") {
		t.Errorf("personalData partly: %d %s", p.status, p.text())
	}
	if p := b.post("/console/settings/reports", "personalData", "masked"); p.status != http.StatusSeeOther {
		t.Fatalf("save masked: %d %s", p.status, p.text())
	}
	pdf, js = reports()
	if strings.Contains(pdf, "T22000129") || strings.Contains(js, "T22000129") || strings.Contains(pdf, "PETRENKO<<VIKTOR") {
		t.Errorf("a masked report prints the document number or the MRZ:\n%s", pdf)
	}
	if !strings.Contains(pdf, "Document number *****0129") || !strings.Contains(js, `"documentNumber": "*****0129"`) || !strings.Contains(js, `"personalData": "masked"`) {
		t.Errorf("masked report: %s", js)
	}
	if !strings.Contains(b.get("/console/settings").body, `name="personalData" value="masked" checked`) {
		t.Error("settings page does not show masked as the setting")
	}
	if got := strings.Join(s.auditActions(admin.User.ID), ","); got != "organization.report_personal_data_changed" {
		t.Errorf("audit: %s", got)
	}
}
