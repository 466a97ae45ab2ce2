package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
)

func renderKYC(t testing.TB, rep *KYCReport) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteKYCPDF(&buf, rep); err != nil {
		t.Fatalf("WriteKYCPDF: %v", err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
		t.Fatalf("output is not a PDF: %q", buf.Bytes()[:min(16, buf.Len())])
	}
	return buf.Bytes()
}

func kycFooter(rep *KYCReport) string {
	return "Request " + rep.Request.ID + " · SHA-256 " + rep.ContentSHA256[:16]
}

func TestKYCPDFTypical(t *testing.T) {
	rep := typicalKYC(t)
	pdf := renderKYC(t, rep)
	if len(pdf) > 2<<20 {
		t.Errorf("typical report is %d bytes, want under 2 MB", len(pdf))
	}
	path := savePDF(t, "kyc-typical", pdf)
	if !havePoppler(t) {
		return
	}
	pages := pdfPages(t, path)
	t.Logf("typical request: %d pages", len(pages))
	checkEveryPage(t, pages, "KYC compliance report", rep.Request.PublicID, kycFooter(rep), false)
	text := strings.Join(pages, "\f")
	mustContain(t, text, "Nordbank Payments GmbH", "Anna Schmidt", rep.Request.ID, "approved", "awaiting_review",
		"policy-7", "2026.3.1", "0.820", "35.0", "C01X00T47", "P<D<<MUSTERMANN<<ERIKA", rep.ContentSHA256,
		"Anna Maria Schmitt", "0.912", "lv_pep_2026_02_27", "image_quality", "face_match", "PEP_MATCH", "review",
		"Johanna Doe", "j.doe@nordbank.example", "PEP_FALSE_POSITIVE",
		// What the document says, as read from its photo, and how it compared.
		"What the document says", "Read by kycd from the document photo", "1964-08-12", "C01X00T47 (the same as the number typed)", "Compared: name", "ERIKA MUSTERMANN",
		"Selfie liveness", "lvs_01JNXA8Z0FAILED", "turn_left, look_up", "LIVENESS_MOVEMENT_NOT_SEEN", "head_movement",
		"LIVENESS_LIGHT_MISMATCH", "Colour asked", "#00ffff", "0.151",
		"lvf_01JNXA8Z1FRAME0", "does not detect")
	for _, c := range rep.Captures {
		mustContain(t, text, c.ID, c.SHA256)
	}
	for _, e := range rep.Timeline {
		mustContain(t, text, e.Type, e.At)
	}
	// Phrases that wrap inside their cells.
	flow := pdfFlow(t, path)
	mustContain(t, flow, *rep.Request.DecisionReason, "Anna Schmitt (alias)", "Member of the Bundestag · ref. Q4000",
		"schmidt→schmitt 0.91", "dob exact ×1.00", "Possible politically exposed person: Anna Maria Schmitt (0.91).",
		rep.ReviewerNotes[0].Note, "PEP match needs a person.")
	checkInsideMargins(t, path)
	rasterise(t, path, 1, 1)
	rasterise(t, path, 3, 3) // the page with the thumbnails and the camera session
}

// Rendering the same report gives the same bytes. Several renders,
// because what used to differ (fpdf writing equal-width images in map
// order, fpdf writing into the shared font bytes) only shows sometimes.
func TestKYCPDFDeterministic(t *testing.T) {
	rep := typicalKYC(t)
	a := renderKYC(t, rep)
	for i := range 4 {
		if b := renderKYC(t, rep); !bytes.Equal(a, b) {
			savePDF(t, "render-1", a)
			savePDF(t, fmt.Sprintf("render-%d", i+2), b)
			t.Fatalf("render %d differs from the first (%d and %d bytes)", i+2, len(a), len(b))
		}
	}
	rep.Request.Status = "rejected"
	if bytes.Equal(a, renderKYC(t, rep)) {
		t.Fatal("a changed report rendered to the same bytes")
	}
}

