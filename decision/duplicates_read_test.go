package decision_test

import (
	"context"
	"os"
	"testing"
	"time"

	"kycd/decision"
	"kycd/internal/realdata"
	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestDuplicatesByReadDocumentNumber: the duplicate check compares the
// number the engine read from the document's MRZ, not the one typed. The
// photo is the specimen identity card D23145890 (doc_td2_uto).
//   - another applicant typed D23145890 earlier: the new request, typed as
//     X1, is a duplicate all the same (typing another number hides
//     nothing);
//   - another applicant typed X1 earlier, the number typed for the new
//     request: not a duplicate, the documents differ.
//
// The engine returns the read number for the processing job to store
// (store's TestDuplicateReadDocumentNumber covers the other side: a
// request whose document was read is compared by what it said).
func TestDuplicatesByReadDocumentNumber(t *testing.T) {
	photo, err := os.ReadFile(realdata.Path(t, "images/doc_td2_uto_icao_specimen.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, earlier string
		dup           bool
	}{
		{"earlier typed the number the document says", "D23145890", true},
		{"earlier typed the number typed now", "X1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := storetest.Open(t)
			org := storetest.MustOrg(t, st, "acme", nil)
			earlier := request(t, st, org.ID, c.earlier)
			now := request(t, st, org.ID, "X1")
			engine := &decision.Auto{Store: st, Now: func() time.Time { return time.Date(2011, 6, 1, 0, 0, 0, 0, time.UTC) },
				ImageSignals: decision.ImageSignals,
				Screen: func(context.Context, string, kyc.Environment, string, string, *string, *string) ([]kyc.ListResult, error) {
					return nil, nil
				}}
			front, card := "front", "id_card"
			dob := "1974-08-12"
			res, err := engine.Decide(t.Context(), decision.Input{
				Request:   now,
				Applicant: &kyc.Applicant{ID: now.ApplicantID, FirstName: "Anna Maria", LastName: "Eriksson", DOB: &dob},
				Captures: []kyc.Capture{{ID: "cap_doc", Kind: "document", Side: &front, DocumentType: &card, Data: photo,
					SHA256: "a", SourceSHA256: "a", Method: kyc.MethodUpload, IP: "192.0.2.1"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.DocumentNumberRead != "D23145890" {
				t.Fatalf("document number read %q, want D23145890", res.DocumentNumberRead)
			}
			var dup *decision.Signal
			for _, s := range res.Processing["signals"].([]decision.Signal) {
				if s.Name == decision.SigDuplicates {
					dup = &s
				}
			}
			if dup == nil {
				t.Fatal("no duplicates signal")
			}
			if dup.Data["documentNumberSource"] != "document_image" {
				t.Errorf("documentNumberSource %v", dup.Data["documentNumberSource"])
			}
			found := false
			for _, f := range dup.Findings {
				if f.Code == decision.CodeDuplicateDocument {
					found = true
				}
			}
			if found != c.dup {
				t.Errorf("DUPLICATE_DOCUMENT %v, want %v (earlier request %s): %s %v", found, c.dup, earlier.ID, dup.Status, dup.Data)
			}
		})
	}
}

// request stores a live request of a new applicant with a typed document
// number.
func request(t *testing.T, s *store.Store, orgID, number string) *kyc.KYCRequest {
	t.Helper()
	var r *kyc.KYCRequest
	err := s.InTx(t.Context(), func(tx *store.Tx) error {
		first, last := "Ada", "Lovelace"
		a, err := tx.CreateApplicant(orgID, kyc.Live, &kyc.ApplicantInput{FirstName: &first, LastName: &last})
		if err != nil {
			return err
		}
		r = &kyc.KYCRequest{OrganizationID: orgID, Environment: kyc.Live, ApplicantID: a.ID, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: tx.Now()}
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		r.DocumentData = &kyc.DocumentData{DocumentType: "id_card", IssuingCountry: "SE", DocumentNumber: number, ExpiryDate: "2031-04-15"}
		return tx.SaveKYCRequest(r)
	})
	if err != nil {
		t.Fatalf("create request: %v", err)
	}
	return r
}
