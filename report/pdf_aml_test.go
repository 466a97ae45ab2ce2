package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"kycd/kyc"
)

func TestAMLPDF(t *testing.T) {
	rep := amlWithHistory()
	var buf bytes.Buffer
	if err := WriteAMLPDF(&buf, rep); err != nil {
		t.Fatalf("WriteAMLPDF: %v", err)
	}
	path := savePDF(t, "aml-history", buf.Bytes())
	var again bytes.Buffer
	if err := WriteAMLPDF(&again, rep); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("two renders of the same AML report differ")
	}
	if !havePoppler(t) {
		return
	}
	pages := pdfPages(t, path)
	t.Logf("AML report: %d pages", len(pages))
	c := rep.Check
	checkEveryPage(t, pages, "AML screening report", c.PublicID, "Check "+c.ID, false)
	text := strings.Join(pages, "\f")
	flow := pdfFlow(t, path)
	mustContain(t, text, "Anna Schmidt", "1971-05-03", "potential_match", "high", "0.80", "lv_un_2026_02_27",
		"UN Security Council", "1004", "2026-02-27T06:00:00.000Z", "0.964", "0.912", "0.843", "Annette Schmidt",
		"NK-01007", "NK-01001")
	mustContain(t, flow, "matched: SCHMIDT, Anna (alias)", "UN 1267 (ISIL/Al-Qaida)", "list version lv_crime_2026_02_27 is being imported; retry scheduled",
		"tokens: anna→anna 1.00, schmidt→schmitt 0.91", "dob exact ×1.00", "country match ×1.05",
		"coverage query 1.00, listed 0.80", "Monitoring history (30 screenings)")
	for i, s := range c.History {
		row := fmt.Sprintf("%d %s %s %s", i+1, kyc.FormatTime(s.ScreenedAt), s.Trigger, s.Status)
		mustContain(t, flow, row)
	}
	for _, want := range []string{"list_update", "initial", "yes", "no"} {
		mustContain(t, text, want)
	}
	checkInsideMargins(t, path)
	rasterise(t, path, 1, len(pages))
}

func TestAMLPDFSandbox(t *testing.T) {
	rep := amlWithHistory()
	rep.Check.Environment = kyc.Sandbox
	var buf bytes.Buffer
	if err := WriteAMLPDF(&buf, rep); err != nil {
		t.Fatalf("WriteAMLPDF: %v", err)
	}
	path := savePDF(t, "aml-sandbox", buf.Bytes())
	if !havePoppler(t) {
		return
	}
	checkEveryPage(t, pdfPages(t, path), "AML screening report", rep.Check.PublicID, "Check "+rep.Check.ID, true)
}

func TestAMLPDFNoCheck(t *testing.T) {
	if err := WriteAMLPDF(&bytes.Buffer{}, &AMLReport{GeneratedAt: "2026-03-02T09:15:00.000Z"}); err == nil {
		t.Fatal("report without a check: no error")
	}
}
