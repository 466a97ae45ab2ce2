package decision

import (
	"encoding/json"
	"fmt"
	"image"
	"slices"
	"strings"

	"kycd/face"
	"kycd/kyc"
)

// Signals and codes about whether the selfie shows a live person.
const (
	// SigSelfieLiveness says whether the selfie came out of a passed
	// challenge-bound capture session (package liveness): the server saw
	// the applicant's head follow a random challenge in real frames.
	SigSelfieLiveness = "selfie_liveness"
	// SigPassiveLiveness records the passive anti-spoofing models'
	// outputs on the selfie (face.PassiveScores).
	SigPassiveLiveness = "passive_liveness"

	CodeSelfieNotLive = "SELFIE_NOT_LIVE"
	CodeSpoofScore    = "PASSIVE_SPOOF_SCORE"
)

// PassiveRealThreshold: the passive signal routes to review when the
// antispoof model's "real" score is below it. No labelled spoof data
// exists here, so the threshold is not a measured operating point: it is
// set under the lowest score any genuine portrait of the shared face
// photos (images/face_*) got, 0.36, so that it only flags faces the model
// finds less real than every genuine one seen. Its accuracy has not been
// measured on this product's data. (On the shared head-movement frames,
// which did not set it, the phone-screen replay scored 0.13-0.39 and the
// live people 0.49-0.75; see face.TestPassiveParity's log.)
const PassiveRealThreshold = 0.3

// SelfieLiveness judges the selfie by how it was made: a camera_challenge
// capture whose session passed, or not. Data lists every session of the
// request (status, challenge, failed checks), the evidence of the one the
// selfie came from included.
func SelfieLiveness(selfie *kyc.Capture, sessions []kyc.LivenessSession) Signal {
	if selfie == nil {
		return notRun(SigSelfieLiveness, "No selfie was submitted.")
	}
	s := newSignal(SigSelfieLiveness)
	s.CaptureID = selfie.ID
	s.Data["captureMethod"] = selfie.Method
	list := make([]map[string]any, 0, len(sessions))
	var from *kyc.LivenessSession
	var discontinuous []string // sessions whose frames were not one capture
	for i, ss := range sessions {
		item := map[string]any{"id": ss.ID, "status": ss.Status, "challenge": ss.Challenge, "frames": len(ss.Frames)}
		var v struct {
			Checks []struct {
				Name   string `json:"name"`
				Passed bool   `json:"passed"`
				Code   string `json:"code"`
			} `json:"checks"`
		}
		if ss.Verdict != nil && json.Unmarshal(ss.Verdict, &v) == nil {
			var failed []string
			for _, c := range v.Checks {
				if !c.Passed {
					failed = append(failed, c.Code)
				}
			}
			item["failed"] = failed
			if slices.Contains(failed, CodeLivenessDiscontinuous) {
				discontinuous = append(discontinuous, ss.ID)
			}
		}
		list = append(list, item)
		if selfie.SessionID != nil && ss.ID == *selfie.SessionID {
			from = &sessions[i]
		}
	}
	s.Data["sessions"] = list
	// Frames that were not one continuous capture (recorded footage
	// posted a frame at a time, a mirrored frame, a splice) are an
	// attempt to be reviewed, even when a later session passed.
	if len(discontinuous) > 0 {
		s.add(Fail, 0, CodeLivenessDiscontinuous, fmt.Sprintf(
			"The frames of camera session(s) %s were not one continuous capture (see the session's continuity check).", strings.Join(discontinuous, ", ")))
	}
	if selfie.Method == kyc.MethodCameraChallenge && from != nil && from.Status == kyc.LivenessPassed {
		s.Data["sessionId"] = from.ID
		s.Score = 1
		s.Detail = fmt.Sprintf("The selfie comes from camera session %s, in which the applicant's head followed the challenge (%d frames).",
			from.ID, len(from.Frames))
		if len(s.Findings) > 0 {
			s.Detail = s.Findings[0].Message
		}
		return s
	}
	msg := "The selfie was uploaded, not taken in a camera session that proved a live person."
	if n := len(sessions); n > 0 {
		msg = fmt.Sprintf("The selfie was uploaded, not taken in a camera session that proved a live person (%d camera session(s) failed or were not finished).", n)
	}
	s.add(Fail, 0, CodeSelfieNotLive, msg)
	s.Detail = s.Findings[0].Message
	return s
}

// PassiveLiveness runs the passive anti-spoofing models on the selfie's
// face f (found in img by face_match). Their outputs are a signal of
// their own, never a rejection: below PassiveRealThreshold it routes to
// review. Data says what the scores are and that their accuracy is not
// measured here.
func PassiveLiveness(selfie *kyc.Capture, img image.Image, f *imageFace) Signal {
	switch {
	case selfie == nil:
		return notRun(SigPassiveLiveness, "No selfie was submitted.")
	case f == nil || f.err != nil:
		return notRun(SigPassiveLiveness, "The selfie could not be analysed.")
	case f.face == nil:
		s := notRun(SigPassiveLiveness, "No face was found in the selfie.")
		s.CaptureID = selfie.ID
		return s
	case f.turned != 0:
		s := notRun(SigPassiveLiveness, "The selfie's face was found only with the image turned.")
		s.CaptureID = selfie.ID
		return s
	}
	p, err := face.PassiveScores(img, f.face)
	if err != nil {
		s := notRun(SigPassiveLiveness, "The passive models could not run: "+err.Error())
		s.CaptureID = selfie.ID
		return s
	}
	s := newSignal(SigPassiveLiveness)
	s.CaptureID = selfie.ID
	s.Data["antispoofReal"] = round3(p.Real)
	s.Data["livenessLive"] = round3(p.Live)
	s.Data["realThreshold"] = PassiveRealThreshold
	s.Data["model"] = face.PassiveModels
	s.Data["accuracy"] = "not measured on this product's data; a signal for review, never a decision"
	s.Score = round3(p.Real)
	if p.Real < PassiveRealThreshold {
		s.add(Warn, round3(p.Real), CodeSpoofScore, fmt.Sprintf(
			"The anti-spoofing model scored the selfie %.2f real, below %.2f: a reviewer should look at it.", p.Real, PassiveRealThreshold))
		s.Detail = s.Findings[0].Message
		return s
	}
	s.Detail = fmt.Sprintf("The anti-spoofing model scored the selfie %.2f real (review below %.2f); not a proof either way.", p.Real, PassiveRealThreshold)
	return s
}
