package decision_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"kycd/decision"
	"kycd/face"
	"kycd/internal/realdata"
	"kycd/kyc"
	"kycd/mrz"
	"kycd/store"
	"kycd/store/storetest"
)

// TestAutoFaceMatch: the engine compares the document front with the
// selfie (real photos), records face_match, sends a mismatch to review
// and returns both descriptors for the processing job to store; the same
// input gives the same processing result. The clock is set to 2011, when
// the specimen passport was valid, so that its expiry is not the reason.
//
// The document is the holder's specimen identity card. No selfie of her
// exists: the "same person" selfie is a photo of her specimen passport, which face_match passes but
// selfie_not_document flags, so the request is not approved (the issue's
// case: someone else's papers photographed as the selfie). Since the
// document-authenticity signals, both are rejected first of all as a
// published specimen (DOCUMENT_SPECIMEN); the passport page's portrait
// is the very photograph of the card's, which portrait_not_selfie sees.
func TestAutoFaceMatch(t *testing.T) {
	st := storetest.Open(t)
	org := storetest.MustOrg(t, st, "acme", nil)
	engine := &decision.Auto{Store: st, Now: func() time.Time { return time.Date(2011, 6, 1, 0, 0, 0, 0, time.UTC) },
		ImageSignals: decision.ImageSignals,
		Screen: func(context.Context, string, kyc.Environment, string, string, *string, *string) ([]kyc.ListResult, error) {
			return nil, nil
		}}
	load := func(name string) []byte {
		data, err := os.ReadFile(realdata.Path(t, "images/"+name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	front, passport := "front", "passport"
	dob := "1974-08-12"
	session := "lvs_1"
	input := func(selfie string) decision.Input {
		return decision.Input{
			LivenessSessions: []kyc.LivenessSession{{ID: session, RequestID: "kyc_1", Status: kyc.LivenessPassed,
				Challenge: []string{"turn_left", "look_up"}, Verdict: json.RawMessage(`{"passed":true,"checks":[]}`)}},
			Request: &kyc.KYCRequest{ID: "kyc_1", OrganizationID: org.ID, Environment: kyc.Live, ApplicantID: "app_1",
				DocumentData: &kyc.DocumentData{DocumentType: "id_card", IssuingCountry: "SE", DocumentNumber: "D23145890", ExpiryDate: "2031-04-15",
					MRZ: erikssonMRZ("310415")}},
			Applicant: &kyc.Applicant{ID: "app_1", FirstName: "Anna Maria", LastName: "Eriksson", DOB: &dob},
			Captures: []kyc.Capture{
				{ID: "cap_doc", Kind: "document", Side: &front, DocumentType: &passport, Data: load("doc_td2_uto_icao_specimen.jpg"),
					SHA256: "a", SourceSHA256: "a", Method: kyc.MethodUpload, IP: "192.0.2.1"},
				{ID: "cap_selfie", Kind: "selfie", Data: load(selfie), SHA256: "b", SourceSHA256: "b", Method: kyc.MethodCameraChallenge,
					SessionID: &session, IP: "192.0.2.1"},
			},
		}
	}
	for _, c := range []struct {
		name, selfie string
		outcome      decision.Outcome
		status       decision.Status
		first        string // first reason
	}{
		// The specimen's passport page shows the same person.
		{"same person, but a document as the selfie", "doc_td3_uto_icao_specimen.jpg", decision.Reject, decision.Pass, decision.CodeSpecimen},
		{"someone else", "face_eileencollins_01.png", decision.Reject, decision.Fail, decision.CodeSpecimen},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := engine.Decide(t.Context(), input(c.selfie))
			if err != nil {
				t.Fatal(err)
			}
			var fm *decision.Signal
			for _, s := range res.Processing["signals"].([]decision.Signal) {
				if s.Name == decision.SigFaceMatch {
					fm = &s
				}
			}
			if fm == nil {
				t.Fatal("no face_match signal")
			}
			t.Logf("%s: %s, face_match %s distance %v", c.name, res.Outcome, fm.Status, fm.Data["distance"])
			if res.Outcome != c.outcome || fm.Status != c.status {
				t.Fatalf("outcome %s, face_match %s (%s); want %s, %s; reasons %v", res.Outcome, fm.Status, fm.Detail,
					c.outcome, c.status, res.Processing["reasons"])
			}
			if res.Processing["reasons"].([]decision.Reason)[0].Code != c.first {
				t.Errorf("reasons %v, want %s first", res.Processing["reasons"], c.first)
			}
			if d, s := fm.Data["document"].(map[string]any), fm.Data["selfie"].(map[string]any); d["captureId"] != "cap_doc" || s["captureId"] != "cap_selfie" {
				t.Errorf("face_match sides %v, %v", d, s)
			}
			if len(res.Faces) != 2 || res.Faces[0].CaptureID != "cap_doc" || res.Faces[1].CaptureID != "cap_selfie" ||
				res.Faces[1].RequestID != "kyc_1" || res.Faces[1].ApplicantID != "app_1" || len(res.Faces[1].Descriptor) != face.DescriptorLen {
				t.Errorf("descriptors to store: %+v", res.Faces)
			}

			again, err := engine.Decide(t.Context(), input(c.selfie))
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(res.Processing)
			b, _ := json.Marshal(again.Processing)
			if string(a) != string(b) {
				t.Errorf("the same input decided twice differs:\n%s\n%s", a, b)
			}
		})
	}
}

// TestAutoFaceMatchNeedsImageSignals: without image signals nothing is
// decoded, and face matching is recorded as not run.
func TestAutoFaceMatchNeedsImageSignals(t *testing.T) {
	st := storetest.Open(t)
	engine := &decision.Auto{Store: st, Now: time.Now,
		Screen: func(context.Context, string, kyc.Environment, string, string, *string, *string) ([]kyc.ListResult, error) {
			return nil, nil
		}}
	res, err := engine.Decide(t.Context(), decision.Input{Request: &kyc.KYCRequest{ID: "kyc_1", Environment: kyc.Live},
		Applicant: &kyc.Applicant{ID: "app_1"}, Captures: []kyc.Capture{{ID: "cap_selfie", Kind: "selfie"}}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range res.Processing["signals"].([]decision.Signal) {
		if s.Name == decision.SigFaceMatch || s.Name == decision.SigDuplicateFace {
			n++
			if s.Status != decision.NotRun {
				t.Errorf("%s: %s", s.Name, s.Status)
			}
		}
	}
	if n != 2 || res.Faces != nil {
		t.Errorf("%d face signals, faces %v", n, res.Faces)
	}
}

func TestDuplicateFace(t *testing.T) {
	var selfie face.Descriptor
	selfie[0] = 1
	near, far := make([]float32, face.DescriptorLen), make([]float32, face.DescriptorLen)
	near[0], near[1] = 1, 0.3 // distance 0.3
	far[1] = 1                // distance √2
	nearer := make([]float32, face.DescriptorLen)
	nearer[0], nearer[2] = 1, 0.1
	others := []store.FaceDescriptor{
		{RequestID: "kyc_far", Descriptor: far},
		{RequestID: "kyc_near", Descriptor: near},
		{RequestID: "kyc_short", Descriptor: []float32{1}}, // not a descriptor: skipped
		{RequestID: "kyc_nearer", ApplicantID: "app_2", CaptureID: "cap_2", Descriptor: nearer},
	}
	if s := decision.DuplicateFace(nil, others); s.Status != decision.NotRun || s.Name != decision.SigDuplicateFace {
		t.Errorf("no selfie: %s", s.Status)
	}
	if s := decision.DuplicateFace(&selfie, others[:1]); s.Status != decision.Pass || s.Data["compared"] != 1 || s.Data["nearestDistance"] != 1.414 {
		t.Errorf("no match: %s %v", s.Status, s.Data)
	}
	s := decision.DuplicateFace(&selfie, others)
	matches := s.Data["matches"].([]map[string]any)
	if s.Status != decision.Fail || len(s.Findings) != 1 || s.Findings[0].Code != decision.CodeDuplicateFace || len(matches) != 2 ||
		matches[0]["requestId"] != "kyc_nearer" || matches[0]["distance"] != 0.1 || matches[1]["requestId"] != "kyc_near" {
		t.Fatalf("matches: %s %v %v", s.Status, s.Findings, s.Data)
	}
	if want := "The selfie's face matches a face another applicant submitted (request kyc_nearer): descriptor distance 0.10, below the threshold 0.60. 2 faces of other applicants match."; s.Detail != want {
		t.Errorf("detail %q", s.Detail)
	}
}

// erikssonMRZ is the ICAO specimen passport's MRZ with the given expiry
// (YYMMDD), its check digits computed.
func erikssonMRZ(expiry string) string {
	d := func(s string) string { return s + string(mrz.CheckDigit(s)) }
	num, dob, exp, personal := d("L898902C3"), d("740812"), d(expiry), d("ZE184226B<<<<<")
	return "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\n" + num + "UTO" + dob + "F" + exp + personal + string(mrz.CheckDigit(num+dob+exp+personal))
}

// BenchmarkDuplicateFace compares a selfie with 10,000 stored faces.
func BenchmarkDuplicateFace(b *testing.B) {
	others := make([]store.FaceDescriptor, 10000)
	for i := range others {
		d := make([]float32, face.DescriptorLen)
		for j := range d {
			d[j] = float32((i*31+j*17)%97) / 97
		}
		others[i].Descriptor = d
	}
	var selfie face.Descriptor
	for b.Loop() {
		decision.DuplicateFace(&selfie, others)
	}
}
