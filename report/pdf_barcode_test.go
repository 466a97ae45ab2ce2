package report

import (
	"strings"
	"testing"
)

// TestKYCPDFLicenceBarcode: a licence read from its barcode is shown
// in "What the document says" with its issuer and how the barcode read.
func TestKYCPDFLicenceBarcode(t *testing.T) {
	rep := typicalKYC(t)
	for i, s := range rep.Signals {
		if m, _ := s.(map[string]any); m["name"] == "document_data" {
			rep.Signals[i] = map[string]any{"name": "document_data", "captureId": "", "status": "pass", "score": 1.0, "findings": []any{},
				"detail": "The document's barcode (AAMVA DL/ID) was read from its image; its header and fields validate and it is valid.",
				"data": map[string]any{"source": "document_image", "captureId": "cap_01JNXA9F0DOC",
					"document": map[string]any{"format": "AAMVA", "surname": "SAMPLE", "givenNames": "MICHAEL JOHN", "birthDate": "1986-06-06",
						"documentNumber": "*****5789", "expiryDate": "2030-12-10"},
					"barcode": map[string]any{"standard": "AAMVA DL/ID", "version": 10.0, "issuer": "VA", "issuerName": "Virginia",
						"codewordsCorrected": 3.0}}}
		}
	}
	path := savePDF(t, "kyc-licence", renderKYC(t, rep))
	if !havePoppler(t) {
		return
	}
	text := strings.Join(pdfPages(t, path), "\f")
	mustContain(t, text, "What the document says", "SAMPLE", "MICHAEL JOHN", "1986-06-06", "*****5789", "Virginia (VA)", "2030-12-10")
	mustContain(t, pdfFlow(t, path), "PDF417, AAMVA DL/ID version 10; header and fields validate; 3 codewords corrected")
}

// TestKYCPDFReadings: a document image's card in the PDF carries what
// kycd read from it as read: the zone's lines or the barcode's text (the
// number masked as recorded), the confidence and the fields taken.
func TestKYCPDFReadings(t *testing.T) {
	for _, c := range []struct {
		name    string
		reading map[string]any
		want    []string
	}{
		{"mrz", map[string]any{"source": "mrz", "format": "TD3",
			"raw":                 []any{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "*****02C36UTO7408122F1204159ZE184226B<<<<<10"},
			"characterConfidence": []any{}, "minConfidence": 0.873, "fields": []any{"surname", "documentNumber"}},
			[]string{"Read: zone (TD3)", "*****02C36UTO7408122F1204159ZE184226B<<<<<10", "least sure character 0.873", "Read: fields taken",
				"surname, documentNumber"}},
		{"barcode", map[string]any{"source": "pdf417_aamva", "raw": "@\n\x1e\rANSI 636000100002DL00410278ZV03190008DLDAQ*****5789\nDCSSAMPLE\n",
			"ecLevel": 3.0, "codewordsCorrected": 2.0, "codewordsErased": 0.0, "fields": []any{}},
			[]string{"Read: barcode text", "DAQ*****5789", "DCSSAMPLE", "PDF417 level 3, 2 codewords corrected, 0 erased", "none (the reading was not used)"}},
		{"barcode-address", map[string]any{"source": "pdf417_aamva", "raw": "@\n\x1e\rANSI 636000100002DL00410278ZV03190008DLDAQ*****5789\nDAG**********************\n",
			"ecLevel": 3.0, "codewordsCorrected": 0.0, "codewordsErased": 0.0, "fields": []any{"familyName", "address"},
			"address": map[string]any{"street": "2300 WEST BROAD STREET", "city": "RICHMOND", "state": "VA", "postalCode": "232690000", "country": "USA"}},
			[]string{"Read: address", "2300 WEST BROAD STREET", "RICHMOND, VA 232690000", "USA"}},
	} {
		rep := typicalKYC(t)
		if rep.Captures[0].Kind != "document" {
			t.Fatalf("fixture captures: %+v", rep.Captures)
		}
		rep.Captures[0].Reading = c.reading
		path := savePDF(t, "kyc-reading-"+c.name, renderKYC(t, rep))
		if !havePoppler(t) {
			return
		}
		mustContain(t, pdfFlow(t, path), c.want...)
	}
}
