package liveness

import (
	"fmt"
	"math"
	"math/bits"
	"strings"
	"time"

	"kycd/face"
)

// Thresholds of the movement and duplicate checks. None was set on the
// shared head-movement frames (images/liveness), on which the tests check
// the whole; each comment says what set it.
const (
	// TurnDegrees is how far (yaw) the head must turn left or right from
	// the straight frame. People asked to turn their head turn it 30-45°;
	// a flat picture turned up to 45° close in front of the camera moved
	// the landmarks' yaw by at most 17° (TestFlatPrintCannotTurn, on the
	// face_* photos), and 1 px of landmark noise moves it by up to ~7°
	// (face.TestPoseNoise). 20° sits above both and below a deliberate
	// turn.
	TurnDegrees = 20.0
	// LookDegrees is how far (pitch) the head must look up or down. A
	// deliberate nod is 20-30°; a flat picture tilted up to 45° moved the
	// landmarks' pitch by at most 15° (same test), landmark noise ~8°.
	LookDegrees = 18.0
	// CloserRatio is how much larger the face (the pose's scale, which
	// does not change with turning) must become to count as closer: from
	// arm's length (~50 cm) to ~40 cm makes it 25% larger. A picture
	// moved toward the camera does this too, which is why every challenge
	// also has turns.
	CloserRatio = 1.25
	// StraightYaw is the most the straight frame, which becomes the
	// selfie, may be turned: face match compares near-frontal faces.
	StraightYaw = 20.0
	// NearDuplicateBits is the perceptual-hash distance (of 64 bits) at
	// or below which two frames of different steps show the same picture.
	// JPEG re-encoding (quality 50-90) and brightness changes of ±20 moved
	// the hash of the face_* photos' face region by at most 4 bits
	// (TestRegionHashOfCopies); twice that is the threshold.
	NearDuplicateBits = 8
	// RegionScale is the side of the face region hashed for duplicates,
	// relative to the straight frame's face box: the face and a margin,
	// the same pixels in every frame, so a head that moves changes them.
	RegionScale = 1.5
)

// Reason codes of failed checks.
const (
	CodeIncomplete     = "LIVENESS_INCOMPLETE"
	CodeNoFace         = "LIVENESS_NO_FACE"
	CodeMultipleFaces  = "LIVENESS_MULTIPLE_FACES"
	CodeDifferentFaces = "LIVENESS_DIFFERENT_PEOPLE"
	CodeNotStraight    = "LIVENESS_NOT_FACING_CAMERA"
	CodeMovementMissed = "LIVENESS_MOVEMENT_NOT_SEEN"
	CodeDuplicates     = "LIVENESS_DUPLICATE_FRAMES"
	CodeTooLate        = "LIVENESS_TOO_LATE"
	CodeTooFast        = "LIVENESS_TOO_FAST"
	CodeReplayed       = "LIVENESS_SESSION_REUSED"
)

// Check names, in the order Verify runs them.
const (
	CheckFrames   = "frames"
	CheckOneFace  = "one_face"
	CheckSame     = "same_person"
	CheckMovement = "head_movement"
	CheckDistinct = "distinct_frames"
	CheckTiming   = "timing"
)

// Timing is when the session happened, by the server's clock.
type Timing struct {
	Opened   time.Time // the challenge was issued
	Deadline time.Time // the frames had to arrive by then
	Received time.Time // the frames arrived
	// Reused is true when the session's nonce had already been used.
	Reused bool
	// Steps are the server's receipts of each step's frames when the
	// session was paced (CheckReceipts): each step revealed only when the
	// previous one's frames arrived, and due StepDeadline after.
	Steps []Receipt
}

// Check is one check's outcome.
type Check struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Code   string `json:"code,omitempty"`
	Detail string `json:"detail"`
	// NotRun: the check could not measure anything (the light check on
	// frames too dark or overexposed). It is not passed; the session's
	// verdict still passes when every other check does, and the decision
	// sends the request to review (decision.SelfieLiveness).
	NotRun bool `json:"notRun,omitempty"`
}

