package console

import (
	"strings"
	"testing"

	"kycd/kyc"
)

// TestReadings: the case lists, per document image, what the engine read
// as read (the raw zone or barcode text as recorded), its confidence and
// the fields taken; images it read nothing from are left out.
func TestReadings(t *testing.T) {
	back, front := "back", "front"
	caps := []kyc.Capture{{ID: "cap_front", Kind: "document", Side: &front}, {ID: "cap_back", Kind: "document", Side: &back},
		{ID: "cap_selfie", Kind: "selfie"}}
	pr := map[string]any{"signals": []any{map[string]any{"name": "document_data", "data": map[string]any{"reads": []any{
		map[string]any{"captureId": "cap_front", "status": "not_found"},
		map[string]any{"captureId": "cap_back", "status": "not_found", "reading": map[string]any{"source": "pdf417_aamva",
			"raw": "@\n\x1e\rANSI 636000100002DL00410278ZV03190008DLDAQ*****5789\nDCSSAMPLE\n", "ecLevel": 3.0,
			"codewordsCorrected": 2.0, "codewordsErased": 0.0, "fields": []any{"familyName", "documentNumber"}}},
	}}}}}
	addr := &kyc.DocumentAddress{Street: "2300 WEST BROAD STREET", City: "RICHMOND", State: "VA", PostalCode: "232690000",
		Country: "USA", Source: "pdf417_aamva", CaptureID: "cap_back"}
	got := readings(pr, caps, addr)
	if len(got) != 1 {
		t.Fatalf("readings: %+v", got)
	}
	r := got[0]
	if r.Label != "Document back" || !strings.Contains(r.Raw, "DAQ*****5789\nDCSSAMPLE") || strings.Contains(r.Raw, "\x1e") ||
		r.Fields != "familyName, documentNumber" || !strings.Contains(r.Confidence, "2 codewords corrected") {
		t.Errorf("reading: %+v", r)
	}
	if want := "2300 WEST BROAD STREET|RICHMOND, VA 232690000|USA"; strings.Join(r.Address, "|") != want {
		t.Errorf("address lines %q, want %q", r.Address, want)
	}
	pr["signals"].([]any)[0].(map[string]any)["data"].(map[string]any)["reads"] = []any{map[string]any{"captureId": "cap_front",
		"reading": map[string]any{"source": "mrz", "format": "TD3", "raw": []any{"P<UTOERIKSSON<<ANNA", "*****02C36UTO"},
			"minConfidence": 0.41, "fields": []any{}}}}
	got = readings(pr, caps, addr) // the address belongs to another image
	if len(got) != 1 || got[0].Address != nil || got[0].Raw != "P<UTOERIKSSON<<ANNA\n*****02C36UTO" || got[0].Fields != "none (the reading was not used)" ||
		!strings.Contains(got[0].Confidence, "0.41") || got[0].Source != "Machine-readable zone (TD3)" {
		t.Errorf("zone reading: %+v", got)
	}
}
