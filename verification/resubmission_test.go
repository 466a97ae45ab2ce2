package verification

import (
	"strings"
	"testing"

	"kycd/kyc"
)

// TestCurrentEvidence: after resubmissions, the engine gets the latest
// image of each kind and side and the camera checks of the selfie's
// attempt, never a superseded image; the earlier ones stay for people.
func TestCurrentEvidence(t *testing.T) {
	front, back := "front", "back"
	capture := func(id, kind string, side *string, attempt int) kyc.Capture {
		return kyc.Capture{ID: id, Kind: kind, Side: side, Attempt: attempt}
	}
	session := func(id string, attempt int) kyc.LivenessSession { return kyc.LivenessSession{ID: id, Attempt: attempt} }
	for _, tt := range []struct {
		name     string
		caps     []kyc.Capture
		sessions []kyc.LivenessSession
		want     string
	}{
		{"first attempt", []kyc.Capture{capture("f1", "document", &front, 1), capture("s1", "selfie", nil, 1)},
			[]kyc.LivenessSession{session("l1", 1), session("l1b", 1)}, "f1,s1|l1,l1b"},
		{"front redone", []kyc.Capture{capture("f1", "document", &front, 1), capture("b1", "document", &back, 1), capture("s1", "selfie", nil, 1),
			capture("f2", "document", &front, 2)}, []kyc.LivenessSession{session("l1", 1)}, "b1,s1,f2|l1"},
		{"selfie redone with a camera check", []kyc.Capture{capture("f1", "document", &front, 1), capture("s1", "selfie", nil, 1),
			capture("s2", "selfie", nil, 2)}, []kyc.LivenessSession{session("l1", 1), session("l2", 2)}, "f1,s2|l2"},
		// An uploaded selfie on the new attempt: no camera check vouches
		// for it, not even the first attempt's passed one.
		{"selfie redone as an upload", []kyc.Capture{capture("f1", "document", &front, 1), capture("s1", "selfie", nil, 1),
			capture("s2", "selfie", nil, 2)}, []kyc.LivenessSession{session("l1", 1)}, "f1,s2|"},
		{"front then selfie", []kyc.Capture{capture("f1", "document", &front, 1), capture("s1", "selfie", nil, 1),
			capture("f2", "document", &front, 2), capture("s3", "selfie", nil, 3)},
			[]kyc.LivenessSession{session("l1", 1), session("l3", 3)}, "f2,s3|l3"},
		{"document only", []kyc.Capture{capture("f1", "document", &front, 1), capture("f2", "document", &front, 2)}, nil, "f2|"},
	} {
		caps, sessions := currentEvidence(tt.caps, tt.sessions)
		var c, s []string
		for _, x := range caps {
			c = append(c, x.ID)
		}
		for _, x := range sessions {
			s = append(s, x.ID)
		}
		if got := strings.Join(c, ",") + "|" + strings.Join(s, ","); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}