// StepResult is what the frames of one step showed.
type StepResult struct {
	Step int  `json:"step"`
	Move Move `json:"move"`
	// Frames is how many frames the step sent; BestFrame is the index of
	// the one that moved most as asked (-1 when none has a face).
	Frames    int `json:"frames"`
	BestFrame int `json:"bestFrame"`
	// Measured is that frame's movement from the straight frame, in
	// degrees (turns, looks) or as a size ratio (closer); Required is the
	// threshold. For the straight step, Measured is its |yaw| and
	// Required the most allowed.
	Measured float64 `json:"measured"`
	Required float64 `json:"required"`
	Unit     string  `json:"unit"`
	Passed   bool    `json:"passed"`
}

// FrameResult is the evidence of one frame.
type FrameResult struct {
	Step  int     `json:"step"`
	Faces int     `json:"faces"`
	Score float64 `json:"score,omitempty"`
	// Yaw, Pitch and Roll are in degrees (face.Pose); Scale in pixels per
	// millimetre of the model face.
	Yaw   float64 `json:"yaw"`
	Pitch float64 `json:"pitch"`
	Roll  float64 `json:"roll"`
	Scale float64 `json:"scale"`
	// Distance is the face descriptor's distance to the selfie frame's;
	// -1 when either has no face.
	Distance   float64 `json:"distance"`
	RegionHash string  `json:"regionHash,omitempty"`
}

// Verdict is Verify's decision with its evidence.
type Verdict struct {
	Passed bool          `json:"passed"`
	Checks []Check       `json:"checks"`
	Steps  []StepResult  `json:"steps"`
	Frames []FrameResult `json:"frames"`
	// Selfie is the index of the frame that becomes the selfie: the most
	// frontal straight frame with one face; -1 when there is none.
	Selfie int `json:"selfie"`
	// Light is the light check's evidence.
	Light *LightEvidence `json:"light,omitempty"`
}

// Failed returns the failed checks (a check not run has not failed).
func (v Verdict) Failed() []Check {
	var out []Check
	for _, c := range v.Checks {
		if !c.Passed && !c.NotRun {
			out = append(out, c)
		}
	}
	return out
}

