package liveness

import (
	"fmt"
	"image"
	"math"
	"strings"
)

// One continuous capture: the frames of a session must come from one
// camera in one place, as the page records them. Recorded footage posted
// a frame at a time, a frame mirrored to fake the other turn, or frames
// cut from two recordings break that. None of these thresholds was set on
// the shared head-movement frames; each comment says what set it, and
// TestContinuityOnRealFrames logs what the shared frames measure.
const (
	// FramesPerStep is how many frames the page records per step
	// (portal/static/liveness.js takes one at 1.1 s and one at 1.7 s). A
	// step with fewer was not recorded by the page at its rate.
	FramesPerStep = 2
	// MirrorMargin: a frame is a mirror image of an earlier one when its
	// background correlates with the earlier frame flipped left-right by
	// at least this much more than with the earlier frame as it is, and
	// at least MirrorMinCorr. Correlations are normalised (a change of
	// exposure does not move them); a real room seen by a fixed camera
	// correlates with itself, not with its mirror image, unless it is
	// symmetric, when neither side wins and nothing is flagged.
	MirrorMargin  = 0.25
	MirrorMinCorr = 0.6
	// BackgroundMinCorr is the least correlation of the backgrounds of two
	// consecutive frames (heads masked out, the best of the shifts up to
	// maxShift), when both have texture (BackgroundMinStd). Set at the
	// 99th percentile of the correlation of two different places (the
	// backgrounds of the 63 photos of faces/, 1,784 pairs: median 0.27,
	// 95th percentile 0.71, 99th 0.82; TestBackgroundOfDifferentPlaces),
	// so a cut to another place is caught 99 times in 100 when the frame
	// size and the face's path do not already give it away. The frames of
	// one shared head-movement sequence, seconds apart, measure 0.87-1.00.
	BackgroundMinCorr = 0.82
	// BackgroundMinStd is the grey-level spread (0-255) a background
	// needs for its correlation to mean anything; a blank wall has less.
	BackgroundMinStd = 6.0
	// BackgroundMaxShift is the most the mean brightness of the
	// backgrounds of consecutive frames may change (grey levels): auto
	// exposure moves it a little, a cut to other lighting a lot.
	BackgroundMaxShift = 60.0
	// MaxJump is how far, in widths of the face, the face's centre may
	// move between consecutive frames (at most 1.4 s apart): a head turn
	// moves it about half a width, a step closer less.
	MaxJump = 1.5
	// MaxScaleStep is the most the face's size (pose scale) may change
	// between consecutive frames: stepping closer makes it about 1.25-1.5
	// times larger.
	MaxScaleStep = 2.0
)

// CheckContinuity is the name of the continuity check; CodeDiscontinuous
// its reason code.
const (
	CheckContinuity   = "continuity"
	CodeDiscontinuous = "LIVENESS_DISCONTINUOUS"
)

// thumbW and thumbH are the size of the grey thumbnail the background
// checks compare: coarse enough to ignore JPEG noise and small camera
// shake, fine enough to see a room's layout.
const thumbW, thumbH = 40, 30

// Thumb is a frame's grey thumbnail and the cells its face and body cover.
type Thumb struct {
	Grey [thumbW * thumbH]float64
	Mask [thumbW * thumbH]bool
}

