package verification

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"

	"kycd/kyc"
	"kycd/store"
)

// OpenDocumentSession opens a document camera session for the request
// behind token: a nonce the page sends back with the document photos it
// takes with the camera (only its hash is stored) and a deadline
// (kyc.DocumentSessionTTL). A request may open kyc.MaxDocumentSessions.
func (s *Service) OpenDocumentSession(tx *store.Tx, token, userAgent, ip string) (*kyc.DocumentSession, string, error) {
	r, err := s.Open(tx, token)
	if err != nil {
		return nil, "", err
	}
	if err := gateSession(tx, r, false); err != nil {
		return nil, "", err
	}
	n, err := tx.CountDocumentSessions(r.ID)
	if err != nil {
		return nil, "", err
	}
	if n >= kyc.MaxDocumentSessions {
		return nil, "", &kyc.Error{Code: kyc.EUnprocessable, Reason: "too_many_sessions", Message: fmt.Sprintf(
			"This verification has opened the camera %d times. Upload a photo of your document instead.", kyc.MaxDocumentSessions)}
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, "", fmt.Errorf("document session nonce: %w", err)
	}
	nonce := base64.RawURLEncoding.EncodeToString(raw[:])
	sess := &kyc.DocumentSession{RequestID: r.ID, OpenedAt: tx.Now(), DeadlineAt: tx.Now().Add(kyc.DocumentSessionTTL), UserAgent: userAgent, IP: ip}
	if err := tx.CreateDocumentSession(sess, nonceHash(nonce)); err != nil {
		return nil, "", err
	}
	return sess, nonce, nil
}

// AddCaptureInSession is AddCapture for a photo the page says it took in
// document camera session sessionID: when the session is the request's,
// nonce is its nonce and its deadline has not passed, the capture is a
// camera_session capture; a wrong claim is refused, never downgraded in
// silence (the page then takes the photo again). An empty sessionID is
// AddCapture: an upload.
func (s *Service) AddCaptureInSession(tx *store.Tx, token string, c *kyc.Capture, data []byte, sessionID, nonce string) (*kyc.KYCRequest, error) {
	if sessionID == "" {
		return s.AddCapture(tx, token, c, data)
	}
	r, err := s.Open(tx, token)
	if err != nil {
		return nil, err
	}
	if c.Kind != "document" {
		return nil, &kyc.Error{Code: kyc.EValidation, Message: "Only document photos are taken in a document camera session.",
			Details: []kyc.FieldError{{Field: "sessionId", Message: "must be empty for a selfie"}}}
	}
	if err := gateCapture(tx, r, c, false); err != nil {
		return nil, err
	}
	sess, hash, err := tx.FindDocumentSession(r.ID, sessionID)
	if err != nil {
		return nil, err
	}
	// A session of an earlier attempt does not vouch for a photo of this
	// one.
	if sess.Attempt != r.Attempt {
		return nil, kyc.Errorf(kyc.ENotFound, "Camera session not found.")
	}
	if subtle.ConstantTimeCompare([]byte(hash), []byte(nonceHash(nonce))) != 1 {
		return nil, &kyc.Error{Code: kyc.EValidation, Reason: "nonce_mismatch",
			Message: "This photo does not belong to the camera session it was sent to. Take the photo again.",
			Details: []kyc.FieldError{{Field: "nonce", Message: "does not match the session"}}}
	}
	if !tx.Now().Before(sess.DeadlineAt) {
		return nil, &kyc.Error{Code: kyc.EConflict, Reason: "session_expired", Message: "The camera session has ended. Take the photo again."}
	}
	c.Method, c.DocumentSessionID = kyc.MethodCameraSession, &sess.ID
	c.RequestID = r.ID
	return r, tx.SaveCapture(c, data)
}
