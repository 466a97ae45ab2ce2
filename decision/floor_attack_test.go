package decision_test

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"kycd/decision"
	"kycd/internal/realdata"
	"kycd/kyc"
	"kycd/store/storetest"
)

// TestFloorAttackAllIgnored is the attack on the policy: a
// policy that ignores every finding and approves at any confidence, an
// 11-year-old applicant (the specimen passport's holder, the clock set
// to 1985), and a photo of a rocket uploaded as the selfie, decided in
// live by the real engine on the real images. Such a policy is refused
// by CheckFloor; the test decides under it anyway (a policy stored before
// the floor existed, or written to the database by hand) and asserts the
// floor still holds: not approved, with the checks that caught it.
func TestFloorAttackAllIgnored(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the face and MRZ models")
	}
	p := decision.DefaultPolicy()
	p.Version, p.ApproveConfidence = "all-ignored", 0
	for _, c := range decision.AllCodes {
		p.Actions[c] = decision.ActIgnore
	}
	if err := decision.CheckFloor(p); err == nil {
		t.Fatal("CheckFloor accepted a policy that ignores every finding")
	}
	st := storetest.Open(t)
	org := storetest.MustOrg(t, st, "acme", nil)
	engine := &decision.Auto{Store: st, Now: func() time.Time { return time.Date(1985, 12, 1, 0, 0, 0, 0, time.UTC) },
		ImageSignals: decision.ImageSignals,
		Policy:       func(context.Context, string) (*decision.Policy, error) { return p, nil },
		Screen: func(context.Context, string, kyc.Environment, string, string, *string, *string) ([]kyc.ListResult, error) {
			return []kyc.ListResult{{CheckType: "sanctions", Status: kyc.ListClear}}, nil
		}}
	load := func(name string) []byte {
		data, err := os.ReadFile(realdata.Path(t, "images/"+name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	front, passport, dob := "front", "id_card", "1974-08-12"
	in := decision.Input{
		Request: &kyc.KYCRequest{ID: "kyc_1", OrganizationID: org.ID, Environment: kyc.Live, ApplicantID: "app_1",
			DocumentData: &kyc.DocumentData{DocumentType: "id_card", IssuingCountry: "SE", DocumentNumber: "D23145890", ExpiryDate: "2012-04-15"}},
		Applicant: &kyc.Applicant{ID: "app_1", FirstName: "Anna Maria", LastName: "Eriksson", DOB: &dob},
		Captures: []kyc.Capture{
			{ID: "cap_doc", Kind: "document", Side: &front, DocumentType: &passport, Data: load("doc_td2_uto_icao_specimen.jpg"),
				SHA256: "a", SourceSHA256: "a", Method: kyc.MethodUpload, IP: "192.0.2.1"},
			{ID: "cap_selfie", Kind: "selfie", Data: load("noface_rocket.jpg"), SHA256: "b", SourceSHA256: "b", Method: kyc.MethodUpload,
				Meta: map[string]any{"clientMethod": "camera"}, IP: "192.0.2.1"},
		},
	}
	for _, env := range []kyc.Environment{kyc.Live} {
		in.Request.Environment = env
		res, err := engine.Decide(t.Context(), in)
		if err != nil {
			t.Fatal(err)
		}
		var codes []string
		for _, r := range res.Processing["reasons"].([]decision.Reason) {
			codes = append(codes, r.Code)
		}
		t.Logf("%s: %s %q %v", env, res.Outcome, res.Reason, codes)
		if res.Outcome == decision.Approve || res.Reason == "All checks passed." {
			t.Fatalf("%s: approved: %q", env, res.Reason)
		}
		for _, want := range []string{decision.CodeSelfieNotLive, decision.CodeFaceNotDetected} {
			if !slices.Contains(codes, want) {
				t.Errorf("%s: reasons %v lack %s", env, codes, want)
			}
		}
	}
}
