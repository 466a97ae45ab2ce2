package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"kycd/mrz/ocr"
)

// TestRefineCalibration measures what ocr.RefineLine makes of the true
// geometry of clean synthetic lines: its constants (refineExtent,
// refineBias) must keep the refined height and centre on the true ones,
// so that the cells the classifier learns from are framed as designed.
func TestRefineCalibration(t *testing.T) {
	fs, err := loadFonts()
	if err != nil {
		t.Fatal(err)
	}
	var ratios, offs []float64
	// 500 pages: over 200 the mean offset moved by ±0.005 heights with
	// the draws alone, half the tolerance.
	for k := range 500 {
		r := rand.New(rand.NewPCG(9, uint64(k)))
		p := drawParams(r)
		p.blur, p.motion, p.noise, p.jpegQ, p.glare, p.lowres = 0, 0, 0, 0, false, 0
		// Nominal print: no ink spread, no printer's jitter (both make the
		// ink itself taller or shorter than the font's glyphs), no overlays.
		p.stroke, p.jitter, p.overlay, p.guilloche = 0, 0, false, false
		p.dim, p.wash, p.watermark = 0, false, false
		// The pitch over the range the constants were set on, log-uniform
		// from 5.5 to 40 px: the training mix weighs 7.5-12 px more, and
		// RefineLine frames small lines a little high (about 0.02
		// heights at 10 px), which is the classifier's to learn, not a
		// reason to move the constants for every size.
		pr := rand.New(rand.NewPCG(10, uint64(k)))
		p.pitch = math.Exp(math.Log(5.5) + pr.Float64()*(math.Log(40)-math.Log(5.5)))
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
	ratio, off := s/float64(len(ratios)), so/float64(len(offs))
	t.Logf("height ratio mean %.4f, offset mean %.4f heights (n=%d)", ratio, off, len(ratios))
	if math.Abs(ratio-1) > 0.02 || math.Abs(off) > 0.01 {
		t.Errorf("refined geometry is off the true one: height ×%.4f, centre %+.4f heights; update refineExtent and refineBias", ratio, off)
	}
}
