package liveness

import (
	"image"
	"math"

	"github.com/corona10/goimagehash"
)

// Frame is one uploaded frame and the step the page took it in.
type Frame struct {
	Step  int
	Image image.Image
}

// Result is a session's verdict and what it was decided on.
type Result struct {
	Verdict      Verdict
	Observations []Observation
	// Region is the face region hashed for near-duplicates, in frame
	// pixels; empty when no straight frame has a face.
	Region image.Rectangle
}

// Analyze observes every frame (the face models: the slow part, about a
// tenth to a fifth of a second per frame on two cores), hashes each
// frame's copy of the straight frame's face region, and verifies the
// session. It returns an error only when the models cannot run.
func Analyze(ch Challenge, frames []Frame, t Timing) (Result, error) {
	obs := make([]Observation, len(frames))
	for i, f := range frames {
		o, err := Observe(f.Image, f.Step)
		if err != nil {
			return Result{}, err
		}
		obs[i] = o
	}
	r := Result{Observations: obs}
	if s := PickSelfie(obs); s >= 0 {
		r.Region = faceRegion(obs[s], frames[s].Image.Bounds())
		for i, f := range frames {
			obs[i].RegionHash = regionHash(f.Image, r.Region)
		}
	}
	r.Verdict = Verify(ch, obs, t)
	return r, nil
}

// faceRegion is the square RegionScale times the face box, centred on it,
// within the frame, in pixels from the frame's top-left corner.
func faceRegion(o Observation, bounds image.Rectangle) image.Rectangle {
	b := o.Face.Box
	cx, cy := b.X+b.W/2-float64(bounds.Min.X), b.Y+b.H/2-float64(bounds.Min.Y)
	half := max(b.W, b.H) * RegionScale / 2
	r := image.Rect(int(math.Floor(cx-half)), int(math.Floor(cy-half)), int(math.Ceil(cx+half)), int(math.Ceil(cy+half)))
	return r.Intersect(image.Rect(0, 0, bounds.Dx(), bounds.Dy()))
}

// regionHash is the perceptual hash of img's pixels in r (counted from
// the frame's top-left corner; the frames of a session have one size, and
// a frame of another size is hashed where r falls in it). Zero when r
// misses the frame.
func regionHash(img image.Image, r image.Rectangle) uint64 {
	b := img.Bounds()
	r = r.Add(b.Min).Intersect(b)
	if r.Empty() {
		return 0
	}
	sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok {
		return 0
	}
	h, err := goimagehash.PerceptionHash(sub.SubImage(r))
	if err != nil {
		return 0
	}
	return h.GetHash()
}
