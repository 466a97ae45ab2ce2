package portal

import (
	"bytes"
	"errors"
	"image"
	_ "image/jpeg" // frames are re-encoded as JPEG (or PNG) by capture
	_ "image/png"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"kycd/capture"
	"kycd/kyc"
	"kycd/liveness"
	"kycd/store"
)

// Frame limits: the page sends small JPEGs (at most 640 px), so a frame
// of more than 2 MB or 1.3 MP is not from it, and the face models' cost
// stays bounded.
const (
	maxFrameBytes  = 2 << 20
	maxFramePixels = 1_300_000
	// maxAnalyses is how many sessions' frames are analysed at once; more
	// wait their turn (each takes about a second of CPU on two cores).
	maxAnalyses = 2
)

var frameLimits = capture.Limits{MaxBytes: maxFrameBytes, MaxPixels: maxFramePixels}

// livenessOpenResponse is the 201 answer that opens a session: the first
// step only (the server reveals each next movement once the previous
// step's frames arrived), how many steps there are, and the nonce the
// page sends back with the frames.
type livenessOpenResponse struct {
	ID    string `json:"id"`
	Nonce string `json:"nonce"`
	Steps int    `json:"steps"`
	Move  string `json:"move"`
	// Light is the screen colour the page shows around the camera view
	// during the first step (the neutral reference); each next step's is
	// revealed with its movement.
	Light string `json:"light"`
	// StepSeconds is how long after a step is revealed its frames must
	// have arrived.
	StepSeconds int `json:"stepSeconds"`
	// Deadline is when the frames must have arrived; Seconds is the same
	// as a duration, for a page whose clock is off.
	Deadline         string `json:"deadline"`
	Seconds          int    `json:"seconds"`
	MaxFramesPerStep int    `json:"maxFramesPerStep"`
	SessionsLeft     int    `json:"sessionsLeft"`
}

// handleLivenessOpen handles "POST /portal/{token}/liveness": it opens a
// challenge-bound selfie capture session.
func (p *portal) handleLivenessOpen(w http.ResponseWriter, r *http.Request) error {
	token, err := p.usableToken(r)
	if err != nil {
		return err
	}
	var sess *kyc.LivenessSession
	var nonce string
	left := 0
	err = p.store.InTx(r.Context(), func(tx *store.Tx) error {
		var err error
		if sess, nonce, err = p.svc.OpenLivenessSession(tx, token, truncate(r.UserAgent(), maxUserAgent), p.clientIP(r)); err != nil {
			return err
		}
		n, err := tx.CountLivenessSessions(sess.RequestID)
		left = kyc.MaxLivenessSessions - n
		return err
	})
	if err != nil {
		return livenessError(err)
	}
	p.writeJSON(w, r, http.StatusCreated, livenessOpenResponse{ID: sess.ID, Nonce: nonce, Steps: len(sess.Challenge) + 1,
		Move: string(liveness.LookStraight), Light: string(liveness.Neutral), StepSeconds: int(liveness.StepDeadline / time.Second),
		Deadline: kyc.FormatTime(sess.DeadlineAt), Seconds: int(liveness.Deadline / time.Second),
		MaxFramesPerStep: liveness.MaxFramesPerStep, SessionsLeft: left})
	return nil
}

// livenessResult is the answer to a session's frames: the verdict, with
// the failed checks' codes for the page to explain, never the evidence.
type livenessResult struct {
	SessionID string               `json:"sessionId"`
	Passed    bool                 `json:"passed"`
	Failed    []livenessFailedPart `json:"failed"`
	Selfie    *captureResponse     `json:"selfie"`
	// SelfieFrame is the index of the frame that became the selfie; -1
	// when the session failed.
	SelfieFrame  int `json:"selfieFrame"`
	SessionsLeft int `json:"sessionsLeft"`
}

type livenessFailedPart struct {
	Check string `json:"check"`
	Code  string `json:"code"`
	Step  *int   `json:"step,omitempty"`
}

