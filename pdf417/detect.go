package pdf417

import "sort"

// The guard patterns of §5.3 as element widths in modules, bar first.
var (
	startWidths = []int{8, 1, 1, 1, 1, 1, 1, 3}
	stopWidths  = []int{7, 1, 1, 3, 1, 1, 1, 2, 1}
)

// hit is one row's crossing of a guard pattern: x0 where its first bar
// starts, x1 where its last element ends, m the module width seen.
type hit struct {
	y      int
	x0, x1 float64
	m      float64
}

// runs returns the run lengths of row y, the first run dark or light as
// the row starts, and the colour of the first run.
func (m *bitmap) runs(y int, buf []int) ([]int, byte) {
	row := m.b[y*m.w : (y+1)*m.w]
	buf = buf[:0]
	n := 0
	for x := range row {
		if x > 0 && row[x] != row[x-1] {
			buf = append(buf, n)
			n = 0
		}
		n++
	}
	return append(buf, n), row[0]
}

// matches tells whether the runs w follow the pattern p, returning the
// module width. The tolerances are loose on purpose: blur and ink spread
// widen bars and narrow spaces by up to half a module.
func matches(w []int, p []int) (float64, bool) {
	total, mods := 0, 0
	for i := range p {
		total += w[i]
		mods += p[i]
	}
	mw := float64(total) / float64(mods)
	if mw < 0.8 {
		return 0, false
	}
	dev := 0.0
	for i, e := range p {
		d := float64(w[i]) - float64(e)*mw
		if d < 0 {
			d = -d
		}
		if d > 0.8*mw+0.2*float64(e)*mw {
			return 0, false
		}
		dev += d
	}
	return mw, dev < 0.3*float64(total)
}

// findHits scans every row for the pattern p, whose first element is a
// bar when firstDark (the start pattern read backwards begins with its
// three-module space).
func findHits(bm *bitmap, p []int, firstDark bool) []hit {
	var hits []hit
	var buf []int
	for y := range bm.h {
		var first byte
		buf, first = bm.runs(y, buf)
		x := 0
		for i := range buf {
			dark := (i%2 == 0) == (first == 1)
			if dark == firstDark && i+len(p) <= len(buf) {
				if mw, ok := matches(buf[i:i+len(p)], p); ok {
					end := x
					for _, r := range buf[i : i+len(p)] {
						end += r
					}
					hits = append(hits, hit{y: y, x0: float64(x), x1: float64(end), m: mw})
				}
			}
			x += buf[i]
		}
	}
	return hits
}

// edge is a guard pattern followed down the rows: a vertical-ish column
// of hits that are neighbours in position and module width.
type edge struct {
	hits []hit
}

func (e *edge) last() hit { return e.hits[len(e.hits)-1] }

// group joins hits into edges. Rows may be skipped (damage, speckle) and
// the column may lean by up to 45° from the vertical.
func group(hits []hit) []*edge {
	var edges []*edge
	for _, h := range hits {
		var best *edge
		for _, e := range edges {
			l := e.last()
			dy := h.y - l.y
			if dy <= 0 || dy > 6 || h.m > 1.6*l.m || h.m < l.m/1.6 {
				continue
			}
			dx := h.x0 - l.x0
			if dx < 0 {
				dx = -dx
			}
			if dx <= 1.2*float64(dy)+2+l.m {
				best = e
				break
			}
		}
		if best == nil {
			edges = append(edges, &edge{hits: []hit{h}})
		} else {
			best.hits = append(best.hits, h)
		}
	}
	var kept []*edge
	for _, e := range edges {
		if len(e.hits) >= 4 {
			kept = append(kept, e)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return len(kept[i].hits) > len(kept[j].hits) })
	return kept
}

// line is x = a·y + b fitted through the points, with the span of y.
type line struct {
	a, b       float64
	yTop, yBot float64
	m          float64
}

// fit fits x = a·y + b to the x of each hit chosen by pick, dropping
// outliers once.
func fit(hits []hit, pick func(hit) float64) line {
	solve := func(hs []hit) (a, b float64) {
		var sy, sx, syy, sxy float64
		n := float64(len(hs))
		for _, h := range hs {
			y, x := float64(h.y), pick(h)
			sy += y
			sx += x
			syy += y * y
			sxy += x * y
		}
		d := n*syy - sy*sy
		if d == 0 {
			return 0, sx / n
		}
		a = (n*sxy - sx*sy) / d
		return a, (sx - a*sy) / n
	}
	a, b := solve(hits)
	var in []hit
	var msum float64
	for _, h := range hits {
		r := pick(h) - (a*float64(h.y) + b)
		if r < 0 {
			r = -r
		}
		if r <= 1.5+h.m {
			in = append(in, h)
			msum += h.m
		}
	}
	if len(in) >= 3 {
		a, b = solve(in)
	} else {
		in = hits
		for _, h := range hits {
			msum += h.m
		}
	}
	return line{a: a, b: b, yTop: float64(in[0].y), yBot: float64(in[len(in)-1].y), m: msum / float64(len(in))}
}
