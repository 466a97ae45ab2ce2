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
