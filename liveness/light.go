package liveness

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"math"
	"strings"
)

// The photometric challenge. Head movements alone are answered by
// recorded footage that shows every pose (issue 24: a script posted the
// public head-movement frames step by step and passed). Light is not: the
// page fills the screen around the camera view with a colour the server
// draws per step and reveals only with the step, and the face, a few tens
// of centimetres from the screen, reflects it while the far background,
// metres away, barely does. Footage recorded before the colour was drawn
// shows no such shift; a recording tinted all over (a digital relighting
// of the whole frame) shifts the background as much as the face.
//
// What it does not prove: in daylight or a bright office the screen adds
// too little light to the face to measure (the check then fails or cannot
// run, and the request goes to review); a deepfake or a relighting tool
// that tints only the face in real time, or a video injected in place of
// the camera by such a tool, answers it. docs/decisions.md says so.

// Light is a colour the page shows, as "#rrggbb".
type Light string

// Neutral is the colour of the first step (look straight, whose frame
// becomes the selfie) and of each step's first frame: white, the
// reference the step's coloured frame is measured against.
const Neutral Light = "#ffffff"

// Palette is the saturated hues a coloured step may ask for: the screen's
// primaries and their pairs, 60° apart in the opponent chroma plane the
// check measures in, so a shift toward one hue is told from a shift
// toward its neighbours.
var Palette = []Light{"#ff0000", "#ffff00", "#00ff00", "#00ffff", "#0000ff", "#ff00ff"}

// Lights draws the colours of a session's steps: Neutral for step 0, then
// one hue of Palette per movement (shown from the step's second frame), never the same hue twice in a row. The
// draw is HMAC-SHA256 under the server's key of the session's random id:
// unpredictable to anyone without the key, the same whenever the server
// recomputes it, so nothing more is stored (6·5·5 = 150 sequences for
// three movements, on top of the 76 challenges).
func Lights(key []byte, session string, steps int) []Light {
	if steps <= 0 {
		return nil
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("kycd liveness screen colours\x00" + session))
	sum := m.Sum(nil)
	out := []Light{Neutral}
	prev := -1
	for i := 1; i < steps; i++ {
		// sum has 32 bytes; a session has at most MaxMoves+1 steps.
		b := int(sum[i%len(sum)])
		k := b % len(Palette)
		if prev >= 0 {
			// One of the five hues other than the previous one.
			k = (prev + 1 + b%(len(Palette)-1)) % len(Palette)
		}
		out = append(out, Palette[k])
		prev = k
	}
	return out
}

// RGB returns the colour's channels, 0-1; ok is false for a malformed
// colour.
func (l Light) RGB() (r, g, b float64, ok bool) {
	s := string(l)
	if len(s) != 7 || s[0] != '#' || strings.ToLower(s) != s {
		return 0, 0, 0, false
	}
	var v [3]uint8
	if _, err := fmt.Sscanf(s[1:], "%02x%02x%02x", &v[0], &v[1], &v[2]); err != nil {
		return 0, 0, 0, false
	}
	return float64(v[0]) / 255, float64(v[1]) / 255, float64(v[2]) / 255, true
}

// direction is the unit vector in the opponent chroma plane (chroma)
// toward which light of colour l, added to the face's light, moves the
// face's colour relative to white light. With the face's reflectance
// taken as its own colour, adding k·l in linear light multiplies each
// channel by (1+k·l_c), so the log chroma moves along l's own centred
// channel vector whatever the skin's colour; the zero vector for white.
func (l Light) direction() (float64, float64) {
	r, g, b, ok := l.RGB()
	if !ok {
		return 0, 0
	}
	x, y := chroma(r, g, b)
	n := math.Hypot(x, y)
	if n == 0 {
		return 0, 0
	}
	return x / n, y / n
}

// chroma projects a channel vector (values or logs) on the plane
// orthogonal to grey: e1 = (1,-1,0)/√2 (red against green), e2 =
// (1,1,-2)/√6 (yellow against blue).
func chroma(r, g, b float64) (float64, float64) {
	return (r - g) / math.Sqrt2, (r + g - 2*b) / math.Sqrt(6)
}

