package verification

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"kycd/kyc"
	"kycd/liveness"
	"kycd/store"
)

// OpenLivenessSession opens a challenge-bound selfie capture session for
// the request behind token: a random challenge, a deadline and a nonce
// the page must send back with the frames (only its hash is stored). A
// request may open kyc.MaxLivenessSessions sessions; past that the
// applicant uploads a photo instead, which a live policy sends to review.
func (s *Service) OpenLivenessSession(tx *store.Tx, token, userAgent, ip string) (*kyc.LivenessSession, string, error) {
	r, err := s.Open(tx, token)
	if err != nil {
		return nil, "", err
	}
	if err := gateSession(tx, r, true); err != nil {
		return nil, "", err
	}
	n, err := tx.CountLivenessSessions(r.ID)
	if err != nil {
		return nil, "", err
	}
	if n >= kyc.MaxLivenessSessions {
		return nil, "", &kyc.Error{Code: kyc.EUnprocessable, Reason: "too_many_sessions", Message: fmt.Sprintf(
			"This verification has used all %d camera checks. Upload a photo of your face instead.", kyc.MaxLivenessSessions)}
	}
	ch, err := liveness.NewChallenge(nil)
	if err != nil {
		return nil, "", err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, "", fmt.Errorf("liveness nonce: %w", err)
	}
	nonce := base64.RawURLEncoding.EncodeToString(raw[:])
	sess := &kyc.LivenessSession{RequestID: r.ID, Status: kyc.LivenessOpen, OpenedAt: tx.Now(),
		DeadlineAt: tx.Now().Add(liveness.Deadline), UserAgent: userAgent, IP: ip}
	for _, m := range ch.Moves {
		sess.Challenge = append(sess.Challenge, string(m))
	}
	if err := tx.CreateLivenessSession(sess, nonceHash(nonce)); err != nil {
		return nil, "", err
	}
	return sess, nonce, nil
}

func nonceHash(nonce string) string {
	h := sha256.Sum256([]byte(nonce))
	return hex.EncodeToString(h[:])
}

// LivenessSessionForUpload checks, before the frames are analysed, that
// session id belongs to token's usable request and that nonce is its
// nonce. Reused is true when its frames already arrived: the upload is
// then refused without running the models.
func (s *Service) LivenessSessionForUpload(tx *store.Tx, token, id, nonce string) (sess *kyc.LivenessSession, reused bool, err error) {
	r, err := s.usable(tx, token)
	if err != nil {
		return nil, false, err
	}
	sess, hash, err := tx.FindLivenessSession(r.ID, id)
	if err != nil {
		return nil, false, err
	}
	if sess.Attempt != r.Attempt {
		return nil, false, kyc.Errorf(kyc.ENotFound, "Capture session not found.")
	}
	if subtle.ConstantTimeCompare([]byte(hash), []byte(nonceHash(nonce))) != 1 {
		return nil, false, &kyc.Error{Code: kyc.EValidation, Reason: "nonce_mismatch",
			Message: "This capture does not belong to the session it was sent to. Start the camera check again.",
			Details: []kyc.FieldError{{Field: "nonce", Message: "does not match the session"}}}
	}
	return sess, sess.ReceivedAt != nil, nil
}

// FinishLivenessSession records a session's frames and verdict (sess's
// ReceivedAt set by the caller to when the frames arrived). When the
// verdict passed, selfie — the chosen frame, as a capture — becomes the
// request's selfie, a camera_challenge capture tied to the session; it
// replaces an earlier selfie. A session whose frames already arrived is
// CONFLICT: each nonce is used once, even when two uploads race.
func (s *Service) FinishLivenessSession(tx *store.Tx, token string, sess *kyc.LivenessSession, v liveness.Verdict,
	frames []kyc.LivenessFrame, selfie *kyc.Capture, selfieData []byte) (*kyc.KYCRequest, error) {
	r, err := s.Open(tx, token)
	if err != nil {
		return nil, err
	}
	if sess.RequestID != r.ID || sess.Attempt != r.Attempt {
		return nil, kyc.Errorf(kyc.ENotFound, "Capture session not found.")
	}
	// The description says checks, steps and frames are arrays: a
	// verdict that has none of one says so with [], never null.
	if v.Checks == nil {
		v.Checks = []liveness.Check{}
	}
	if v.Steps == nil {
		v.Steps = []liveness.StepResult{}
	}
	if v.Frames == nil {
		v.Frames = []liveness.FrameResult{}
	}
	if sess.Verdict, err = json.Marshal(v); err != nil {
		return nil, fmt.Errorf("encode verdict: %w", err)
	}
	sess.Status = kyc.LivenessFailed
	if v.Passed && selfie != nil {
		sess.Status = kyc.LivenessPassed
		selfie.RequestID, selfie.Kind, selfie.Method, selfie.SessionID = r.ID, "selfie", kyc.MethodCameraChallenge, &sess.ID
		if err := tx.SaveCapture(selfie, selfieData); err != nil {
			return nil, err
		}
		sess.SelfieCaptureID = &selfie.ID
	}
	return r, tx.FinishLivenessSession(sess, frames)
}