// handleLivenessFrames handles "POST /portal/{token}/liveness/{id}": the
// frames of session id, as multipart/form-data: nonce, steps (the step of
// each frame, comma-separated, in capture order), then the frames as
// parts named frame, in the same order. The server decides: 200 with the
// verdict, passed or not. A session whose frames already came is 409.
func (p *portal) handleLivenessFrames(w http.ResponseWriter, r *http.Request) error {
	token, err := p.usableToken(r)
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, liveness.MaxFrames*(maxFrameBytes+4<<10)+multipartOverhead)
	form, err := readFramesForm(r)
	if err != nil {
		return err
	}
	received := p.store.Now()

	var sess *kyc.LivenessSession
	var reused bool
	err = p.store.InTx(r.Context(), func(tx *store.Tx) error {
		var err error
		sess, reused, err = p.svc.LivenessSessionForUpload(tx, token, r.PathValue("id"), form.nonce)
		return err
	})
	if err != nil {
		return livenessError(err)
	}
	if reused {
		return livenessError(&kyc.Error{Code: kyc.EConflict, Reason: "session_used",
			Message: "This camera check was already sent. Start a new one."})
	}
	ch, err := p.challengeOf(sess)
	if err != nil {
		return err
	}
	if len(form.steps) != len(form.frames) {
		return invalidForm(kyc.FieldError{Field: "steps", Message: "must name the step of every frame"})
	}
	// The session was paced: every step's frames went to the server as it
	// was revealed, and are the ones sent now.
	byStep := map[int][][]byte{}
	for i, s := range form.steps {
		byStep[s] = append(byStep[s], form.frames[i])
	}
	paced, err := liveness.CheckReceipts(p.stepKey, sess.ID, sess.OpenedAt, ch.Steps(), ch.Lights, form.receipts, byStep)
	if err != nil {
		return invalidForm(kyc.FieldError{Field: "receipts", Message: "must be the receipts of every step of this session, for these frames: " + err.Error()})
	}

	// Check and re-encode every frame as any upload (type, size, no
	// metadata; through the decoding gate), then decode it for the models.
	frames := make([]liveness.Frame, len(form.frames))
	stored := make([]kyc.LivenessFrame, len(form.frames))
	processed := make([]*capture.Image, len(form.frames))
	for i, raw := range form.frames {
		img, err := p.gate.Process(r.Context(), raw, frameLimits)
		if err != nil {
			return imageError(err)
		}
		decoded, _, err := image.Decode(bytes.NewReader(img.Data))
		if err != nil {
			return err
		}
		frames[i] = liveness.Frame{Step: form.steps[i], Image: decoded}
		stored[i] = kyc.LivenessFrame{Seq: i, Step: form.steps[i], ContentType: img.ContentType, Width: img.Width,
			Height: img.Height, SHA256: img.SHA256, Data: img.Data}
		processed[i] = img
	}

	select {
	case p.analyses <- struct{}{}:
	case <-r.Context().Done():
		return r.Context().Err()
	}
	res, err := liveness.Analyze(ch, frames, liveness.Timing{Opened: sess.OpenedAt, Deadline: sess.DeadlineAt, Received: received, Steps: paced})
	<-p.analyses
	if err != nil {
		return err
	}
	if res.Verdict.Light != nil {
		// What the page says it showed: evidence only.
		res.Verdict.Light.Shown = form.lights
	}

	v := res.Verdict
	var selfie *kyc.Capture
	var selfieData []byte
	if v.Passed && v.Selfie >= 0 {
		img := processed[v.Selfie]
		selfie = &kyc.Capture{ContentType: img.ContentType, Width: img.Width, Height: img.Height, SHA256: img.SHA256,
			SourceSHA256: img.SourceSHA256, UserAgent: truncate(r.UserAgent(), maxUserAgent), IP: p.clientIP(r),
			Meta: map[string]any{"clientMethod": "camera", "sessionId": sess.ID, "frame": v.Selfie, "sourceType": img.SourceType,
				"hadExif": img.Metadata.HadEXIF, "hadGps": img.Metadata.HadGPS, "software": img.Metadata.Software}}
		selfieData = img.Data
	}
	sess.ReceivedAt = &received
	left := 0
	err = p.store.InTx(r.Context(), func(tx *store.Tx) error {
		if _, err := p.svc.FinishLivenessSession(tx, token, sess, v, stored, selfie, selfieData); err != nil {
			return err
		}
		n, err := tx.CountLivenessSessions(sess.RequestID)
		left = kyc.MaxLivenessSessions - n
		return err
	})
	if err != nil {
		return livenessError(err)
	}
	out := livenessResult{SessionID: sess.ID, Passed: v.Passed, Failed: []livenessFailedPart{}, SessionsLeft: left, SelfieFrame: -1}
	for _, c := range v.Failed() {
		part := livenessFailedPart{Check: c.Name, Code: c.Code}
		if c.Name == liveness.CheckMovement {
			for _, st := range v.Steps {
				if !st.Passed {
					step := st.Step
					part.Step = &step
					break
				}
			}
		}
		out.Failed = append(out.Failed, part)
	}
	if selfie != nil {
		out.Selfie = &captureResponse{ID: selfie.ID, Kind: selfie.Kind, Width: selfie.Width, Height: selfie.Height}
		out.SelfieFrame = v.Selfie
	}
	p.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// challengeOf is the session's challenge: its stored movements, and the