// Thresholds of the light check. None was set on the shared footage:
// MinLightShift and LightMinCos come from what a screen does to a face
// (the comments), and TestLightOnFootage reports what the footage
// measures against them (p1 and p2 separately).
const (
	// MinLightShift is the least the face's log chroma (natural log of
	// the 8-bit channel means, projected on the asked hue's direction)
	// must move toward the asked colour beyond the far background's move.
	// A screen's coloured area adding k of the room's light to the face
	// moves it by about 0.816·ln(1+k)/2.2 (sRGB's gamma divides the log
	// by ~2.2): 0.15 at k = 0.5 (a laptop at arm's length in a dim room),
	// 0.07 at k = 0.2, 0.05 at k = 0.15. Below k ≈ 0.15 (a lit office,
	// daylight) the screen is not seen and the check fails: review.
	MinLightShift = 0.05
	// LightMinCos is the least cosine between the face's relative move
	// and the asked hue's direction: within 37°, so a shift toward a
	// neighbouring hue of Palette (60° away) does not count.
	LightMinCos = 0.8
	// MaxBackgroundShare is the most the far background may move toward
	// the asked colour, as a share of the face's own move. Screen light
	// falls off with the square of the distance: a wall 1.5 m behind a
	// face at 0.4 m gets under a tenth of it, and a camera's white
	// balance moves both the same way (away from the colour). A tint of
	// the whole frame moves the background as much as the face.
	MaxBackgroundShare = 0.5
	// Exposure limits of the pixels measured (0-255): below lightDark a
	// pixel is shadow or noise, at or above lightClip a channel clipped
	// and its colour is lost.
	lightDark = 24
	lightClip = 250
	// MinFaceShare is the least share of the face's skin pixels that must
	// be well exposed, and MinLightPixels the least count of well exposed
	// pixels of the face and of the background, for a frame to be
	// measured.
	MinFaceShare   = 0.5
	MinLightPixels = 150
)

// CheckLight is the light check's name; CodeLightMismatch its reason.
const (
	CheckLight        = "screen_light"
	CodeLightMismatch = "LIVENESS_LIGHT_MISMATCH"
)

// LightStep is what the frames of one coloured step showed.
type LightStep struct {
	Step  int   `json:"step"`
	Light Light `json:"light"`
	// Frames is how many of the step's frames could be measured.
	Frames int `json:"frames"`
	// FaceShift and BackgroundShift are how far the face's and the far
	// background's log chroma moved toward Light from the step's neutral
	// frame to its coloured frames;
	// Shift is FaceShift less BackgroundShift, Cos the cosine between that
	// relative move and Light's direction.
	FaceShift       float64 `json:"faceShift"`
	BackgroundShift float64 `json:"backgroundShift"`
	Shift           float64 `json:"shift"`
	Cos             float64 `json:"cos"`
	Passed          bool    `json:"passed"`
}

// LightEvidence is the light check's evidence in the verdict.
type LightEvidence struct {
	// Asked is the colour the server asked for each step; Shown what the
	// page says it showed (evidence only: the frames decide).
	Asked []Light     `json:"asked"`
	Shown []string    `json:"shown,omitempty"`
	Steps []LightStep `json:"steps"`
	// Measured is how many frames could be measured, of Frames.
	Measured int `json:"measured"`
	Frames   int `json:"frames"`
}

