package console_test

import (
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestCaseShowsAddressRead: the case page shows a reviewer the address
// the engine read from a licence's barcode, on that image's reading; a
// viewer, who sees no document details, does not get it.
func TestCaseShowsAddressRead(t *testing.T) {
	e := newEnv(t)
	reviewer := e.mustUser("rita@acme.example", "Rita Reviewer", kyc.RoleReviewer)
	viewer := e.mustUser("vic@acme.example", "Vic Viewer", kyc.RoleViewer)
	app := e.api(e.org.SandboxKey, "POST", "/v1/applicants", map[string]any{"firstName": "Michael", "lastName": "Sample"}, 201)
	req := e.api(e.org.SandboxKey, "POST", "/v1/kyc-requests", map[string]any{"applicantId": app["id"]}, 201)
	reqID := req["id"].(string)
	var r *kyc.KYCRequest
	if err := e.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		r, err = tx.FindKYCRequest(e.org.ID, kyc.Sandbox, reqID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	back := storetest.MustCapture(t, e.st, r.ID, "back", []byte("\xff\xd8\xff\xe0 back"))
	r.ProcessingResult = map[string]any{"signals": []any{map[string]any{"name": "document_data", "status": "pass",
		"data": map[string]any{"reads": []any{map[string]any{"captureId": back.ID, "status": "not_found", "barcode": "read",
			"reading": map[string]any{"source": "pdf417_aamva", "raw": "@\nANSI 636000100102DL\nDAG**** **** ***** ******\n",
				"ecLevel": 5.0, "codewordsCorrected": 0.0, "codewordsErased": 0.0, "fields": []any{"familyName", "address"}}}}}}}}
	addr := &kyc.DocumentAddress{Street: "2300 WEST BROAD STREET", City: "RICHMOND", State: "VA", PostalCode: "232690000",
		Country: "USA", Source: "pdf417_aamva", CaptureID: back.ID}
	if err := e.st.InTx(t.Context(), func(tx *store.Tx) error {
		if err := tx.SaveKYCRequest(r); err != nil {
			return err
		}
		return tx.SetAddressRead(r, addr)
	}); err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	b.login(reviewer)
	pg := b.get("/console/sandbox/cases/" + reqID)
	if pg.status != 200 {
		t.Fatalf("case: %d", pg.status)
	}
	if txt := pg.text(); !strings.Contains(txt, "Address read from the barcode: 2300 WEST BROAD STREET") || !strings.Contains(txt, "RICHMOND, VA 232690000") {
		t.Errorf("the reviewer's case page lacks the address read:\n%s", txt)
	}
	b = e.browser()
	b.login(viewer)
	if pg := b.get("/console/sandbox/cases/" + reqID); pg.status != 200 || strings.Contains(pg.text(), "WEST BROAD") {
		t.Errorf("a viewer's case page (%d) shows the address", pg.status)
	}
}