// thumbnail makes the thumbnail of img; box is the frame's largest face
// (nil: none), whose head is masked out.
func thumbnail(img image.Image, box *image.Rectangle) *Thumb {
	b := img.Bounds()
	if b.Dx() < thumbW || b.Dy() < thumbH {
		return nil
	}
	t := &Thumb{}
	for cy := range thumbH {
		y0, y1 := b.Min.Y+cy*b.Dy()/thumbH, b.Min.Y+(cy+1)*b.Dy()/thumbH
		for cx := range thumbW {
			x0, x1 := b.Min.X+cx*b.Dx()/thumbW, b.Min.X+(cx+1)*b.Dx()/thumbW
			var sum float64
			n := 0
			// Every other pixel: the cell's mean, at a quarter of the cost.
			// A decoded JPEG's luma plane is read directly (img.At
			// converts every pixel to RGB).
			for y := y0; y < y1; y += 2 {
				for x := x0; x < x1; x += 2 {
					if yc, ok := img.(*image.YCbCr); ok {
						sum += float64(yc.Y[yc.YOffset(x, y)])
					} else {
						r, g, bl, _ := img.At(x, y).RGBA()
						sum += (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(bl)) / 257
					}
					n++
				}
			}
			t.Grey[cy*thumbW+cx] = sum / float64(max(n, 1))
		}
	}
	if box != nil {
		// The head: the face box widened by a quarter of its width each
		// side and above (a turned head reaches past the box), and the
		// neck below. The body is left in: it moves
		// little while the head turns, and masking it would leave a close
		// face too little background.
		w := box.Dx()
		head := image.Rect(box.Min.X-w/4, box.Min.Y-w/4, box.Max.X+w/4, box.Max.Y+w/3)
		for cy := range thumbH {
			for cx := range thumbW {
				cell := image.Rect(b.Min.X+cx*b.Dx()/thumbW, b.Min.Y+cy*b.Dy()/thumbH, b.Min.X+(cx+1)*b.Dx()/thumbW, b.Min.Y+(cy+1)*b.Dy()/thumbH)
				t.Mask[cy*thumbW+cx] = cell.Overlaps(head)
			}
		}
	}
	return t
}

// flipped is t mirrored left-right.
func (t *Thumb) flipped() *Thumb {
	f := &Thumb{}
	for y := range thumbH {
		for x := range thumbW {
			f.Grey[y*thumbW+x] = t.Grey[y*thumbW+thumbW-1-x]
			f.Mask[y*thumbW+x] = t.Mask[y*thumbW+thumbW-1-x]
		}
	}
	return f
}

// maxShift is how far, in thumbnail cells (2.5% of the frame each), the
// background comparisons let one frame move against the other: a phone
// held in the hand moves while the head turns.
const maxShift = 2

// compareBackgrounds returns the normalised correlation of a's and b's
// background cells (masked in neither), at the best of the shifts of b
// against a up to maxShift cells, with the grey-level spreads and the
// change of mean brightness at that shift; ok is false when too few cells
// are left at every shift.
func compareBackgrounds(a, b *Thumb) (corr, stdA, stdB, shift float64, ok bool) {
	corr = math.Inf(-1)
	for dy := -maxShift; dy <= maxShift; dy++ {
		for dx := -maxShift; dx <= maxShift; dx++ {
			c, sa, sb, sh, o := compareAt(a, b, dx, dy)
			if o && c > corr {
				corr, stdA, stdB, shift, ok = c, sa, sb, sh, true
			}
		}
	}
	if !ok {
		return 0, 0, 0, 0, false
	}
	return corr, stdA, stdB, shift, true
}

