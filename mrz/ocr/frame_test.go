package ocr

import (
	"image"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// inFrame pastes img at (x0, y0) of a w×h frame of noisy table-grey, as a
// phone photo of a document lying on a table shows it.
func inFrame(img image.Image, w, h, x0, y0 int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := uint8(110 + (x*7+y*13+(x*y)%17)%23)
			out.SetRGBA(x, y, color.RGBA{v, v * 9 / 10, v * 8 / 10, 255})
		}
	}
	b := img.Bounds()
	for y := range b.Dy() {
		for x := range b.Dx() {
			out.Set(x0+x, y0+y, img.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return out
}

// TestReadSmallInLargeFrame: a card taking 40% of the frame's width
// (characters about 4 pixels at the usual detection scale) is found by
// the finer look and read exactly; before, no zone was found.
func TestReadSmallInLargeFrame(t *testing.T) {
	dir, gt := loadTruth(t)
	const name = "doc_td1_gbr_residence_permit_sample.png"
	var want []string
	for _, g := range gt {
		if g.Image == name {
			want = g.MRZ
		}
	}
	img := decodeFile(t, filepath.Join(dir, name))
	b := img.Bounds()
	w := b.Dx() * 5 / 2
	frame := inFrame(img, w, w*3/4, w/2, w*3/4-b.Dy()-w/10)
	r, err := Read(frame, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusRead || !slices.Equal(r.Lines, want) {
		t.Fatalf("card at 40%% of a %d px frame: %s %s %v", w, r.Status, r.Hint, r.Lines)
	}
}

// keystone draws g as seen with its right edge keep times as tall as its
// left (a page held at an angle), on white, by the homography taking the
// page's corners to the trapezoid's.
func keystone(g *image.Gray, keep float64) *image.Gray {
	w, h := float64(g.Rect.Dx()), float64(g.Rect.Dy())
	d := h * (1 - keep) / 2
	// Frame → page: solve for the map taking the trapezoid to the page.
	from := [4][2]float64{{0, 0}, {w * (1 + keep) / 2, d}, {w * (1 + keep) / 2, h - d}, {0, h}}
	to := [4][2]float64{{0, 0}, {w, 0}, {w, h}, {0, h}}
	hm := solveHomography(from, to)
	p := planeFromGray(g)
	out := image.NewGray(g.Rect)
	for y := range g.Rect.Dy() {
		for x := range g.Rect.Dx() {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			z := hm[6]*fx + hm[7]*fy + hm[8]
			sx, sy := (hm[0]*fx+hm[1]*fy+hm[2])/z, (hm[3]*fx+hm[4]*fy+hm[5])/z
			v := float32(255)
			if sx >= 0 && sy >= 0 && sx < w && sy < h {
				v = p.at(sx-0.5, sy-0.5)
			}
			out.Pix[y*out.Stride+x] = uint8(min(max(v+0.5, 0), 255))
		}
	}
	return out
}

// TestRetakeHintsDarkAndTilted: a zone that cannot be read says what the
// reader measured: in a dim photo (little ink against the paper, sensor
// noise) more light, on a page seen at a strong angle a flatter view. A
// photo still read is fine; one read wrongly is not.
func TestRetakeHintsDarkAndTilted(t *testing.T) {
	if testing.Short() {
		t.Skip("reads several photos")
	}
	dir, gt := loadTruth(t)
	ref := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, image string
		damage      func(g *image.Gray) *image.Gray
		want        Hint
	}{
		{"dim", "doc_td3_jpn_passport_specimen.png", func(g *image.Gray) *image.Gray {
			out := image.NewGray(g.Rect)
			for i, v := range g.Pix {
				// A fifth of the light and ±6 levels of noise.
				n := int((uint32(i)*2654435761)>>27) - 16
				out.Pix[i] = uint8(min(max(int(v)/5+n*6/16, 0), 255))
			}
			return out
		}, HintDark},
		{"tilted", "doc_td3_can_passport_specimen.png", func(g *image.Gray) *image.Gray { return keystone(g, 0.7) }, HintTilted},
	} {
		var want []string
		for _, g := range gt {
			if g.Image == c.image {
				want = g.MRZ
			}
		}
		r, err := Read(c.damage(grayOf(decodeFile(t, filepath.Join(dir, c.image)))), ref)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r.Status == StatusRead && !slices.Equal(r.Lines, want):
			t.Errorf("%s: read %v as valid, want %v", c.name, r.Lines, want)
		case r.Status == StatusRead:
			t.Errorf("%s: still read (contrast %.0f, perspective %.2f): the damage tests nothing", c.name, r.Contrast, r.Perspective)
		case r.Hint != c.want:
			t.Errorf("%s: %s %s (contrast %.0f, perspective %.2f), want hint %s", c.name, r.Status, r.Hint, r.Contrast, r.Perspective, c.want)
		}
	}
}

// TestLineShifted: a line moved along itself by di cells has cell i where
// the original had cell i+di, and moved across by a lift it keeps its
// pitch and lies lift character heights off, on the page's down side.
func TestLineShifted(t *testing.T) {
	l := Line{N: 44, X: [3]float64{100, 10, 0.01}, Y: [3]float64{50, 0.5, 0.002}, H: [2]float64{14, 0.01}}
	m := l.shifted(0.3, 0)
	for _, i := range []float64{0, 10, 43} {
		x0, y0 := l.centre(i + 0.3)
		x1, y1 := m.centre(i)
		if math.Hypot(x1-x0, y1-y0) > 1e-9 || math.Abs(m.height(i)-l.height(i+0.3)) > 1e-9 {
			t.Errorf("cell %v: (%v, %v) h %v, want (%v, %v) h %v", i, x1, y1, m.height(i), x0, y0, l.height(i+0.3))
		}
	}
	up := l.shifted(0, 0.5)
	x0, y0 := l.centre(22)
	x1, y1 := up.centre(22)
	if d := math.Hypot(x1-x0, y1-y0); math.Abs(d-0.5*l.height(22)) > 0.1 || y1 <= y0 {
		t.Errorf("lifted by half a height: moved %.2f to y %.2f from %.2f, want %.2f down", d, y1, y0, 0.5*l.height(22))
	}
	if math.Abs(up.Pitch()-l.Pitch()) > 1e-9 {
		t.Errorf("lifting changed the pitch: %v, want %v", up.Pitch(), l.Pitch())
	}
}
