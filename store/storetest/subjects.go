package storetest

import (
	"crypto/rand"
	"testing"

	"kycd/kyc"
	"kycd/store"
)

// Marker is a byte string planted in Image's bytes and used as a document
// number: a test that finds it in a file found plaintext.
var Marker = []byte("KYCD-PLAINTEXT-MARKER-7f3a")

// Image is a capture's bytes: random (so that nothing compresses or
// repeats by chance) with Marker inside, large enough to span pages.
func Image() []byte {
	b := make([]byte, 64<<10)
	_, _ = rand.Read(b)
	copy(b[1000:], Marker)
	copy(b[40000:], Marker)
	return b
}

// MustRequest creates an applicant (Ada Lovelace) and a KYC request in
// org's env, with doc as its document details when not nil.
func MustRequest(t testing.TB, s *store.Store, orgID string, env kyc.Environment, doc *kyc.DocumentData) *kyc.KYCRequest {
	t.Helper()
	var r *kyc.KYCRequest
	err := s.InTx(t.Context(), func(tx *store.Tx) error {
		first, last := "Ada", "Lovelace"
		a, err := tx.CreateApplicant(orgID, env, &kyc.ApplicantInput{FirstName: &first, LastName: &last})
		if err != nil {
			return err
		}
		r = &kyc.KYCRequest{OrganizationID: orgID, Environment: env, ApplicantID: a.ID, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: tx.Now()}
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		r.DocumentData = doc
		return tx.SaveKYCRequest(r)
	})
	if err != nil {
		t.Fatalf("create request: %v", err)
	}
	return r
}

// MustCapture saves data as the document image of side of the request.
func MustCapture(t testing.TB, s *store.Store, requestID, side string, data []byte) *kyc.Capture {
	t.Helper()
	c := &kyc.Capture{RequestID: requestID, Kind: "document", Side: &side, ContentType: "image/jpeg", Width: 10, Height: 10,
		SHA256: "sha-" + side, SourceSHA256: "src-" + side, Method: "upload", UserAgent: "test", IP: "192.0.2.1"}
	if err := s.InTx(t.Context(), func(tx *store.Tx) error { return tx.SaveCapture(c, data) }); err != nil {
		t.Fatalf("save capture: %v", err)
	}
	return c
}