// compareAt compares a's cell (x, y) with b's (x+dx, y+dy).
func compareAt(a, b *Thumb, dx, dy int) (corr, stdA, stdB, shift float64, ok bool) {
	xs := make([]float64, 0, len(a.Grey))
	ys := make([]float64, 0, len(a.Grey))
	for y := max(0, -dy); y < min(thumbH, thumbH-dy); y++ {
		for x := max(0, -dx); x < min(thumbW, thumbW-dx); x++ {
			i, j := y*thumbW+x, (y+dy)*thumbW+x+dx
			if !a.Mask[i] && !b.Mask[j] {
				xs, ys = append(xs, a.Grey[i]), append(ys, b.Grey[j])
			}
		}
	}
	if len(xs) < len(a.Grey)/10 {
		return 0, 0, 0, 0, false
	}
	ma, mb := mean(xs), mean(ys)
	var sab, saa, sbb float64
	for i := range xs {
		da, db := xs[i]-ma, ys[i]-mb
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	n := float64(len(xs))
	stdA, stdB = math.Sqrt(saa/n), math.Sqrt(sbb/n)
	if saa == 0 || sbb == 0 {
		return 0, stdA, stdB, mb - ma, true
	}
	return sab / math.Sqrt(saa*sbb), stdA, stdB, mb - ma, true
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// checkContinuity: every step sent the page's frames, all frames have one
// size, no frame is the mirror image of an earlier one, consecutive
// frames show the same background under similar light, and the face
// moves and grows plausibly from one frame to the next.
func checkContinuity(ch Challenge, obs []Observation) Check {
	c := Check{Name: CheckContinuity, Passed: true}
	var problems []string
	counts := make([]int, ch.Steps())
	for _, o := range obs {
		if o.Step >= 0 && o.Step < len(counts) {
			counts[o.Step]++
		}
	}
	for s, n := range counts {
		if n > 0 && n < FramesPerStep {
			problems = append(problems, fmt.Sprintf("step %d (%s) sent %d frame(s); the page records %d", s, ch.Step(s), n, FramesPerStep))
		}
	}
	for i := 1; i < len(obs); i++ {
		if obs[i].Width != obs[0].Width || obs[i].Height != obs[0].Height {
			problems = append(problems, fmt.Sprintf("frame %d is %dx%d, frame 1 %dx%d: not one camera", i+1, obs[i].Width, obs[i].Height, obs[0].Width, obs[0].Height))
			break
		}
	}
	flips := make([]*Thumb, len(obs))
	for i, o := range obs {
		if o.Thumb != nil {
			flips[i] = o.Thumb.flipped()
		}
	}
	for j := 1; j < len(obs); j++ {
		tj := obs[j].Thumb
		if tj == nil {
			continue
		}
		for i := 0; i < j; i++ {
			ti := obs[i].Thumb
			if ti == nil {
				continue
			}
			direct, sa, sb, _, ok1 := compareBackgrounds(ti, tj)
			mirrored, _, _, _, ok2 := compareBackgrounds(flips[i], tj)
			if ok1 && ok2 && sa >= BackgroundMinStd && sb >= BackgroundMinStd && mirrored >= MirrorMinCorr && mirrored-direct >= MirrorMargin {
				problems = append(problems, fmt.Sprintf("frame %d is frame %d mirrored (background correlation %.2f mirrored, %.2f as it is)", j+1, i+1, mirrored, direct))
				break
			}
		}
		prev := obs[j-1]
		if prev.Thumb != nil {
			corr, sa, sb, shift, ok := compareBackgrounds(prev.Thumb, tj)
			switch {
			case ok && sa >= BackgroundMinStd && sb >= BackgroundMinStd && corr < BackgroundMinCorr:
				problems = append(problems, fmt.Sprintf("frames %d and %d show different backgrounds (correlation %.2f)", j, j+1, corr))
			case ok && math.Abs(shift) > BackgroundMaxShift:
				problems = append(problems, fmt.Sprintf("the light changes between frames %d and %d (%.0f grey levels)", j, j+1, shift))
			}
		}
		if prev.Face != nil && obs[j].Face != nil {
			a, b := prev.Face.Box, obs[j].Face.Box
			jump := math.Hypot(a.X+a.W/2-b.X-b.W/2, a.Y+a.H/2-b.Y-b.H/2) / max(a.W, b.W)
			ratio := 0.0
			if prev.Pose.Scale > 0 && obs[j].Pose.Scale > 0 {
				ratio = max(prev.Pose.Scale/obs[j].Pose.Scale, obs[j].Pose.Scale/prev.Pose.Scale)
			}
			if jump > MaxJump {
				problems = append(problems, fmt.Sprintf("the face jumps %.1f face widths between frames %d and %d", jump, j, j+1))
			}
			if ratio > MaxScaleStep {
				problems = append(problems, fmt.Sprintf("the face changes size %.1f times between frames %d and %d", ratio, j, j+1))
			}
		}
	}
	if len(problems) > 0 {
		c.Passed, c.Code = false, CodeDiscontinuous
		c.Detail = "The frames are not one continuous capture: " + strings.Join(problems, "; ") + "."
		return c
	}
	c.Detail = "The frames look like one continuous capture: one camera, one background, the face moving plausibly, no mirrored frame."
	return c
}