// Reports render concurrently (one per HTTP request) without sharing
// state: parallel renders equal a serial one.
func TestKYCPDFConcurrent(t *testing.T) {
	rep := typicalKYC(t)
	want := renderKYC(t, rep)
	got := make([][]byte, 4)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			var buf bytes.Buffer
			if err := WriteKYCPDF(&buf, rep); err != nil {
				t.Error(err)
			}
			got[i] = buf.Bytes()
		})
	}
	wg.Wait()
	for i, g := range got {
		if !bytes.Equal(g, want) {
			t.Errorf("concurrent render %d differs from the serial one", i)
		}
	}
}

func TestKYCPDFLong(t *testing.T) {
	typical := renderKYC(t, typicalKYC(t))
	rep := longKYC(t)
	pdf := renderKYC(t, rep)
	path := savePDF(t, "kyc-long", pdf)
	if !havePoppler(t) {
		return
	}
	pages := pdfPages(t, path)
	short := pdfPages(t, savePDF(t, "kyc-typical", typical))
	t.Logf("long request: %d pages (typical: %d)", len(pages), len(short))
	if len(pages) <= len(short) {
		t.Errorf("200 events and 50 matches gave %d pages, the typical request %d", len(pages), len(short))
	}
	checkEveryPage(t, pages, "KYC compliance report", rep.Request.PublicID, kycFooter(rep), false)
	text := strings.Join(pages, "\f")
	flow := pdfFlow(t, path)
	for _, e := range rep.Timeline {
		mustContain(t, text, e.At)
		mustContain(t, flow, *e.Reason)
	}
	for _, typ := range eventTypes {
		if n, want := strings.Count(text, typ), 200/len(eventTypes); n < want {
			t.Errorf("event type %s printed %d times, want at least %d", typ, n, want)
		}
	}
	for _, m := range rep.Screenings[1].Matches {
		mustContain(t, text, m.Names[0], m.EntityID)
	}
	// The note is taller than a page: it is split between two of its
	// lines, continues under a repeated header, and every part is printed.
	for i := range 160 {
		mustContain(t, text, fmt.Sprintf("L%03d", i))
	}
	mustContain(t, text, "Reviewer notes (continued)", "Timeline (continued)", "Match 1 of 50 — Anna Schmitt-Nummer00", "Match 50 of 50 — Anna Schmitt-Nummer49")
	checkInsideMargins(t, path)
	rasterise(t, path, 1, 1)
	rasterise(t, path, 5, min(8, len(pages)))
}

func TestKYCPDFScripts(t *testing.T) {
	rep := scriptsKYC(t)
	pdf := renderKYC(t, rep)
	path := savePDF(t, "kyc-scripts", pdf)
	if !havePoppler(t) {
		return
	}
	pages := pdfPages(t, path)
	t.Logf("scripts request: %d pages", len(pages))
	checkEveryPage(t, pages, "KYC compliance report", rep.Request.PublicID, kycFooter(rep), true)
	text := strings.Join(pages, "\f") + pdfFlow(t, path)
	// Latin, Cyrillic and Greek come back exactly as recorded (polytonic
	// Ἀ through the text layer, see pdf_text.go); Arabic is transliterated
	// and marked.
	mustContain(t, text, nameLatin, nameCyrillic, nameGreek, "also: mHmd `bd llh (transliterated)",
		"Spoke with "+nameLatin+"; the listed "+nameGreek+" (mHmd `bd llh) is someone else. (transliterated)")
	for _, r := range text {
		if unicode.Is(unicode.Arabic, r) {
			t.Fatalf("Arabic character %q in the text: it should be transliterated", r)
		}
	}
	checkInsideMargins(t, path)
	rasterise(t, path, 1, 1)
}

