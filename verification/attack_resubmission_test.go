package verification

import (
	"testing"

	"kycd/decision"
	"kycd/kyc"
)

// TestAttackResubmissionSwapsInUploads: a resubmission used to swap an
// uploaded file in for a camera capture. Whatever the first attempt
// proved (a passed camera check, a document taken in the server's camera
// session), what the engine is handed for the new attempt is judged on
// its own: an uploaded selfie, even one claiming the first attempt's
// passed session, is SELFIE_NOT_LIVE; an uploaded front is
// DOCUMENT_UPLOADED. Both are fails the live policy never approves.
func TestAttackResubmissionSwapsInUploads(t *testing.T) {
	front, back := "front", "back"
	l1 := "lvs_1"
	passed := kyc.LivenessSession{ID: l1, Attempt: 1, Status: kyc.LivenessPassed}
	camSelfie := kyc.Capture{ID: "s1", Kind: "selfie", Attempt: 1, Method: kyc.MethodCameraChallenge, SessionID: &l1}
	camFront := kyc.Capture{ID: "f1", Kind: "document", Side: &front, Attempt: 1, Method: kyc.MethodCameraSession}
	camBack := kyc.Capture{ID: "b1", Kind: "document", Side: &back, Attempt: 1, Method: kyc.MethodCameraSession}
	for _, tt := range []struct {
		name string
		redo kyc.Capture
		code string
	}{
		{"uploaded selfie", kyc.Capture{ID: "s2", Kind: "selfie", Attempt: 2, Method: kyc.MethodUpload}, decision.CodeSelfieNotLive},
		// The forged link to the first attempt's passed session.
		{"uploaded selfie naming the passed session", kyc.Capture{ID: "s2", Kind: "selfie", Attempt: 2, Method: kyc.MethodUpload, SessionID: &l1}, decision.CodeSelfieNotLive},
		// Even a camera_challenge claim: the session it names is not of
		// its attempt, so the engine does not see it.
		{"selfie claiming camera_challenge of the first session", kyc.Capture{ID: "s2", Kind: "selfie", Attempt: 2, Method: kyc.MethodCameraChallenge, SessionID: &l1}, decision.CodeSelfieNotLive},
		{"uploaded front", kyc.Capture{ID: "f2", Kind: "document", Side: &front, Attempt: 2, Method: kyc.MethodUpload,
			Meta: map[string]any{"clientMethod": "camera"}}, decision.CodeDocumentUploaded},
	} {
		caps, sessions := currentEvidence([]kyc.Capture{camFront, camBack, camSelfie, tt.redo}, []kyc.LivenessSession{passed})
		var selfie *kyc.Capture
		var docs []kyc.Capture
		for i := range caps {
			if caps[i].Kind == "selfie" {
				selfie = &caps[i]
			} else {
				docs = append(docs, caps[i])
			}
		}
		found := false
		for _, s := range []decision.Signal{decision.SelfieLiveness(selfie, sessions), decision.DocumentCapture(docs)} {
			for _, f := range s.Findings {
				found = found || (f.Code == tt.code && s.Status == decision.Fail)
			}
		}
		if !found {
			t.Errorf("%s: no failing %s; the engine would see %v / %v", tt.name, tt.code, caps, sessions)
		}
	}
}
