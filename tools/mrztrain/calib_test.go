package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"kycd/mrz/ocr"
)

// TestRefineCalibration measures what RefineLine makes of the true
// geometry of clean synthetic lines: the extent constant of mrz/ocr.
func TestRefineCalibration(t *testing.T) {
	fs, err := loadFonts()
	if err != nil {
		t.Fatal(err)
	}
	var ratios, offs []float64
	for k := range 200 {
		r := rand.New(rand.NewPCG(9, uint64(k)))
		p := drawParams(r)
		p.blur, p.motion, p.noise, p.jpegQ, p.glare, p.lowres = 0, 0, 0, 0, false, 0
		pg := render(r, fs, p)
		py := ocr.NewPyramid(pg.gray)
		for _, l := range pg.geom {
			m := l
			ocr.RefineLine(py, &m)
			ratios = append(ratios, m.H[0]/l.H[0])
			offs = append(offs, (m.Y[0]-l.Y[0])/l.H[0])
		}
	}
	var s, so float64
	for i := range ratios {
		s += ratios[i]
		so += offs[i]
	}
	t.Logf("height ratio mean %.4f, offset mean %.4f heights (n=%d)", s/float64(len(ratios)), so/float64(len(offs)), len(ratios))
	_ = math.Abs
}
