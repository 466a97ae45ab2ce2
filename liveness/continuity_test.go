package liveness

import (
	"image"
	"image/draw"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"kycd/internal/realdata"
)

// mirror returns img flipped left-right.
func mirror(img image.Image) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	w := b.Dx()
	for y := 0; y < b.Dy(); y++ {
		row := out.Pix[y*out.Stride : y*out.Stride+4*w]
		for x := 0; x < w/2; x++ {
			for k := range 4 {
				row[4*x+k], row[4*(w-1-x)+k] = row[4*(w-1-x)+k], row[4*x+k]
			}
		}
	}
	return out
}

// observed observes named shared frames (or images given directly), two
// consecutive frames per step as the page sends them.
func observed(t *testing.T, imgs []image.Image) []Observation {
	t.Helper()
	obs := make([]Observation, len(imgs))
	for i, img := range imgs {
		o, err := Observe(img, i/FramesPerStep)
		if err != nil {
			t.Fatal(err)
		}
		obs[i] = o
	}
	return obs
}

func frames(t *testing.T, names ...string) []image.Image {
	var out []image.Image
	for _, n := range names {
		out = append(out, liveFrame(t, n))
	}
	return out
}

// steps is a challenge with enough steps for n frames, two a step; the
// continuity check reads only its steps.
func steps(n int) Challenge {
	moves := make([]Move, (n+FramesPerStep-1)/FramesPerStep-1)
	for i := range moves {
		moves[i] = TurnLeft
	}
	return Challenge{Moves: moves}
}

// TestContinuityOnRealFrames: each shared head-movement sequence, its
// frames in their order, two a step, is one continuous capture (the
// frames are up to seconds apart in the footage, further than the page's
// frames); the same sequence with a frame mirrored, or spliced with
// another person's footage, is not. The log has every pair's background
// correlations, the measurements docs/decisions.md quotes.
func TestContinuityOnRealFrames(t *testing.T) {
	// An even number of frames of each (two a step).
	p1 := []string{"live_p1_01_right", "live_p1_03_frontal", "live_p1_04_right", "live_p1_05_left", "live_p1_06_up", "live_p1_07_down"}
	p2 := []string{"live_p2_01_frontal", "live_p2_02_up", "live_p2_03_down", "live_p2_04_closer"}
	for _, seq := range [][]string{p1, p2} {
		imgs := frames(t, seq...)
		obs := observed(t, imgs)
		for j := 1; j < len(obs); j++ {
			for i := 0; i < j; i++ {
				if obs[i].Thumb == nil || obs[j].Thumb == nil {
					continue
				}
				d, sa, sb, shift, _ := compareBackgrounds(obs[i].Thumb, obs[j].Thumb)
				m, _, _, _, _ := compareBackgrounds(obs[i].Thumb.flipped(), obs[j].Thumb)
				t.Logf("%s ~ %s: background correlation %.2f, mirrored %.2f (spread %.0f/%.0f, shift %+.0f)", seq[i], seq[j], d, m, sa, sb, shift)
			}
		}
		if c := checkContinuity(steps(len(obs)), obs); !c.Passed {
			t.Errorf("%s in order: %s", seq[0], c.Detail)
		}
		// One frame mirrored: the "other turn".
		for k := 1; k < len(imgs); k++ {
			bad := append([]image.Image(nil), imgs...)
			bad[k] = mirror(imgs[k])
			c := checkContinuity(steps(len(bad)), observed(t, bad))
			if c.Passed || !strings.Contains(c.Detail, "mirrored") {
				t.Errorf("%s with frame %d mirrored: %v %s", seq[0], k+1, c.Passed, c.Detail)
			}
		}
	}
	// Two recordings spliced: p2 with p1's frames, as they are (another
	// size) and made to fit.
	if c := checkContinuity(steps(4), observed(t, frames(t, "live_p2_01_frontal", "live_p2_02_up", "live_p1_05_left", "live_p1_04_right"))); c.Passed ||
		!strings.Contains(c.Detail, "not one camera") {
		t.Errorf("spliced: %v %s", c.Passed, c.Detail)
	}
	spliced := frames(t, "live_p2_01_frontal", "live_p2_02_up")
	for _, img := range frames(t, "live_p1_05_left", "live_p1_04_right") {
		spliced = append(spliced, resized(img, spliced[0].Bounds()))
	}
	if c := checkContinuity(steps(4), observed(t, spliced)); c.Passed || !strings.Contains(c.Detail, "different backgrounds") {
		t.Errorf("spliced: %v %s", c.Passed, c.Detail)
	}
	// One frame per step.
	obs := observed(t, frames(t, p1[:3]...))
	for i := range obs {
		obs[i].Step = i
	}
	if c := checkContinuity(Challenge{Moves: []Move{TurnRight, TurnLeft}}, obs); c.Passed || !strings.Contains(c.Detail, "the page records 2") {
		t.Errorf("one frame per step: %v %s", c.Passed, c.Detail)
	}
}

