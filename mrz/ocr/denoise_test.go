package ocr

import (
	"image"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// dimGray is g in a dim room: a fraction f of the light, a display gamma
// and the sensor's Gaussian noise (noise gray levels), from a fixed seed.
func dimGray(g *image.Gray, f, noise float64, seed uint64) *image.Gray {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := image.NewGray(g.Rect)
	for i, v := range g.Pix {
		x := 255*math.Pow(float64(v)/255, 1.2)*f + rng.NormFloat64()*noise
		out.Pix[i] = uint8(min(max(x+0.5, 0), 255))
	}
	return out
}

// TestReadDimDenoised dims shared photos whose zone is read to where the
// first look leaves a few characters unsure (the camera's noise a large
// part of each cell): the smoothed second look reads them, exactly.
func TestReadDimDenoised(t *testing.T) {
	if testing.Short() {
		t.Skip("reads several photos")
	}
	dir, want := truthByImage(t)
	ref := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		image string
		light float64
	}{
		{"doc_td3_isl_passport_specimen.png", 0.15},
		{"doc_td3_lva_traveldoc_rotated90.jpg", 0.2},
		{"doc_td1_svn_id_back.jpg", 0.12},
		{"doc_td1_swe_id_specimen.png", 0.15},
	} {
		img := grayOf(decodeFile(t, filepath.Join(dir, c.image)))
		r, err := Read(dimGray(img, c.light, 5, 7), ref)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusRead || !slices.Equal(r.Lines, want[c.image]) {
			t.Errorf("%s at %.2f of the light: %v, want %q", c.image, c.light, r, want[c.image])
		}
	}
}

// TestSmoothCells: smoothing keeps a strip's mean level and lowers its
// noise.
func TestSmoothCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cells := make([][]float32, 8)
	var mean0 float64
	for i := range cells {
		cells[i] = make([]float32, CellW*CellH)
		for k := range cells[i] {
			cells[i][k] = float32(120 + 10*rng.NormFloat64())
			mean0 += float64(cells[i][k])
		}
	}
	sd := func() (float64, float64) {
		var s, q float64
		n := 0
		for _, c := range cells {
			for _, v := range c {
				s += float64(v)
				q += float64(v) * float64(v)
				n++
			}
		}
		m := s / float64(n)
		return m, math.Sqrt(q/float64(n) - m*m)
	}
	_, before := sd()
	smoothCells(cells, denoiseSigma)
	mean, after := sd()
	if math.Abs(mean-mean0/float64(8*CellW*CellH)) > 1 || after > 0.6*before {
		t.Errorf("smoothed: mean %.1f, noise %.1f from %.1f", mean, after, before)
	}
}
