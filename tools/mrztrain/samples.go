package main

import (
	"math"
	"math/rand/v2"

	"kycd/mrz/ocr"
)

// sampleSet holds cells quantised to bytes (ink 255) and their labels
// (an index into ocr.Alphabet, or ocr.None).
type sampleSet struct {
	x []uint8
	y []uint8
}

const cellSize = ocr.CellW * ocr.CellH

func (s *sampleSet) add(cell []float32, label int) {
	for _, v := range cell {
		s.x = append(s.x, uint8(v*255+0.5))
	}
	s.y = append(s.y, uint8(label))
}

func (s *sampleSet) len() int { return len(s.y) }

// jitter perturbs a true line geometry by about as much as the reader's
// own estimate is off on real photos: a shift of the whole line, a pitch
// a little off (so that the cells drift along the line, most at its
// ends), a tilt, a height off. One line in six drifts by up to a quarter
// of a cell at its far end, as when a line's print was partly lost.
func jitter(r *rand.Rand, l ocr.Line) ocr.Line {
	pitch := math.Hypot(l.X[1], l.Y[1])
	ex, ey := l.X[1]/pitch, l.Y[1]/pitch
	h := l.H[0]
	along := r.NormFloat64() * 0.06 * pitch
	across := r.NormFloat64() * 0.05 * h
	l.X[0] += along*ex - across*ey
	l.Y[0] += along*ey + across*ex
	s := 1 + r.NormFloat64()*0.003
	if r.IntN(6) == 0 {
		s = 1 + (r.Float64()*2-1)*0.25/float64(l.N)
	}
	tilt := r.NormFloat64() * 0.004
	c, sn := math.Cos(tilt), math.Sin(tilt)
	for k := 1; k < 3; k++ {
		x, y := l.X[k]*s, l.Y[k]*s
		l.X[k], l.Y[k] = c*x-sn*y, sn*x+c*y
	}
	hs := 1 + r.NormFloat64()*0.06
	l.H[0] *= hs
	l.H[1] *= hs
	return l
}

// shifted is l moved by di cells along and dv character heights across.
func shifted(l ocr.Line, di, dv float64) ocr.Line {
	x0, y0 := l.X[0]+di*(l.X[1]+di*l.X[2]), l.Y[0]+di*(l.Y[1]+di*l.Y[2])
	tx, ty := l.X[1]+2*di*l.X[2], l.Y[1]+2*di*l.Y[2]
	n := math.Hypot(tx, ty)
	h := l.H[0] * dv
	l.X = [3]float64{x0 - h*ty/n, tx, l.X[2]}
	l.Y = [3]float64{y0 + h*tx/n, ty, l.Y[2]}
	return l
}

// pageSamples cuts a page into labelled cells: every character (None
// where glare washed it out), plus cells that hold no character: half a
// cell off, between the lines, and past the ends.
func pageSamples(r *rand.Rand, pg *page, p params, s *sampleSet) {
	py := ocr.NewPyramid(pg.gray)
	// The reader's geometry: the true one, jittered, then refined as the
	// reader refines what its detection found.
	zone := make([]ocr.Line, len(pg.geom))
	for li, truth := range pg.geom {
		zone[li] = jitter(r, truth)
	}
	ocr.RefineZone(py, zone)
	contrast := p.paper - p.ink
	if p.dim > 0 {
		contrast *= p.dim
	}
	for li, l := range zone {
		cs := ocr.SampleLine(py, &l)
		for i, c := range cs.Cells {
			label := indexOf(pg.lines[li][i])
			if contrast*pg.glare[li][i] < 18 {
				label = ocr.None
			}
			s.add(c, label)
		}
		if r.IntN(3) == 0 {
			off := shifted(l, 0.45+0.1*r.Float64(), 0)
			cs := ocr.SampleLine(py, &off)
			for i := 0; i < off.N; i += 4 + r.IntN(4) {
				s.add(cs.Cells[i], ocr.None)
			}
		}
		if r.IntN(4) == 0 {
			off := shifted(l, 0, 0.8+0.3*r.Float64())
			cs := ocr.SampleLine(py, &off)
			for i := 0; i < off.N; i += 5 + r.IntN(5) {
				s.add(cs.Cells[i], ocr.None)
			}
		}
		if r.IntN(2) == 0 {
			ext := shifted(l, -1, 0)
			ext.N = l.N + 2
			cs := ocr.SampleLine(py, &ext)
			s.add(cs.Cells[0], ocr.None)
			s.add(cs.Cells[ext.N-1], ocr.None)
		}
	}
}

func indexOf(c byte) int {
	for i := range len(ocr.Alphabet) {
		if ocr.Alphabet[i] == c {
			return i
		}
	}
	panic("not an MRZ character")
}

// generate renders pages [from, to) of a set; page k is drawn from its
// own seed, so any page can be rebuilt alone and the set does not depend
// on how the work is split.
func generate(fs *fonts, seed uint64, from, to int) *sampleSet {
	s := &sampleSet{}
	for k := from; k < to; k++ {
		r := rand.New(rand.NewPCG(seed, uint64(k)))
		p := drawParams(r)
		pg := render(r, fs, p)
		pageSamples(r, pg, p, s)
	}
	return s
}
