package server_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pdfText extracts a PDF's text with pdftotext (poppler-utils); outside CI
// the check is skipped when the tool is missing.
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pdftotext is required under CI=true (apt-get install poppler-utils)")
		}
		t.Skip("pdftotext not installed")
	}
	path := filepath.Join(t.TempDir(), "report.pdf")
	if err := os.WriteFile(path, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdftotext", "-layout", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

func TestReportPDFs(t *testing.T) {
	e := newKYCEnv(t)
	c := e.create(e.A.SandboxKey, `{"applicant":{"firstName":"Zoë","lastName":"Łukasiewicz","dob":"1990-12-10","country":"PL"}}`)
	id, pub := c["id"].(string), c["publicId"].(string)
	e.submit(token(t, c), "id_card", true)
	e.runJobs()
	r := e.call("GET", "/v1/kyc-requests/"+id+"/report.pdf", e.A.SandboxKey, "")
	if r.status != 200 || r.header.Get("Content-Type") != "application/pdf" ||
		r.header.Get("Content-Disposition") != `attachment; filename="`+pub+`-report.pdf"` || !strings.HasPrefix(string(r.body), "%PDF-") {
		t.Fatalf("report.pdf: %d %v", r.status, r.header)
	}
	text := pdfText(t, r.body)
	for _, want := range []string{"Zoë", "Łukasiewicz", pub, "awaiting_review", "SANDBOX"} {
		if !strings.Contains(text, want) {
			t.Errorf("KYC PDF lacks %q", want)
		}
	}
	for _, key := range []string{e.B.SandboxKey, e.A.LiveKey} {
		if r := e.call("GET", "/v1/kyc-requests/"+id+"/report.pdf", key, ""); r.status != 404 && r.status != 403 {
			t.Errorf("report.pdf with another organization's or environment's key: %d", r.status)
		}
	}

	a := e.mustAML(e.A.SandboxKey, `{"firstName":"Sandbox","lastName":"Sanctioned","monitoring":true}`)
	r = e.call("GET", "/v1/aml-checks/"+a["publicId"].(string)+"/report.pdf", e.A.SandboxKey, "")
	if r.status != 200 || r.header.Get("Content-Disposition") != `attachment; filename="`+a["publicId"].(string)+`-report.pdf"` {
		t.Fatalf("AML report.pdf: %d %v", r.status, r.header)
	}
	text = pdfText(t, r.body)
	for _, want := range []string{"Sandbox Sanctioned", "potential_match", "SANDBOX-SAN-1"} {
		if !strings.Contains(text, want) {
			t.Errorf("AML PDF lacks %q", want)
		}
	}
	if r := e.call("GET", "/v1/aml-checks/"+a["id"].(string)+"/report.pdf", e.B.SandboxKey, ""); r.status != 404 {
		t.Errorf("AML report.pdf from another organization: %d", r.status)
	}
}
