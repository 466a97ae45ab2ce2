package decision

import (
	"image"
	_ "image/jpeg"
	"os"
	"testing"
	"time"

	"kycd/internal/realdata"
	"kycd/kyc"
	"kycd/mrz/ocr"
)

// readImage reads the MRZ of a shared document photo as the engine does.
func readImage(t *testing.T, name string, now time.Time) *ocr.Result {
	t.Helper()
	f, err := os.Open(realdata.Path(t, "images/"+name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ocr.Read(img, now)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestDocumentDecisions builds the decision from the real document read
// from its real photo, for applicants whose record does or does not match
// it. No real selfie of a specimen holder exists, so face_match (and the
// other image signals) are supplied as recorded input: a pass, as the
// engine records it for a matching face. The clock is set where the
// document is valid (2011: the ICAO specimen passport expires 2012-04-15)
// unless the case is about expiry. The document is the holder's ICAO
// specimen identity card (TD2, expiring 2012-04-15 like her passport).
func TestDocumentDecisions(t *testing.T) {
	valid := time.Date(2011, 6, 1, 0, 0, 0, 0, time.UTC)
	const card = "doc_td2_uto_icao_specimen.jpg"
	today := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	recorded := []Signal{
		{Name: SigFaceMatch, Status: Pass, Score: 0.87, Detail: "recorded: the selfie matches the document portrait", Findings: []Finding{}},
		{Name: SigDuplicateFace, Status: Pass, Score: 1, Findings: []Finding{}},
		{Name: SigSelfieDocument, Status: Pass, Score: 1, Findings: []Finding{}},
		{Name: SigImageQuality, Status: Pass, Score: 1, Findings: []Finding{}},
		{Name: SigFacePresence, Status: Pass, Score: 1, Findings: []Finding{}},
	}
	anna := &kyc.Applicant{FirstName: "Anna Maria", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("SE")}
	bob := &kyc.Applicant{FirstName: "Bob", LastName: "Smith", DOB: ptr("1985-03-03"), Country: ptr("GB")}
	// What the applicant typed, as in the issue: the right number, a made-up expiry.
	typed := &kyc.DocumentData{DocumentType: "id_card", IssuingCountry: "SE", DocumentNumber: "D23145890", ExpiryDate: "2031-04-15"}
	for _, c := range []struct {
		name    string
		a       *kyc.Applicant
		image   string
		now     time.Time
		outcome Outcome
		first   string // first reason ("" for none)
	}{
		{"right person, valid document", anna, card, valid, Approve, ""},
		{"someone else's papers (the issue's case)", bob, card, today, Reject, CodeDocumentExpired},
		{"someone else's papers while they were valid", bob, card, valid, Reject, CodeNameMismatch},
		{"right person, expired document", anna, card, today, Reject, CodeDocumentExpired},
		{"wrong check digit", &kyc.Applicant{FirstName: "Mandy", LastName: "Spiteri", DOB: ptr("1973-09-25")},
			"doc_td1_mlt_id_specimen_BAD_checkdigit.png", time.Date(2007, 1, 1, 0, 0, 0, 0, time.UTC), Reject, CodeMRZChecksumFailed},
		{"nothing readable", anna, "face_chrispratt_01.jpg", valid, Review, CodeDocumentNotRead},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := readImage(t, c.image, c.now)
			reads := []DocumentRead{{CaptureID: "cap_doc", Result: r}}
			p := DefaultPolicy()
			doc, parsed := DocumentDataSignal(typed, reads, c.a, p.MinimumAge, c.now)
			signals := append([]Signal{doc, DataConsistency(c.a, typed, parsed, p),
				AMLScreening([]kyc.ListResult{{CheckType: "sanctions", Status: kyc.ListClear}, {CheckType: "pep", Status: kyc.ListClear}}, p.SanctionsRejectScore),
				Duplicates(nil, ""), CountryRisk(p, countriesOf(c.a, typed, parsed))}, recorded...)
			res := apply(p, kyc.Sandbox, signals)
			reasons := res.Processing["reasons"].([]Reason)
			t.Logf("%s: read %s %q → %s (%s)", c.name, r.Status, r.Lines, res.Outcome, res.Reason)
			if res.Outcome != c.outcome || (c.first == "" && len(reasons) > 0) || (c.first != "" && (len(reasons) == 0 || reasons[0].Code != c.first)) {
				t.Fatalf("outcome %s (%s), reasons %v; want %s, first %q", res.Outcome, res.Reason, reasons, c.outcome, c.first)
			}
			if c.outcome == Approve {
				// Every signal ran and explains itself.
				for _, s := range signals {
					if s.Status != Pass || s.Detail == "" && s.Name == SigDataConsistency {
						t.Errorf("%s: %s %q", s.Name, s.Status, s.Detail)
					}
				}
				if doc.Data["source"] != "document_image" || parsed.ExpiryDate != "2012-04-15" || parsed.DocumentNumber != "D23145890" {
					t.Errorf("document data from %v: %+v", doc.Data["source"], parsed)
				}
			}
		})
	}
}
