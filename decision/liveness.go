package decision

import (
	"encoding/json"
	"fmt"
	"image"
	"slices"
	"strings"

	"kycd/face"
	"kycd/kyc"
	"kycd/liveness"
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

// PassiveAccuracy is what the passive models' scores were measured to be
// worth (face.TestPassiveAttackDetection, on the NUAA genuine and
// printed-photo crops of pad/, screen replays simulated from them, and
// the shared head-movement frames; nothing tuned): ROC AUC 0.53
// (antispoof) and 0.55 (liveness) over 40 attacks against 22 genuine
// faces, 0.36 on printed photos, where attacks score higher than genuine
// faces more often than not. A signal needs AUC ≥ 0.9 on data it was not
// set on to be evidence; these are not, so passive_liveness records their
// outputs for information and is not_run: it decides nothing and never
// emits PASSIVE_SPOOF_SCORE (kept as a code so that stored policies
// still read).
const PassiveAccuracy = "not evidence: ROC AUC 0.53 (antispoof) and 0.55 (liveness) on 40 presentation attacks (printed photos, simulated screens, a phone replay) against 22 genuine faces; 0.36 on printed photos (face.TestPassiveAttackDetection)"

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
	var unlit []string         // sessions whose faces did not reflect the screen's colours
	light := map[string]lightCheck{}
	for i, ss := range sessions {
		item := map[string]any{"id": ss.ID, "status": ss.Status, "challenge": ss.Challenge, "frames": len(ss.Frames)}
		var v struct {
			Checks []struct {
				Name   string `json:"name"`
				Passed bool   `json:"passed"`
				NotRun bool   `json:"notRun"`
				Code   string `json:"code"`
				Detail string `json:"detail"`
			} `json:"checks"`
		}
		if ss.Verdict != nil && json.Unmarshal(ss.Verdict, &v) == nil {
			var failed []string
			for _, c := range v.Checks {
				if !c.Passed && !c.NotRun {
					failed = append(failed, c.Code)
				}
				if c.Name == liveness.CheckLight {
					light[ss.ID] = lightCheck{ran: true, passed: c.Passed, notRun: c.NotRun, detail: c.Detail}
				}
			}
			item["failed"] = failed
			if slices.Contains(failed, CodeLivenessDiscontinuous) {
				discontinuous = append(discontinuous, ss.ID)
			}
			if slices.Contains(failed, CodeLivenessLightMismatch) {
				unlit = append(unlit, ss.ID)
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
		// The session's movements passed; its screen colours must have
		// been seen on the face too. A session that could not measure
		// them (too dark, overexposed) or asked none proved nothing
		// about the light: not_run, which live sends to review.
		if lc := light[from.ID]; !lc.passed && len(s.Findings) == 0 {
			why := "the session asked for no screen colours"
			if lc.ran {
				why = strings.TrimSuffix(lc.detail, ".")
			}
			s.Status, s.Score = NotRun, 0
			s.Detail = fmt.Sprintf("The selfie comes from camera session %s, whose head movements passed, but its screen-light check did not run: %s.", from.ID, why)
			return s
		}
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
	if len(unlit) > 0 {
		s.add(Fail, 0, CodeLivenessLightMismatch, fmt.Sprintf(
			"In camera session(s) %s the face did not take on the screen colours the server asked for (see the session's screen_light check): recorded or relit footage, or too much ambient light.",
			strings.Join(unlit, ", ")))
	}
	s.add(Fail, 0, CodeSelfieNotLive, msg)
	s.Detail = s.Findings[0].Message
	return s
}

// lightCheck is a session's screen-light check as its verdict recorded it.
type lightCheck struct {
	ran, passed, notRun bool
	detail              string
}

// PassiveLiveness runs the passive anti-spoofing models on the selfie's
// face f (found in img by face_match) and records their outputs for
// information. It is always not_run: measured on labelled attacks the
// models do not separate them (PassiveAccuracy), so they are no evidence
// either way and the decision does not count them.
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
	s := notRun(SigPassiveLiveness, fmt.Sprintf(
		"Not used as evidence: the anti-spoofing models do not separate attacks from genuine faces (ROC AUC 0.53 on labelled attacks); their scores (real %.2f) are recorded for information.", p.Real))
	s.CaptureID = selfie.ID
	s.Data["antispoofReal"] = round3(p.Real)
	s.Data["livenessLive"] = round3(p.Live)
	s.Data["model"] = face.PassiveModels
	s.Data["accuracy"] = PassiveAccuracy
	s.Data["excluded"] = true
	return s
}