// resized scales img to r's size (nearest neighbour).
func resized(img image.Image, r image.Rectangle) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			out.Set(x, y, img.At(b.Min.X+x*b.Dx()/r.Dx(), b.Min.Y+y*b.Dy()/r.Dy()))
		}
	}
	return out
}

// TestBackgroundOfDifferentPlaces measures what BackgroundMinCorr was set
// from: the background correlation of two photos taken in different
// places (faces/: press and web photos, brought to one frame size).
func TestBackgroundOfDifferentPlaces(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the face models on 63 photos")
	}
	files, err := filepath.Glob(filepath.Join(filepath.Dir(realdata.Path(t, "faces/PAIRS.csv")), "*.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	var th []*Thumb
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		o, err := Observe(resized(img, image.Rect(0, 0, 400, 300)), 0)
		if err != nil {
			t.Fatal(err)
		}
		if o.Thumb != nil {
			th = append(th, o.Thumb)
		}
	}
	var cs []float64
	for i := range th {
		for j := i + 1; j < len(th); j++ {
			if c, sa, sb, _, ok := compareBackgrounds(th[i], th[j]); ok && sa >= BackgroundMinStd && sb >= BackgroundMinStd {
				cs = append(cs, c)
			}
		}
	}
	sort.Float64s(cs)
	n := len(cs)
	p99 := cs[n*99/100]
	t.Logf("different places: %d pairs, median %.2f, 95th percentile %.2f, 99th %.2f, max %.2f; BackgroundMinCorr %.2f",
		n, cs[n/2], cs[n*95/100], p99, cs[n-1], BackgroundMinCorr)
	if p99 > BackgroundMinCorr+0.005 {
		t.Errorf("99th percentile %.2f above BackgroundMinCorr", p99)
	}
}

// BenchmarkContinuity: the continuity check's own cost for a 640×480
// frame (the thumbnail) and for an eight-frame session's comparisons.
func BenchmarkContinuity(b *testing.B) {
	img := image.NewYCbCr(image.Rect(0, 0, 640, 480), image.YCbCrSubsampleRatio420) // as a decoded JPEG
	for i := range img.Y {
		img.Y[i] = uint8(i * 7)
	}
	box := image.Rect(250, 150, 390, 310)
	b.Run("thumbnail", func(b *testing.B) {
		for b.Loop() {
			thumbnail(img, &box)
		}
	})
	obs := make([]Observation, 8)
	for i := range obs {
		obs[i] = Observation{Step: i / 2, Width: 640, Height: 480, Thumb: thumbnail(img, &box)}
	}
	ch := Challenge{Moves: []Move{TurnLeft, LookUp, TurnRight}}
	b.Run("session", func(b *testing.B) {
		for b.Loop() {
			checkContinuity(ch, obs)
		}
	})
}
