package server_test

import (
	"os"
	"testing"

	"kycd/capture"
	"kycd/decision"
	"kycd/internal/realdata"
	"kycd/kyc"
	"kycd/store"
)

// TestLiveLicenceReadFromBarcode: a live request with a US driving
// licence. The back's photo is the shared photo-like rendering of the
// AAMVA standard's fictional Virginia licence (Michael John Sample, born
// 1986-06-06, expired 2024-12-10); the applicant types a made-up expiry.
// The engine reads the barcode when it decides: the document data come
// from the image, the name and date of birth are compared with the
// applicant's, and the licence is rejected as expired.
func TestLiveLicenceReadFromBarcode(t *testing.T) {
	e := liveEngineEnv(t)
	c := e.create(e.A.LiveKey, `{"applicant":{"firstName":"Michael John","lastName":"Sample","dob":"1986-06-06","country":"US"}}`)
	id, tok := c["id"].(string), token(t, c)
	front, back, licence := "front", "back", "driving_licence"
	for _, p := range []struct {
		file string
		c    kyc.Capture
	}{
		{"images/doc_td3_uto_icao_specimen.jpg", kyc.Capture{Kind: "document", Side: &front, DocumentType: &licence}},
		{"barcodes/synth_aamva_v10_sample_michael_john_degraded.jpg", kyc.Capture{Kind: "document", Side: &back, DocumentType: &licence}},
		{"images/doc_td3_uto_icao_specimen.jpg", kyc.Capture{Kind: "selfie"}},
	} {
		f, err := os.Open(realdata.Path(t, p.file))
		if err != nil {
			t.Fatal(err)
		}
		img, err := capture.Process(f, capture.Limits{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		c := p.c
		c.ContentType, c.Width, c.Height, c.SHA256, c.SourceSHA256 = img.ContentType, img.Width, img.Height, img.SHA256, img.SourceSHA256
		c.Method, c.UserAgent, c.IP, c.Meta = kyc.MethodUpload, "test", "192.0.2.7", map[string]any{"clientMethod": "camera"}
		if c.Kind == "selfie" {
			e.passedSession(t, tok, &c, img.Data)
			continue
		}
		if err := e.store.InTx(t.Context(), func(tx *store.Tx) error { _, err := e.svc.AddCapture(tx, tok, &c, img.Data); return err }); err != nil {
			t.Fatal(err)
		}
	}
	typed := &kyc.DocumentData{DocumentType: "driving_licence", IssuingCountry: "US", DocumentNumber: "T64235789", ExpiryDate: "2031-04-15"}
	err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		if _, err := e.svc.SetDocumentData(tx, tok, typed); err != nil {
			return err
		}
		_, err := e.svc.Submit(tx, tok)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e.runJobs()
	got := e.call("GET", "/v1/kyc-requests/"+id, e.A.LiveKey, "").json(t)
	pr := got["processingResult"].(map[string]any)
	codes := map[string]bool{}
	for _, r := range pr["reasons"].([]any) {
		codes[r.(map[string]any)["code"].(string)] = true
	}
	if got["status"] != "rejected" || !codes[decision.CodeDocumentExpired] || codes[decision.CodeNameMismatch] || codes[decision.CodeDocumentNotRead] {
		t.Fatalf("expired licence: %v (%v), reasons %v", got["status"], got["decisionReason"], pr["reasons"])
	}
	seen := 0
	for _, s := range pr["signals"].([]any) {
		m := s.(map[string]any)
		data, _ := m["data"].(map[string]any)
		switch m["name"] {
		case decision.SigDocumentData:
			seen++
			bc, _ := data["barcode"].(map[string]any)
			doc, _ := data["document"].(map[string]any)
			if data["source"] != "document_image" || data["expiryDate"] != "2024-12-10" || bc["issuer"] != "VA" ||
				doc["documentNumber"] != "*****5789" || doc["surname"] != "SAMPLE" {
				t.Errorf("document_data %v", data)
			}
		case decision.SigDataConsistency:
			seen++
			if m["status"] != "pass" {
				t.Errorf("data_consistency %v: %v", m["status"], data)
			}
		}
	}
	if seen != 2 {
		t.Errorf("%d of the two document signals", seen)
	}
}
