package server_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"image"
	"image/draw"
	"image/png"
	"io"
	"os"
	"strings"
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
	got := e.submitLicence(t, sampleJSON, sampleBack)
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

const (
	sampleJSON = `{"firstName":"Michael John","lastName":"Sample","dob":"1986-06-06","country":"US"}`
	sampleBack = "barcodes/synth_aamva_v10_sample_michael_john_degraded.jpg"
)

// submitLicence creates a live request for applicant (JSON) with a US
// driving licence whose back is the shared photo backFile (its front, a
// specimen photo page, shows a face), types made-up details, submits and
// runs the processing job. It returns the request as the API shows it.
func (e *decisionEnv) submitLicence(t *testing.T, applicant, backFile string) map[string]any {
	t.Helper()
	c := e.create(e.A.LiveKey, `{"applicant":`+applicant+`}`)
	id, tok := c["id"].(string), token(t, c)
	front, back, licence := "front", "back", "driving_licence"
	for _, p := range []struct {
		file string
		c    kyc.Capture
	}{
		// The licence's front: the specimen's portrait half, without its
		// zone (a licence front has a portrait and no MRZ; since the reader
		// reads this specimen's zone, the whole page would be read as a
		// passport instead of the licence's barcode).
		{"images/doc_td3_uto_icao_specimen.jpg#top", kyc.Capture{Kind: "document", Side: &front, DocumentType: &licence}},
		{backFile, kyc.Capture{Kind: "document", Side: &back, DocumentType: &licence}},
		{"images/doc_td3_uto_icao_specimen.jpg", kyc.Capture{Kind: "selfie"}},
	} {
		file, top := strings.CutSuffix(p.file, "#top")
		raw, err := os.ReadFile(realdata.Path(t, file))
		if err != nil {
			t.Fatal(err)
		}
		if top {
			raw = topPart(t, raw, 0.6)
		}
		img, err := capture.Process(bytes.NewReader(raw), capture.Limits{})
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
	return e.call("GET", "/v1/kyc-requests/"+id, e.A.LiveKey, "").json(t)
}

// TestLiveLicenceDuplicate: a second applicant, under another name,
// sends the same licence: duplicates finds the first request by the
// number read from the barcode, and the name does not match.
func TestLiveLicenceDuplicate(t *testing.T) {
	e := liveEngineEnv(t)
	e.submitLicence(t, sampleJSON, sampleBack)
	got := e.submitLicence(t, `{"firstName":"Bob","lastName":"Smith","dob":"1985-03-03","country":"US"}`, sampleBack)
	pr := got["processingResult"].(map[string]any)
	codes := map[string]bool{}
	for _, r := range pr["reasons"].([]any) {
		codes[r.(map[string]any)["code"].(string)] = true
	}
	if got["status"] != "rejected" || !codes[decision.CodeDuplicateDocument] || !codes[decision.CodeNameMismatch] {
		t.Fatalf("second applicant: %v, reasons %v", got["status"], pr["reasons"])
	}
	for _, s := range pr["signals"].([]any) {
		if m := s.(map[string]any); m["name"] == decision.SigDuplicates && m["data"].(map[string]any)["documentNumberSource"] != "document_image" {
			t.Errorf("duplicates: %v", m["data"])
		}
	}
}

// topPart is the upper share of an encoded image, as a PNG.
func topPart(t *testing.T, raw []byte, share float64) []byte {
	t.Helper()
	src, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), int(float64(b.Dy())*share)))
	draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Src)
	var out bytes.Buffer
	if err := png.Encode(&out, dst); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestLiveLicenceAddressRecorded: the holder's address read from the
// licence's barcode is recorded sealed and shown whole where document
// details are shown (the image's reading in /documents, report.json in
// full), never in processingResult (stored in clear: the street starred
// out) nor in a masked report. (Sealing and erasure: store's
// TestAddressRead.)
func TestLiveLicenceAddressRecorded(t *testing.T) {
	e := liveEngineEnv(t)
	got := e.submitLicence(t, sampleJSON, sampleBack)
	id := got["id"].(string)
	const street = "2300 WEST BROAD STREET"
	prJSON := string(e.call("GET", "/v1/kyc-requests/"+id, e.A.LiveKey, "").body)
	if strings.Contains(prJSON, street) || strings.Contains(prJSON, "WEST BROAD") {
		t.Errorf("processingResult (stored in clear) carries the street: %s", prJSON)
	}
	docs := e.call("GET", "/v1/kyc-requests/"+id+"/documents", e.A.LiveKey, "").json(t)
	var addr map[string]any
	for _, d := range docs["data"].([]any) {
		reading, _ := d.(map[string]any)["reading"].(map[string]any)
		if a, ok := reading["address"].(map[string]any); ok {
			if reading["source"] != "pdf417_aamva" || d.(map[string]any)["side"] != "back" {
				t.Errorf("address on the wrong reading: %v", d)
			}
			addr = a
		}
	}
	if addr["street"] != street || addr["city"] != "RICHMOND" || addr["state"] != "VA" || addr["country"] != "USA" ||
		!strings.HasPrefix(addr["postalCode"].(string), "23269") {
		t.Fatalf("address read: %v", addr)
	}
	// The data subject's export holds it too.
	exp := e.call("GET", "/v1/applicants/"+got["applicantId"].(string)+"/export", e.A.LiveKey, "")
	zr, err := zip.NewReader(bytes.NewReader(exp.body), int64(len(exp.body)))
	if err != nil {
		t.Fatalf("export: %d %v", exp.status, err)
	}
	var exported struct {
		Requests []struct {
			AddressRead *kyc.DocumentAddress `json:"addressRead"`
		} `json:"requests"`
	}
	for _, f := range zr.File {
		if f.Name == "export.json" {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			if err := json.Unmarshal(b, &exported); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(exported.Requests) != 1 || exported.Requests[0].AddressRead == nil || exported.Requests[0].AddressRead.Street != street {
		t.Errorf("export.json lacks the address read: %+v", exported)
	}
	report := func() string {
		return string(e.call("GET", "/v1/kyc-requests/"+id+"/report.json", e.A.LiveKey, "").body)
	}
	if rep := report(); !strings.Contains(rep, `"street":"`+street+`"`) {
		t.Errorf("report.json in full lacks the address: %s", rep)
	}
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		r, err := tx.FindKYCRequestByID(id)
		if err != nil {
			return err
		}
		return tx.SetReportPersonalData(r.OrganizationID, kyc.PersonalDataMasked)
	}); err != nil {
		t.Fatal(err)
	}
	if rep := report(); strings.Contains(rep, "WEST BROAD") || strings.Contains(rep, `"street":`) {
		t.Errorf("a masked report carries the address: %s", rep)
	}
}