// checkLight: in each movement step the page shows Neutral for the first
// frame and the step's colour from the second on, the head held in its
// pose. Between the two, the face's log chroma must move toward the
// colour (MinLightShift, LightMinCos) more than the far background's
// does (MaxBackgroundShare). Comparing two frames of one pose, moments
// apart, leaves out what a turn changes (which skin, hair and shading
// the face region holds). When the frames cannot be measured (too dark,
// overexposed, no background), the check is not run: NotRun, never
// passed.
func checkLight(ch Challenge, obs []Observation, ev *LightEvidence) Check {
	c := Check{Name: CheckLight}
	ev.Frames = len(obs)
	if ch.Lights != nil {
		ev.Asked = ch.Lights
	}
	if len(ch.Lights) != ch.Steps() {
		c.NotRun, c.Detail = true, "No screen colours were asked in this session."
		return c
	}
	for _, o := range obs {
		if o.Light.ok() {
			ev.Measured++
		}
	}
	var failed, unmeasured []string
	for s := 1; s < ch.Steps(); s++ {
		l := ch.Lights[s]
		st := LightStep{Step: s, Light: l}
		ref, m, n, ok := stepLight(obs, s)
		st.Frames = n
		if !ok {
			unmeasured = append(unmeasured, fmt.Sprint(s))
			ev.Steps = append(ev.Steps, st)
			continue
		}
		ux, uy := l.direction()
		fx, fy := m.face[0]-ref.face[0], m.face[1]-ref.face[1]
		bx, by := m.bg[0]-ref.bg[0], m.bg[1]-ref.bg[1]
		rx, ry := fx-bx, fy-by
		face, rel := fx*ux+fy*uy, rx*ux+ry*uy
		st.FaceShift, st.BackgroundShift, st.Shift = round(face, 3), round(bx*ux+by*uy, 3), round(rel, 3)
		if n := math.Hypot(rx, ry); n > 0 {
			st.Cos = round(rel/n, 3)
		}
		st.Passed = (ux != 0 || uy != 0) && rel >= MinLightShift && st.Cos >= LightMinCos && bx*ux+by*uy <= MaxBackgroundShare*face
		if !st.Passed {
			failed = append(failed, describeLight(st))
		}
		ev.Steps = append(ev.Steps, st)
	}
	switch {
	case len(failed) > 0:
		c.Code, c.Detail = CodeLightMismatch, strings.Join(failed, " ")
	case len(unmeasured) > 0:
		c.NotRun, c.Detail = true, fmt.Sprintf("The frames of step %s could not be measured (too dark, overexposed, no background beside the face, or not one neutral and one coloured frame).", strings.Join(unmeasured, ", "))
	default:
		c.Passed = true
		c.Detail = fmt.Sprintf("In each of the %d movement steps the face took on the screen's colour (at least %.2f beyond the background), and the background did not.",
			ch.Steps()-1, MinLightShift)
	}
	return c
}

func describeLight(st LightStep) string {
	return fmt.Sprintf("Step %d (%s): the face moved %.3f toward the screen's colour beyond the background (%.2f needed; direction cosine %.2f, %.2f needed), the background %.3f against the face's %.3f.",
		st.Step, st.Light, st.Shift, MinLightShift, st.Cos, LightMinCos, st.BackgroundShift, st.FaceShift)
}

// lightMean is a mean log chroma of the face and of the background.
type lightMean struct{ face, bg [2]float64 }

// stepLight returns the log chroma of step's first frame (under Neutral)
// and the mean of its later frames (under the step's colour), and how
// many of the step's frames could be measured; ok is false unless the
// first frame and at least one later frame could.
func stepLight(obs []Observation, step int) (first, later lightMean, measured int, ok bool) {
	seen, n := 0, 0
	firstOK := false
	for _, o := range obs {
		if o.Step != step {
			continue
		}
		seen++
		if !o.Light.ok() {
			continue
		}
		measured++
		fx, fy := o.Light.Face.logChroma()
		bx, by := o.Light.Background.logChroma()
		if seen == 1 {
			first = lightMean{face: [2]float64{fx, fy}, bg: [2]float64{bx, by}}
			firstOK = true
			continue
		}
		later.face[0] += fx
		later.face[1] += fy
		later.bg[0] += bx
		later.bg[1] += by
		n++
	}
	if !firstOK || n == 0 {
		return first, later, measured, false
	}
	for i := range 2 {
		later.face[i] /= float64(n)
		later.bg[i] /= float64(n)
	}
	return first, later, measured, true
}
