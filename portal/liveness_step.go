package portal

import (
	"net/http"
	"slices"

	"kycd/kyc"
	"kycd/liveness"
	"kycd/store"
)

// livenessStepResponse answers one step's frames: the server's signed
// receipt of them (the page sends it back with the next step and at the
// end) and the next step's movement, revealed only now ("" after the
// last step: the page then sends every frame with every receipt).
type livenessStepResponse struct {
	Receipt string `json:"receipt"`
	Step    int    `json:"step"`
	Move    string `json:"move"`
	// Light is the next step's screen colour, revealed with its movement.
	Light string `json:"light,omitempty"`
}

// handleLivenessStep handles "POST /portal/{token}/liveness/{id}/step":
// one step's frames, as multipart/form-data: nonce, steps (the step's
// number, once per frame), receipt (the previous step's; none for step
// 0) and the frames. The server times the step from when it revealed it
// (the session's opening for step 0, the previous receipt's arrival
// after) by its own clock, signs a receipt and reveals the next movement.
// A step that came late still gets its receipt: the session's verdict
// then fails on timing (LIVENESS_TOO_LATE).
func (p *portal) handleLivenessStep(w http.ResponseWriter, r *http.Request) error {
	token, err := p.usableToken(r)
	if err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, liveness.MaxFramesPerStep*(maxFrameBytes+4<<10)+multipartOverhead)
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
	if len(form.steps) != len(form.frames) || len(form.frames) > liveness.MaxFramesPerStep ||
		slices.ContainsFunc(form.steps, func(s int) bool { return s != form.steps[0] }) || form.steps[0] < 0 || form.steps[0] >= ch.Steps() {
		return invalidForm(kyc.FieldError{Field: "steps", Message: "must name one step of the session for each of its 1 to 3 frames"})
	}
	step := form.steps[0]
	revealed := sess.OpenedAt
	if step > 0 {
		prev, err := liveness.OpenReceipt(p.stepKey, form.receipt)
		if err != nil || prev.Session != sess.ID || prev.Step != step-1 {
			return invalidForm(kyc.FieldError{Field: "receipt", Message: "must be the server's receipt of the previous step of this session"})
		}
		revealed = prev.Received
	} else if form.receipt != "" {
		return invalidForm(kyc.FieldError{Field: "receipt", Message: "is not sent with the first step"})
	}
	rc, err := liveness.Receipt{Session: sess.ID, Step: step, Revealed: revealed, Received: received,
		Frames: liveness.FramesDigest(form.frames), Light: lightOf(ch, step)}.Sign(p.stepKey)
	if err != nil {
		return err
	}
	out := livenessStepResponse{Receipt: rc, Step: step + 1}
	if step+1 < ch.Steps() {
		out.Move = string(ch.Step(step + 1))
		out.Light = string(lightOf(ch, step+1))
	}
	p.writeJSON(w, r, http.StatusOK, out)
	return nil
}

// lightOf is step's screen colour ("" when the session asks none).
func lightOf(ch liveness.Challenge, step int) liveness.Light {
	if step < len(ch.Lights) {
		return ch.Lights[step]
	}
	return ""
}
