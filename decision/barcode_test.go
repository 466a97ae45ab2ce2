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

// TestLicenceDecisions builds the decision from a driving licence read
// from the photo of its back: the shared photo-like rendering of the
// AAMVA standard's fictional Virginia licence (version 10, Michael John
// Sample, born 1986-06-06, expires 2024-12-10). The barcode's reading
// is the engine's (readBarcode); the other image signals are recorded
// passes, as in TestDocumentDecisions.
func TestLicenceDecisions(t *testing.T) {
	f, err := os.Open(realdata.Path(t, "barcodes/synth_aamva_v10_sample_michael_john_degraded.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	back := readBarcode(img)
	if back.Card == nil {
		t.Fatalf("licence barcode not read: %+v", back)
	}
	valid := time.Date(2020, 6, 1, 0, 0, 0, 0, time.UTC)
	today := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	recorded := []Signal{
		{Name: SigFaceMatch, Status: Pass, Score: 0.87, Detail: "recorded: the selfie matches the document portrait", Findings: []Finding{}},
		{Name: SigDuplicateFace, Status: Pass, Score: 1, Findings: []Finding{}},
		{Name: SigSelfieDocument, Status: Pass, Score: 1, Findings: []Finding{}},
		{Name: SigImageQuality, Status: Pass, Score: 1, Findings: []Finding{}},
		{Name: SigFacePresence, Status: Pass, Score: 1, Findings: []Finding{}},
	}
	michael := &kyc.Applicant{FirstName: "Michael John", LastName: "Sample", DOB: ptr("1986-06-06"), Country: ptr("US")}
	bob := &kyc.Applicant{FirstName: "Bob", LastName: "Smith", DOB: ptr("1985-03-03"), Country: ptr("US")}
	typed := &kyc.DocumentData{DocumentType: "driving_licence", IssuingCountry: "US", DocumentNumber: "T64235789", ExpiryDate: "2031-04-15"}
	front := &ocr.Result{Status: ocr.StatusNotFound, Hint: ocr.HintNoZone}
	for _, c := range []struct {
		name    string
		a       *kyc.Applicant
		barcode *BarcodeRead
		now     time.Time
		outcome Outcome
		first   string
	}{
		{"right person, valid licence", michael, back, valid, Approve, ""},
		{"someone else's licence", bob, back, valid, Reject, CodeNameMismatch},
		{"right person, expired licence", michael, back, today, Reject, CodeDocumentExpired},
		{"barcode that is not a valid AAMVA payload", michael, &BarcodeRead{Status: "invalid"}, valid, Review, CodeDocumentNotRead},
		{"no barcode found", michael, &BarcodeRead{Status: "not_found"}, valid, Review, CodeDocumentNotRead},
	} {
		t.Run(c.name, func(t *testing.T) {
			reads := []DocumentRead{{CaptureID: "cap_front", Result: front}, {CaptureID: "cap_back", Result: front, Barcode: c.barcode}}
			p := DefaultPolicy()
			doc, parsed := DocumentDataSignal(typed, reads, c.a, p.MinimumAge, c.now)
			signals := append([]Signal{doc, DataConsistency(c.a, typed, parsed, p),
				AMLScreening([]kyc.ListResult{{CheckType: "sanctions", Status: kyc.ListClear}, {CheckType: "pep", Status: kyc.ListClear}}, p.SanctionsRejectScore),
				Duplicates(nil, ""), CountryRisk(p, countriesOf(c.a, typed, parsed))}, recorded...)
			res := apply(p, kyc.Sandbox, signals)
			reasons := res.Processing["reasons"].([]Reason)
			t.Logf("%s → %s (%s)", c.name, res.Outcome, res.Reason)
			if res.Outcome != c.outcome || (c.first == "" && len(reasons) > 0) || (c.first != "" && (len(reasons) == 0 || reasons[0].Code != c.first)) {
				t.Fatalf("outcome %s (%s), reasons %v; want %s, first %q", res.Outcome, res.Reason, reasons, c.outcome, c.first)
			}
			if c.outcome == Approve {
				for _, s := range signals {
					if s.Status != Pass {
						t.Errorf("%s: %s %q", s.Name, s.Status, s.Detail)
					}
				}
				if doc.Data["source"] != "document_image" || doc.Data["captureId"] != "cap_back" || parsed.DocumentNumber != "T64235789" ||
					parsed.BirthDate != "1986-06-06" || parsed.ExpiryDate != "2024-12-10" || parsed.IssuingISO != "US" {
					t.Errorf("document data from %v: %+v", doc.Data["source"], parsed)
				}
				if bc, ok := doc.Data["barcode"].(map[string]any); !ok || bc["issuer"] != "VA" || bc["version"] != 10 {
					t.Errorf("barcode summary %v", doc.Data["barcode"])
				}
			}
		})
	}
}

// TestWantsBarcode: the barcode is looked for on document backs and on
// driving licences, not on selfies or passport pages.
func TestWantsBarcode(t *testing.T) {
	back, front, dl, pp := "back", "front", "driving_licence", "passport"
	for _, c := range []struct {
		c    kyc.Capture
		want bool
	}{
		{kyc.Capture{Kind: "document", Side: &back}, true},
		{kyc.Capture{Kind: "document", Side: &front, DocumentType: &dl}, true},
		{kyc.Capture{Kind: "document", Side: &front, DocumentType: &pp}, false},
		{kyc.Capture{Kind: "selfie"}, false},
	} {
		if got := wantsBarcode(c.c); got != c.want {
			t.Errorf("%+v: %v", c.c, got)
		}
	}
}
