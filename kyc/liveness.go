package kyc

import (
	"encoding/json"
	"time"
)

// Capture methods, as the server derives them: a selfie that came out of
// a passed liveness session is a camera_challenge; a document image posted
// into a document camera session the server opened is a camera_session;
// everything else is an upload, whatever the applicant's page said (that
// claim is kept as evidence in the capture's metadata, clientMethod).
const (
	MethodCameraChallenge = "camera_challenge"
	MethodCameraSession   = "camera_session"
	MethodUpload          = "upload"
)

// Liveness session statuses.
const (
	LivenessOpen   = "open"   // challenge issued, no frames yet
	LivenessPassed = "passed" // frames received and every check passed
	LivenessFailed = "failed" // frames received and a check failed
)

// DocumentSession is a document camera session: opened by the portal
// before it takes a document photo with the camera; a photo posted with
// its nonce before DeadlineAt is a camera_session capture.
type DocumentSession struct {
	ID, RequestID        string
	OpenedAt, DeadlineAt time.Time
	UserAgent, IP        string
	Attempt              int // the request's attempt it was opened in
}

// DocumentSessionTTL is how long a document camera session stays open:
// time to frame the page and take both sides, too short to prepare a
// file in an editor after the session opened.
const DocumentSessionTTL = 3 * time.Minute

// MaxDocumentSessions bounds the document camera sessions of a request.
const MaxDocumentSessions = 20

// MaxLivenessSessions is how many sessions one request may open: enough
// for retries after honest failures, too few to fish for a challenge a
// prepared recording happens to fit.
const MaxLivenessSessions = 5

// LivenessSession is one challenge-bound selfie capture session of a
// request (package liveness decides it).
type LivenessSession struct {
	ID        string
	RequestID string
	// Challenge is the movements asked for, in order, after looking
	// straight at the camera.
	Challenge  []string
	Status     string
	OpenedAt   time.Time
	DeadlineAt time.Time
	ReceivedAt *time.Time
	// Verdict is liveness.Verdict as JSON: every check with its evidence;
	// nil while the session is open.
	Verdict json.RawMessage
	// SelfieCaptureID is the capture made from the session's selfie frame
	// (passed sessions only; nil when it was replaced by a retake).
	SelfieCaptureID *string
	UserAgent       string
	IP              string
	Attempt         int // the request's attempt it was opened in
	// Frames are the session's frames, in capture order (without image
	// data unless loaded for download).
	Frames []LivenessFrame
}

// LivenessFrame is one frame of a session, kept as evidence.
type LivenessFrame struct {
	ID          string
	SessionID   string
	Seq         int
	Step        int
	ContentType string
	Size        int
	Width       int
	Height      int
	SHA256      string
	Data        []byte
}