func TestKYCPDFNoReport(t *testing.T) {
	if err := WriteKYCPDF(&bytes.Buffer{}, nil); err == nil {
		t.Fatal("nil report: no error")
	}
	rep := typicalKYC(t)
	rep.GeneratedAt = "yesterday"
	if err := WriteKYCPDF(&bytes.Buffer{}, rep); err == nil || !strings.Contains(err.Error(), "generatedAt") {
		t.Fatalf("bad generatedAt: err = %v", err)
	}
}

// BenchmarkKYCPDF renders the typical request, three thumbnails scaled
// from 1.4 to 2.5 megapixel photos included. Goal: under 150 ms and 2 MB
// on two cores.
func BenchmarkKYCPDF(b *testing.B) {
	rep := typicalKYC(b)
	size := 0
	for b.Loop() {
		var buf bytes.Buffer
		if err := WriteKYCPDF(&buf, rep); err != nil {
			b.Fatal(err)
		}
		size = buf.Len()
	}
	b.ReportMetric(float64(size), "bytes")
}

// pageFlow is the text of one page in content order, white space folded.
func pageFlow(t *testing.T, path string, page int) string {
	t.Helper()
	p := strconv.Itoa(page)
	return strings.Join(strings.Fields(string(run(t, "pdftotext", "-raw", "-enc", "UTF-8", "-f", p, "-l", p, path, "-"))), " ")
}

// TestKYCPDFSummaryFirst: page 1 opens with the outcome and the reasons
// (what failed, what a reviewer must look at, what was not checked)
// before any of the details.
func TestKYCPDFSummaryFirst(t *testing.T) {
	rep := typicalKYC(t)
	rep.Request.Status, rep.Request.Decision, rep.Request.DecidedAt = "awaiting_review", "pending", nil
	rep.Request.DecisionReason = ptr("Possible politically exposed person: Anna Maria Schmitt (0.91).")
	rep.ReviewerNotes = []ReviewerNote{}
	rep.Signals = append(rep.Signals, map[string]any{"name": "face_match", "captureId": "", "status": "not_run", "score": 0.0,
		"detail": "No selfie was captured (document-only workflow).", "findings": []any{}, "data": map[string]any{}})
	rep.Reasons = []any{
		map[string]any{"code": "PEP_MATCH", "message": "Possible politically exposed person: Anna Maria Schmitt (0.91).", "signal": "aml_screening", "action": "review"},
		map[string]any{"code": "NATIONALITY_MISMATCH", "message": "The document's nationality (AT) differs from the applicant's country (DE).",
			"signal": "data_consistency", "action": "warn", "weight": 15.0},
	}
	if err := rep.seal(); err != nil {
		t.Fatal(err)
	}
	path := savePDF(t, "kyc-summary", renderKYC(t, rep))
	if !havePoppler(t) {
		return
	}
	first := pageFlow(t, path, 1)
	summary, details := strings.Index(first, "Summary"), strings.Index(first, "Organization and environment")
	if summary < 0 || details < 0 || summary > details {
		t.Fatalf("page 1 does not open with the summary (Summary at %d, the details at %d):\n%s", summary, details, first)
	}
	head := first[:details]
	mustContain(t, head, "Awaiting review: a reviewer must decide", "What a reviewer must look at",
		"review Possible politically exposed person: Anna Maria Schmitt (0.91). PEP_MATCH aml_screening",
		"warn The document's nationality (AT) differs from the applicant's country (DE). NATIONALITY_MISMATCH data_consistency",
		"Not checked (1 check did not run, so verified nothing)", "face_match No selfie was captured (document-only workflow).",
		"Anna Schmidt, born 1990-08-12, DE", "review (confidence 0.82, risk score 35 of 100)",
		"Politically exposed persons: hit (1 match, risk medium)", "Decided not yet")
	// The developer's note on fonts is not a footnote on every page.
	pages := pdfPages(t, path)
	checkEveryPage(t, pages, "KYC compliance report", rep.Request.PublicID, kycFooter(rep), false)
	rasterise(t, path, 1, 1)
}
