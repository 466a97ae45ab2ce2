package portal_test

import (
	"image/color"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kycd/kyc"
	"kycd/liveness"
)

// TestBrowserLivenessStill: Chromium's fake camera is fed a still image
// (a real person's frame, --use-file-for-fake-video-capture), as a photo
// held up to the camera or a picture injected as the camera would be. The
// page walks through the server's challenge, one instruction at a time
// over the live view; the server refuses the session (the head never
// moved, the frames are one picture); the page says why and offers a
// clear retry, which is refused again, with the tries left counted down.
// Screenshots at 390 px.
func TestBrowserLivenessStill(t *testing.T) {
	dir := t.TempDir()
	still := filepath.Join(dir, "still.mjpeg")
	person := readImage(t, "images/liveness/live_p2_01_frontal.jpg")
	writeMJPEG(t, still, onBackground(nil, color.RGBA{40, 40, 40, 255}, person, person.Bounds(), frameH))

	s := newStack(t)
	link, id := s.create(kyc.WorkflowStandard, "")
	b := newTab(t, 390, true, chromedp.Flag("use-file-for-fake-video-capture", still))
	b.do(chromedp.Navigate(link))
	b.waitFor(`!document.getElementById('step-welcome').hidden`)
	b.click(`label[for=consent]`)
	b.click(`[data-action=consent]`)
	b.step("document")
	b.click(`label[for=doctype-driving_licence]`)
	b.click(`[data-action=document]`)
	b.cameraReady("Front of your driving licence")
	b.click(`#shoot`)
	b.cameraReady("Back of your driving licence")
	b.click(`#shoot`)
	b.step("details")
	b.do(chromedp.SendKeys(chromedp.ID("doc-number"), "DL1234567"))
	b.typeDate("doc-expiry", time.Now().AddDate(3, 0, 0))
	b.click(`#details-continue`)

	b.cameraReady("Take a selfie")
	if got := b.text("shoot"); got != "Start the camera check" {
		t.Errorf("selfie button %q", got)
	}
	b.shot("selfie-ready")

	for try := 1; try <= 2; try++ {
		if try == 1 {
			b.click(`#shoot`)
		} else {
			b.click(`#retry`)
		}
		// The first instruction, then a movement, over the camera view.
		b.waitFor(`!document.getElementById('challenge').hidden &&
  document.getElementById('challenge-text').textContent === 'Look straight at the camera'`)
		if try == 1 {
			b.shot("challenge-straight")
		}
		b.waitFor(`!document.getElementById('challenge').hidden &&
  document.getElementById('challenge-text').textContent !== 'Look straight at the camera'`)
		if try == 1 {
			b.shot("challenge-move")
		}
		// The server's refusal, why, and the retry.
		b.waitUpTo(90*time.Second, `!document.getElementById('retry').hidden && !document.getElementById('capture-error').hidden`)
		msg := b.text("capture-error")
		left := kyc.MaxLivenessSessions - try
		if !strings.Contains(msg, "We could not confirm that you are in front of the camera") ||
			!strings.Contains(msg, "move as asked") || !strings.Contains(msg, "more times") && left > 1 {
			t.Errorf("try %d: refusal %q", try, msg)
		}
		if got := b.text("retry"); got != "Try the camera check again" {
			t.Errorf("retry button %q", got)
		}
		if !eval[bool](b, `document.getElementById('challenge').hidden && !document.getElementById('choose-file').hidden`) {
			t.Error("after the refusal the instructions still show, or the upload is not offered")
		}
		if try == 1 {
			b.shot("check-refused")
		}
	}
	b.noViolations()

	// What the server kept: two failed sessions with every frame, the
	// movement and duplicate checks failed, no selfie.
	sessions, err := s.st.FindLivenessSessions(t.Context(), id)
	if err != nil || len(sessions) != 2 {
		t.Fatalf("sessions %d, %v", len(sessions), err)
	}
	for _, ss := range sessions {
		if ss.Status != kyc.LivenessFailed || len(ss.Frames) != 2*(len(ss.Challenge)+1) ||
			!strings.Contains(string(ss.Verdict), liveness.CodeMovementMissed) || ss.SelfieCaptureID != nil {
			t.Errorf("session %s: %s, %d frames, verdict %s", ss.ID, ss.Status, len(ss.Frames), ss.Verdict)
		}
		t.Logf("session %s %v: %s", ss.ID, ss.Challenge, failedCodes(string(ss.Verdict)))
	}
	if caps, _ := s.st.FindCaptures(t.Context(), id, "selfie"); len(caps) != 0 {
		t.Errorf("a refused check made a selfie: %v", caps)
	}
}

// failedCodes lists the codes in a stored verdict, for the log.
func failedCodes(verdict string) string {
	var out []string
	for _, c := range []string{liveness.CodeNoFace, liveness.CodeMultipleFaces, liveness.CodeDifferentFaces, liveness.CodeNotStraight,
		liveness.CodeMovementMissed, liveness.CodeDuplicates, liveness.CodeTooLate, liveness.CodeTooFast} {
		if strings.Contains(verdict, c) {
			out = append(out, c)
		}
	}
	return strings.Join(out, " ")
}
