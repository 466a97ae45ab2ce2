package console_test

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"strings"
	"testing"

	"kycd/internal/reviewdata"
	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestBrowserCaseAddress is the case page of a licence whose barcode
// gave the holder's address, in Chromium at 390 and 1280 px: the address
// shows under the barcode's reading, and the page passes the console's
// checks (no CSP violation, no serious or critical axe-core violation, no
// horizontal scrolling), kept as screenshots.
func TestBrowserCaseAddress(t *testing.T) {
	s := newReviewStack(t)
	req := s.awaiting(kyc.Live, reviewdata.Person{FirstName: "Michael", LastName: "Sample", DOB: "1986-06-06", Country: "US", DocNumber: "T64235789"})
	// The licence's back: a plain grey picture stands for the photo.
	img := image.NewRGBA(image.Rect(0, 0, 320, 200))
	for i := range img.Pix {
		img.Pix[i] = 200
	}
	img.Set(0, 0, color.Black)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	back := storetest.MustCapture(t, s.st, req.ID, "back", buf.Bytes())
	for _, sig := range req.ProcessingResult["signals"].([]any) {
		m := sig.(map[string]any)
		if m["name"] != "document_data" {
			continue
		}
		data := m["data"].(map[string]any)
		reads, _ := data["reads"].([]any)
		data["reads"] = append(reads, map[string]any{"captureId": back.ID, "status": "not_found", "barcode": "read",
			"reading": map[string]any{"source": "pdf417_aamva", "ecLevel": 5.0, "codewordsCorrected": 0.0, "codewordsErased": 0.0,
				"raw":    "@\n\x1e\rANSI 636000100102DL00410278ZV03190008DLDAQ*****5789\nDCSSAMPLE\nDACMICHAEL\nDAG**** **** ***** ******\nDAIRICHMOND\nDAJVA\nDAK232690000  \nDCGUSA\n",
				"fields": []any{"familyName", "givenNames", "documentNumber", "dateOfBirth", "expiryDate", "sex", "address"}}})
	}
	addr := &kyc.DocumentAddress{Street: "2300 WEST BROAD STREET", Street2: "APT 12", City: "RICHMOND", State: "VA",
		PostalCode: "232690000", Country: "USA", Source: "pdf417_aamva", CaptureID: back.ID}
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) error {
		if err := tx.SaveKYCRequest(req); err != nil {
			return err
		}
		return tx.SetAddressRead(req, addr)
	}); err != nil {
		t.Fatal(err)
	}
	jane := s.mustUser("jane@acme.example", "Jane Reviewer", kyc.RoleReviewer)
	base := s.srv.URL
	b := newTab(t, 1280)
	b.signIn(base, jane)
	for _, w := range []int64{390, 1280} {
		b.resize(w)
		b.open(base, "/console/live/cases/"+req.ID)
		body := b.body()
		if !strings.Contains(body, "2300 WEST BROAD STREET") || !strings.Contains(body, "APT 12") || !strings.Contains(body, "RICHMOND, VA 232690000") {
			t.Errorf("case at %d px lacks the address read:\n%s", w, body)
		}
		b.check("case-address")
	}
}
