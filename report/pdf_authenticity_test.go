package report

import (
	"strings"
	"testing"
)

// TestKYCPDFAuthenticitySignals: the document-authenticity signals and
// their findings, with the measurement that triggered each, reach the
// report's signal breakdown and reasons.
func TestKYCPDFAuthenticitySignals(t *testing.T) {
	rep := typicalKYC(t)
	rep.Signals = append(rep.Signals,
		map[string]any{"name": "document_rendering", "captureId": rep.Captures[0].ID, "status": "fail", "score": 0.0,
			"detail":   "The flat regions of the document image carry no sensor noise (residual 0.00 grey levels, a photograph shows at least 0.25): it looks drawn, not photographed.",
			"findings": []any{map[string]any{"code": "DOCUMENT_LOOKS_RENDERED", "message": "no sensor noise"}},
			"data":     map[string]any{"measures": map[string]any{"noiseFloor": 0.0}}},
		map[string]any{"name": "document_specimen", "captureId": "", "status": "fail", "score": 0.0,
			"detail":   "The document number L898902C3 is that of a published specimen (ICAO 9303 TD3 example).",
			"findings": []any{map[string]any{"code": "DOCUMENT_SPECIMEN", "message": "specimen"}}, "data": map[string]any{}})
	path := savePDF(t, "kyc-authenticity", renderKYC(t, rep))
	if !havePoppler(t) {
		return
	}
	text := strings.Join(pdfPages(t, path), "\f")
	mustContain(t, text, "document_rendering", "DOCUMENT_LOOKS_", "document_specimen", "DOCUMENT_SPECIMEN")
	// Long codes and sentences wrap inside their cells.
	mustContain(t, pdfFlow(t, path), "residual 0.00 grey levels", "L898902C3 is that of a published specimen")
}
