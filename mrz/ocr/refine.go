package ocr

import "math"

// refineRows and refineSpan: the strip RefineLine looks at, in rows, and
// its half-height in character heights (short of the neighbouring lines,
// which are at least 1.15 heights away).
const (
	refineRows = 36
	refineSpan = 0.95
	// refineExtent is the share of a clean line's ink-weighted extent
	// (from 4% to 96% of the ink, top to bottom) in its character height,
	// as measured on the training program's synthetic lines.
	refineExtent = 1.040
	// refineBias is where that extent's middle lies on such lines, in
	// character heights below the centre (negative: above).
	refineBias = -0.036
)

// RefineLine re-measures the vertical centre and the character height of
// a line from its ink and moves l to them. The reader applies it to the
// geometry its detection found and the training program to a perturbed
// true geometry, so that the classifier sees cells framed the same way in
// both, whatever biases the measure has: framing matters, since OCR-B's
// digits stand taller than its letters (0 and O differ by little else).
//
// The measure is over the whole line: its halves can differ in content (a
// run of fillers is lower than letters), which would tilt a per-half
// estimate. The height then follows the pitch along the line, as
// perspective scales both alike.
func RefineLine(py *Pyramid, l *Line) {
	if l.N < 4 {
		return
	}
	var prof [refineRows]float64
	for i := range l.N {
		fi := float64(i)
		cx, cy := l.centre(fi)
		tx, ty := l.tangent(fi)
		p := math.Hypot(tx, ty)
		ex, ey := tx/p, ty/p
		dx, dy := -ey, ex
		h := l.height(fi)
		at := py.sampler(max(p/8, 2*refineSpan*h/refineRows))
		for r := range refineRows {
			v := ((float64(r)+0.5)/refineRows*2 - 1) * refineSpan * h
			for u := range 6 {
				a := ((float64(u)+0.5)/6 - 0.5) * 0.8 * p
				prof[r] += float64(at(cx+a*ex+v*dx, cy+a*ey+v*dy))
			}
		}
	}
	paper := prof[0]
	for _, v := range prof {
		paper = max(paper, v)
	}
	var ink [refineRows]float64
	total := 0.0
	for r, v := range prof {
		ink[r] = paper - v
		total += ink[r]
	}
	if total <= 0 {
		return
	}
	top, bottom := -1.0, -1.0
	acc := 0.0
	for r, v := range ink {
		prev := acc
		acc += v
		// Interpolate inside the row for sub-row precision.
		if top < 0 && acc >= 0.04*total {
			top = float64(r) + (0.04*total-prev)/max(v, 1e-9)
		}
		if bottom < 0 && acc >= 0.96*total {
			bottom = float64(r) + (0.96*total-prev)/max(v, 1e-9)
		}
	}
	m := float64(l.N-1) / 2
	h := l.height(m)
	rowH := 2 * refineSpan * h / refineRows
	off := ((top+bottom)/2-refineRows/2)*rowH - refineBias*h
	hm := (bottom - top) * rowH / refineExtent
	tx, ty := l.tangent(m)
	p := math.Hypot(tx, ty)
	dx, dy := -ty/p, tx/p
	l.X[0] += off * dx
	l.Y[0] += off * dy
	// d pitch / d i at the middle, over the pitch there.
	dp := (l.X[1]+2*m*l.X[2])*2*l.X[2] + (l.Y[1]+2*m*l.Y[2])*2*l.Y[2]
	slope := dp / (p * p)
	l.H = [2]float64{hm * (1 - slope*m), hm * slope}
}

// RefineZone refines every line of a zone (in their order on the page)
// with RefineLine, then makes them agree: the lines of a zone are printed
// in one size, one line-spacing apart. A line whose refined height
// differs from what its own print showed at detection, or from the
// zone's, measured more than its print (the card's edge, a pattern
// below it, the line above run into it): it takes the zone's height, and
// its place from the spacing of the others (from detection when there
// are not two others to go by).
func RefineZone(py *Pyramid, lines []Line) {
	raw := append([]Line(nil), lines...)
	for i := range lines {
		RefineLine(py, &lines[i])
	}
	n := len(lines)
	if n < 2 {
		return
	}
	mids := func(l *Line) float64 { return float64(l.N-1) / 2 }
	hs := make([]float64, n)
	var sum float64
	trusted := 0
	for i := range lines {
		hs[i] = lines[i].height(mids(&lines[i]))
		if r := raw[i].height(mids(&raw[i])); math.Abs(hs[i]/r-1) <= 0.12 {
			sum += hs[i]
			trusted++
		}
	}
	if trusted == 0 {
		return
	}
	ref := sum / float64(trusted)
	for i := range lines {
		if math.Abs(hs[i]/ref-1) <= 0.12 {
			continue
		}
		l := &lines[i]
		m := mids(l)
		k := ref / hs[i]
		l.H[0] *= k
		l.H[1] *= k
		tx, ty := l.tangent(m)
		p := math.Hypot(tx, ty)
		nx, ny := -ty/p, tx/p
		across := func(l *Line) float64 {
			x, y := l.centre(mids(l))
			return x*nx + y*ny
		}
		target := across(&raw[i])
		if n == 3 {
			a, b := (i+1)%3, (i+2)%3
			if math.Abs(hs[a]/ref-1) <= 0.12 && math.Abs(hs[b]/ref-1) <= 0.12 {
				p0, p1, p2 := across(&lines[0]), across(&lines[1]), across(&lines[2])
				switch i {
				case 0:
					target = 2*p1 - p2
				case 1:
					target = (p0 + p2) / 2
				case 2:
					target = 2*p1 - p0
				}
			}
		}
		d := target - across(l)
		l.X[0] += d * nx
		l.Y[0] += d * ny
	}
}
