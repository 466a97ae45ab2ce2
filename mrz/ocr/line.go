package ocr

import (
	"math"
	"slices"
)

// The classifier sees each character cell resampled to CellW×CellH
// samples, ink 1 and paper 0.
const (
	CellW = 14
	CellH = 18
	// The cell box: one pitch wide, cellHeightRatio character heights tall,
	// centred on the character.
	cellHeightRatio = 1.3
)

// Alphabet is the MRZ symbol of each classifier output; the last output,
// None, means "no character here" (a blank, glare, a cell cut between two
// characters).
const Alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<"

// None is the index of the "no character" output.
const None = len(Alphabet)

// Line is the geometry of one MRZ line in level-0 image coordinates: the
// centre of cell i (0 ≤ i < N) and the character height there. Quadratic
// terms absorb perspective and a page that bends.
type Line struct {
	N    int
	X, Y [3]float64
	H    [2]float64
}

func (l *Line) centre(i float64) (float64, float64) {
	return l.X[0] + i*(l.X[1]+i*l.X[2]), l.Y[0] + i*(l.Y[1]+i*l.Y[2])
}

func (l *Line) tangent(i float64) (float64, float64) {
	return l.X[1] + 2*i*l.X[2], l.Y[1] + 2*i*l.Y[2]
}

func (l *Line) height(i float64) float64 { return l.H[0] + i*l.H[1] }

// Pitch is the mean distance between neighbouring cell centres.
func (l *Line) Pitch() float64 {
	x0, y0 := l.centre(0)
	x1, y1 := l.centre(float64(l.N - 1))
	return math.Hypot(x1-x0, y1-y0) / float64(max(1, l.N-1))
}

// CellSamples holds the normalised cells of one line and, per cell, the
// contrast (paper minus ink, in gray levels) it was normalised with.
type CellSamples struct {
	Cells    [][]float32
	Contrast []float32
	// Thirds is the ink depth of each cell's top, middle and bottom
	// third (see thirdsDepth, cutCells).
	Thirds [][3]float32
}

// SampleLine resamples every cell of l from py and normalises each against
// the ink and paper levels of its neighbourhood (two cells either side),
// so that uneven lighting along the line does not matter.
func SampleLine(py *Pyramid, l *Line) CellSamples {
	return normaliseCells(sampleRaw(py, l))
}

// sampleRaw returns the raw gray samples of every cell of l.
func sampleRaw(py *Pyramid, l *Line) [][]float32 {
	raw := make([][]float32, l.N)
	for i := range l.N {
		raw[i] = sampleCell(py, l, float64(i), make([]float32, CellW*CellH))
	}
	return raw
}

// normaliseCells maps raw cells to ink 1 and paper 0 by the levels of
// each one's neighbourhood (see SampleLine).
func normaliseCells(raw [][]float32) CellSamples {
	n0 := len(raw)
	out := CellSamples{Cells: make([][]float32, n0), Contrast: make([]float32, n0), Thirds: make([][3]float32, n0)}
	var hist [256]int
	for i := range n0 {
		hist = [256]int{}
		n := 0
		for j := max(0, i-2); j <= min(n0-1, i+2); j++ {
			for _, v := range raw[j] {
				hist[clampByte(v)]++
				n++
			}
		}
		ink := percentile(&hist, n, 0.02)
		paper := percentile(&hist, n, 0.85)
		c := max(paper-ink, 1)
		out.Contrast[i] = paper - ink
		out.Thirds[i] = thirdsDepth(raw[i])
		cell := make([]float32, CellW*CellH)
		for k, v := range raw[i] {
			cell[k] = min(max((paper-v)/c, 0), 1)
		}
		out.Cells[i] = cell
	}
	return out
}

// sampleCell fills dst with the raw gray samples of cell i.
func sampleCell(py *Pyramid, l *Line, i float64, dst []float32) []float32 {
	cx, cy := l.centre(i)
	tx, ty := l.tangent(i)
	pitch := math.Hypot(tx, ty)
	if pitch == 0 {
		return dst
	}
	ex, ey := tx/pitch, ty/pitch // along the line
	dx, dy := -ey, ex            // down the page
	h := l.height(i) * cellHeightRatio
	at := py.sampler(max(pitch/CellW, h/CellH))
	for v := range CellH {
		fv := (float64(v)+0.5)/CellH - 0.5
		for u := range CellW {
			fu := (float64(u)+0.5)/CellW - 0.5
			dst[v*CellW+u] = at(cx+fu*pitch*ex+fv*h*dx, cy+fu*pitch*ey+fv*h*dy)
		}
	}
	return dst
}

func clampByte(v float32) int {
	if v <= 0 {
		return 0
	}
	if v >= 255 {
		return 255
	}
	return int(v + 0.5)
}

// percentile returns the gray level below which the fraction q of the n
// counted samples lie.
func percentile(hist *[256]int, n int, q float64) float32 {
	target := int(q * float64(n))
	acc := 0
	for v, c := range hist {
		acc += c
		if acc > target {
			return float32(v)
		}
	}
	return 255
}

// median of a copy of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// quantile q (0…1) of a copy of xs (0 for none).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