// PickSelfie returns the index of the frame that becomes the selfie: of
// the straight step's frames with exactly one face, the least turned
// (ties: the higher detector score); -1 when there is none.
func PickSelfie(obs []Observation) int {
	best := -1
	for i, o := range obs {
		if o.Step != 0 || o.Faces != 1 || o.Face == nil {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		a, b := math.Abs(o.Pose.Yaw), math.Abs(obs[best].Pose.Yaw)
		if a < b || a == b && o.Face.Score > obs[best].Face.Score {
			best = i
		}
	}
	return best
}

// Verify decides a session from its challenge, the observations of its
// frames (in the order they were captured) and its timing. Every check
// runs, so the verdict carries all the evidence; the session passes only
// when every check passes, the light check being allowed not to run
// (NotRun: the decision then sends the request to review).
func Verify(ch Challenge, obs []Observation, t Timing) Verdict {
	v := Verdict{Selfie: PickSelfie(obs), Light: &LightEvidence{Asked: []Light{}, Steps: []LightStep{}}}
	v.Frames = frameResults(obs, v.Selfie)
	v.Checks = append(v.Checks,
		checkFrames(ch, obs),
		checkFaces(obs),
		checkSamePerson(ch, obs, v.Selfie),
		checkMovement(ch, obs, v.Selfie, &v.Steps),
		checkDistinct(obs),
		checkTiming(ch, t),
		checkContinuity(ch, obs),
		checkLight(ch, obs, v.Light),
	)
	v.Passed = len(v.Failed()) == 0
	return v
}

func frameResults(obs []Observation, selfie int) []FrameResult {
	out := make([]FrameResult, len(obs))
	for i, o := range obs {
		r := FrameResult{Step: o.Step, Faces: o.Faces, Distance: -1}
		if o.Face != nil {
			r.Score = round(o.Face.Score, 3)
			r.Yaw, r.Pitch, r.Roll = round(o.Pose.Yaw, 1), round(o.Pose.Pitch, 1), round(o.Pose.Roll, 1)
			r.Scale = round(o.Pose.Scale, 3)
			if selfie >= 0 {
				r.Distance = round(face.Compare(o.Face.Descriptor, obs[selfie].Face.Descriptor), 3)
			}
		}
		if o.RegionHash != 0 {
			r.RegionHash = fmt.Sprintf("%016x", o.RegionHash)
		}
		out[i] = r
	}
	return out
}

// checkFrames: every step sent 1 to MaxFramesPerStep frames, in step
// order.
func checkFrames(ch Challenge, obs []Observation) Check {
	c := Check{Name: CheckFrames}
	counts := make([]int, ch.Steps())
	last := 0
	for i, o := range obs {
		if o.Step < 0 || o.Step >= ch.Steps() {
			c.Code, c.Detail = CodeIncomplete, fmt.Sprintf("Frame %d names step %d; the challenge has steps 0-%d.", i+1, o.Step, ch.Steps()-1)
			return c
		}
		if o.Step < last {
			c.Code, c.Detail = CodeIncomplete, fmt.Sprintf("Frame %d (step %d) came after a frame of step %d.", i+1, o.Step, last)
			return c
		}
		last = o.Step
		counts[o.Step]++
	}
	for s, n := range counts {
		if n == 0 || n > MaxFramesPerStep {
			c.Code, c.Detail = CodeIncomplete, fmt.Sprintf("Step %d (%s) sent %d frames; 1 to %d are needed.", s, ch.Step(s), n, MaxFramesPerStep)
			return c
		}
	}
	c.Passed = true
	c.Detail = fmt.Sprintf("%d frames over %d steps.", len(obs), ch.Steps())
	return c
}

// checkFaces: exactly one face in every frame.
func checkFaces(obs []Observation) Check {
	c := Check{Name: CheckOneFace}
	var none, many []string
	for i, o := range obs {
		switch {
		case o.Faces == 0 || o.Face == nil:
			none = append(none, fmt.Sprint(i+1))
		case o.Faces > 1:
			many = append(many, fmt.Sprint(i+1))
		}
	}
	switch {
	case len(none) > 0:
		c.Code, c.Detail = CodeNoFace, fmt.Sprintf("No face was found in frame %s.", strings.Join(none, ", "))
	case len(many) > 0:
		c.Code, c.Detail = CodeMultipleFaces, fmt.Sprintf("More than one face was found in frame %s.", strings.Join(many, ", "))
	default:
		c.Passed = true
		c.Detail = fmt.Sprintf("One face in each of the %d frames.", len(obs))
	}
	return c
}

// checkSamePerson: every frame's face descriptor lies within
// face.MatchThreshold of the selfie frame's, except the frames taken under
// a screen colour (coloured): a saturated colour cast moves the
// descriptor (p1's left turn, 0.59 from his straight frame, measured
// 0.60-0.66 relit, TestBrowserLivenessLight), and those frames are held
// to their own step's white frame by the light and continuity checks. The selfie is the reference
// because it is what face match compares with the document; comparing
// every pair instead would also compare a head turned left with one
// turned right, the pair the descriptor is least sure about (p1's 45°
// turns measure 0.60 apart in the shared frames).
func checkSamePerson(ch Challenge, obs []Observation, selfie int) Check {
	c := Check{Name: CheckSame}
	if selfie < 0 {
		c.Code, c.Detail = CodeNoFace, "No straight frame shows one face to compare the others with."
		return c
	}
	ref := obs[selfie].Face.Descriptor
	worst, wi, n := 0.0, -1, 0
	under := coloured(ch, obs)
	for i, o := range obs {
		if i == selfie || o.Face == nil || under[i] {
			continue
		}
		n++
		if d := face.Compare(o.Face.Descriptor, ref); wi < 0 || d > worst {
			worst, wi = d, i
		}
	}
	switch {
	case n == 0:
		c.Code, c.Detail = CodeNoFace, "No other frame shows a face to compare with the selfie frame."
	case worst >= face.MatchThreshold:
		c.Code, c.Detail = CodeDifferentFaces, fmt.Sprintf(
			"Frame %d does not show the person of the selfie frame (%d): descriptor distance %.2f, at or above %.2f.",
			wi+1, selfie+1, worst, face.MatchThreshold)
	default:
		c.Passed = true
		c.Detail = fmt.Sprintf("The person of the selfie frame (%d) in every frame: largest descriptor distance %.2f (frame %d), below %.2f.",
			selfie+1, worst, wi+1, face.MatchThreshold)
	}
	return c
}

// coloured marks the frames the page took under a screen colour: when the
// session asked colours, every frame of a movement step after the step's
// first.
func coloured(ch Challenge, obs []Observation) []bool {
	out := make([]bool, len(obs))
	if len(ch.Lights) == 0 {
		return out
	}
	seen := map[int]bool{}
	for i, o := range obs {
		out[i] = o.Step > 0 && seen[o.Step]
		seen[o.Step] = true
	}
	return out
}

// checkMovement: the straight frame faces the camera, and each step's
// frames reach the step's movement, measured from the straight frame.
// Each step is judged on its own frames, so movements in the wrong order
// fail.
func checkMovement(ch Challenge, obs []Observation, selfie int, steps *[]StepResult) Check {
	c := Check{Name: CheckMovement}
	if selfie < 0 {
		c.Code, c.Detail = CodeNotStraight, "No frame of the first step (look straight at the camera) shows exactly one face."
		return c
	}
	base := obs[selfie].Pose
	straight := StepResult{Step: 0, Move: LookStraight, BestFrame: selfie, Measured: round(math.Abs(base.Yaw), 1),
		Required: StraightYaw, Unit: "degrees", Passed: math.Abs(base.Yaw) <= StraightYaw}
	var missed []string
	for s := range ch.Steps() {
		if s == 0 {
			for _, o := range obs {
				if o.Step == 0 {
					straight.Frames++
				}
			}
			*steps = append(*steps, straight)
			continue
		}
		m := ch.Step(s)
		r := StepResult{Step: s, Move: m, BestFrame: -1, Required: TurnDegrees, Unit: "degrees"}
		switch m {
		case LookUp, LookDown:
			r.Required = LookDegrees
		case MoveCloser:
			r.Required, r.Unit = CloserRatio, "ratio"
		}
		for i, o := range obs {
			if o.Step != s {
				continue
			}
			r.Frames++
			if o.Face == nil {
				continue
			}
			if v := movement(m, base, o.Pose); r.BestFrame < 0 || v > r.Measured {
				r.BestFrame, r.Measured = i, v
			}
		}
		r.Passed = r.BestFrame >= 0 && r.Measured >= r.Required
		if r.Unit == "ratio" {
			r.Measured = round(r.Measured, 3)
		} else {
			r.Measured = round(r.Measured, 1)
		}
		if !r.Passed {
			missed = append(missed, describeMiss(r))
		}
		*steps = append(*steps, r)
	}
	switch {
	case !straight.Passed:
		c.Code, c.Detail = CodeNotStraight, fmt.Sprintf("The straight frame is turned %.0f°; at most %.0f° is allowed.", straight.Measured, StraightYaw)
	case len(missed) > 0:
		c.Code, c.Detail = CodeMovementMissed, strings.Join(missed, " ")
	default:
		c.Passed = true
		c.Detail = fmt.Sprintf("The head moved as asked, in order: %s.", movesText(ch))
	}
	return c
}

// movement is how far pose p moved from base in the direction m asks
// for: degrees for turns and looks, a size ratio for closer.
func movement(m Move, base, p face.Pose) float64 {
	switch m {
	case TurnLeft:
		return p.Yaw - base.Yaw
	case TurnRight:
		return base.Yaw - p.Yaw
	case LookUp:
		return p.Pitch - base.Pitch
	case LookDown:
		return base.Pitch - p.Pitch
	case MoveCloser:
		if base.Scale <= 0 {
			return 0
		}
		return p.Scale / base.Scale
	}
	return 0
}

func describeMiss(r StepResult) string {
	switch {
	case r.BestFrame < 0:
		return fmt.Sprintf("Step %d (%s): no frame shows a face.", r.Step, r.Move)
	case r.Unit == "ratio":
		return fmt.Sprintf("Step %d (%s): the face grew %.2f times; %.2f is needed.", r.Step, r.Move, r.Measured, r.Required)
	}
	return fmt.Sprintf("Step %d (%s): the head moved %.0f° that way; %.0f° is needed.", r.Step, r.Move, r.Measured, r.Required)
}

func movesText(ch Challenge) string {
	s := make([]string, len(ch.Moves))
	for i, m := range ch.Moves {
		s[i] = string(m)
	}
	return strings.Join(s, ", ")
}

// checkDistinct: no two frames are the same picture (equal pixels), and
// no frames of different steps show the same face region
// (NearDuplicateBits).
func checkDistinct(obs []Observation) Check {
	c := Check{Name: CheckDistinct}
	closest, ci, cj := 65, -1, -1
	for i := range obs {
		for j := i + 1; j < len(obs); j++ {
			if obs[i].Pixels == obs[j].Pixels {
				c.Code, c.Detail = CodeDuplicates, fmt.Sprintf("Frames %d and %d are the same picture.", i+1, j+1)
				return c
			}
			if obs[i].Step == obs[j].Step || obs[i].RegionHash == 0 || obs[j].RegionHash == 0 {
				continue
			}
			if d := bits.OnesCount64(obs[i].RegionHash ^ obs[j].RegionHash); d < closest {
				closest, ci, cj = d, i, j
			}
		}
	}
	switch {
	case ci >= 0 && closest <= NearDuplicateBits:
		c.Code, c.Detail = CodeDuplicates, fmt.Sprintf(
			"Frames %d and %d (steps %d and %d) show the same picture of the face: perceptual hashes %d bits apart, at most %d allowed.",
			ci+1, cj+1, obs[ci].Step, obs[cj].Step, closest, NearDuplicateBits)
	case ci < 0:
		c.Passed = true
		c.Detail = "No two frames are the same picture."
	default:
		c.Passed = true
		c.Detail = fmt.Sprintf("No two frames are the same picture; frames of different steps differ by at least %d bits of 64 (more than %d needed).",
			closest, NearDuplicateBits)
	}
	return c
}

// checkTiming: the session was used once, its frames arrived before the
// deadline, and not faster than a person can follow the steps.
func checkTiming(ch Challenge, t Timing) Check {
	c := Check{Name: CheckTiming}
	took := t.Received.Sub(t.Opened)
	least := time.Duration(ch.Steps()) * MinStepTime
	switch {
	case t.Reused:
		c.Code, c.Detail = CodeReplayed, "This capture session was already used; each session's frames are accepted once."
	case t.Received.After(t.Deadline):
		c.Code, c.Detail = CodeTooLate, fmt.Sprintf("The frames arrived %.1f s after the session opened; the deadline was %.0f s.",
			took.Seconds(), t.Deadline.Sub(t.Opened).Seconds())
	case took < least:
		c.Code, c.Detail = CodeTooFast, fmt.Sprintf("The frames arrived %.2f s after the session opened, faster than a person can follow %d steps (%.1f s).",
			took.Seconds(), ch.Steps(), least.Seconds())
	default:
		c.Passed = true
		c.Detail = fmt.Sprintf("The frames arrived %.1f s after the session opened (deadline %.0f s), once.", took.Seconds(), t.Deadline.Sub(t.Opened).Seconds())
	}
	for _, r := range t.Steps {
		if d := r.Received.Sub(r.Revealed); c.Passed && (d > StepDeadline || d < 0) {
			c.Passed, c.Code = false, CodeTooLate
			c.Detail = fmt.Sprintf("Step %d's frames arrived %.1f s after the server revealed it; each step is due within %.0f s.",
				r.Step, d.Seconds(), StepDeadline.Seconds())
		}
	}
	if c.Passed && len(t.Steps) > 0 {
		c.Detail += fmt.Sprintf(" Each of the %d steps was revealed by the server only after the previous one's frames arrived, and answered within %.0f s.",
			len(t.Steps), StepDeadline.Seconds())
	}
	return c
}

func round(v float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(v*p) / p
}