// screen colours the server draws from its key and the session's id.
func (p *portal) challengeOf(sess *kyc.LivenessSession) (liveness.Challenge, error) {
	ch := liveness.Challenge{}
	for _, m := range sess.Challenge {
		ch.Moves = append(ch.Moves, liveness.Move(m))
	}
	ch.Lights = liveness.Lights(p.stepKey, sess.ID, ch.Steps())
	return ch, ch.Validate()
}

// livenessError gives the session's refusals their statuses: 409 for a
// session already used, 422 when the request has used all its sessions.
func livenessError(err error) error {
	var e *kyc.Error
	if errors.As(err, &e) {
		switch {
		case e.Code == kyc.EConflict:
			return &statusError{status: http.StatusConflict, err: e}
		case e.Code == kyc.EUnprocessable && e.Reason == "too_many_sessions":
			return &statusError{status: http.StatusUnprocessableEntity, err: e}
		}
	}
	return err
}

// framesForm is a parsed frames upload.
type framesForm struct {
	nonce  string
	steps  []int
	frames [][]byte
	// receipt is the previous step's receipt (a step upload); receipts
	// every step's (the final upload).
	receipt  string
	receipts []string
	// lights is the colour the page says it showed in each step
	// (evidence only).
	lights []string
}

// readFramesForm reads the multipart body part by part, each frame once,
// into memory, within the body limit.
func readFramesForm(r *http.Request) (*framesForm, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, invalidForm(kyc.FieldError{Field: "body", Message: "must be multipart/form-data"})
	}
	f := &framesForm{}
	var details []kyc.FieldError
	seen := map[string]bool{}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bodyError(err)
		}
		name := part.FormName()
		switch name {
		case "frame":
			if len(f.frames) == liveness.MaxFrames {
				return nil, invalidForm(kyc.FieldError{Field: "frame", Message: "at most " + strconv.Itoa(liveness.MaxFrames) + " frames"})
			}
			b, err := io.ReadAll(io.LimitReader(part, maxFrameBytes+1))
			if err != nil {
				return nil, bodyError(err)
			}
			if len(b) > maxFrameBytes {
				return nil, &statusError{status: http.StatusRequestEntityTooLarge, err: &kyc.Error{Code: kyc.EValidation,
					Message: "error.liveness_frame_too_large", Reason: "frame_too_large",
					Details: []kyc.FieldError{{Field: "frame", Message: "is larger than 2 MB"}}}}
			}
			f.frames = append(f.frames, b)
		case "nonce", "steps", "receipt", "receipts", "lights":
			// A receipt is about 300 characters; a session has at most
			// MaxMoves+1 of them.
			limit := 255
			if name == "receipt" || name == "receipts" {
				limit = 4095
			}
			v, err := io.ReadAll(io.LimitReader(part, int64(limit+1)))
			if err != nil {
				return nil, bodyError(err)
			}
			if seen[name] || len(v) > limit {
				details = append(details, kyc.FieldError{Field: name, Message: "must be sent once, as a short text"})
			}
			seen[name] = true
			switch name {
			case "nonce":
				f.nonce = string(v)
			case "receipt":
				f.receipt = string(v)
			case "receipts":
				f.receipts = strings.Split(string(v), ",")
			case "lights":
				f.lights = strings.Split(string(v), ",")
				if len(f.lights) > liveness.MaxMoves+1 || slices.ContainsFunc(f.lights, func(l string) bool { _, _, _, ok := liveness.Light(l).RGB(); return !ok }) {
					details = append(details, kyc.FieldError{Field: "lights", Message: "must be the colours shown, one per step, as #rrggbb"})
				}
			default:
				if f.steps, err = parseSteps(string(v)); err != nil {
					details = append(details, kyc.FieldError{Field: "steps", Message: "must be step numbers separated by commas"})
				}
			}
		default:
			details = append(details, kyc.FieldError{Field: name, Message: "is not a field of this form"})
		}
	}
	if f.nonce == "" {
		details = append(details, kyc.FieldError{Field: "nonce", Message: "is required"})
	}
	if len(f.frames) == 0 {
		details = append(details, kyc.FieldError{Field: "frame", Message: "is required: attach the frames"})
	}
	if len(details) > 0 {
		return nil, invalidForm(details...)
	}
	return f, nil
}

func parseSteps(s string) ([]int, error) {
	var out []int
	for _, v := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 || n > liveness.MaxMoves {
			return nil, errors.New("bad step")
		}
		out = append(out, n)
	}
	return out, nil
}
