package ocr

import (
	"fmt"
	"math"
	"sort"
)

// candidate is one way to lay the cells of an MRZ over the image: its
// lines, in level-0 coordinates, in reading order.
type candidate struct {
	lines []Line
}

// lengths are the line lengths of the MRZ formats, by number of lines.
var lengths = map[int][]int{3: {30}, 2: {36, 44}}

// frame maps detection coordinates back to level-0 image coordinates.
type frame struct {
	scale      float64 // detection pixels per level-0 pixel
	transposed bool
}

func (f frame) toImage(x, y float64) (float64, float64) {
	if f.transposed {
		x, y = y, x
	}
	// Pixel centres: detection pixel j covers [j/scale, (j+1)/scale).
	return (x+0.5)/f.scale - 0.5, (y+0.5)/f.scale - 0.5
}

// zoneCandidates groups chains into stacks of 2 or 3 parallel lines of
// the same pitch and height, one line-spacing apart, and returns every
// way to fit an MRZ's cells onto each stack.
//
// Loose stacking admits lines whose heights differ by up to 60% (not
// 35%): blur and glare swell or shrink the glyphs of one line.
func zoneCandidates(cs []*chain, f frame, loose bool) []candidate {
	var long []*chain
	for _, c := range cs {
		if len(c.blobs) >= 12 && c.span >= 20 && c.span <= 52 {
			long = append(long, c)
		}
	}
	// Top to bottom, by the distance of their middle from the image's top
	// edge measured across the lines.
	sort.Slice(long, func(i, j int) bool { return mid(long[i]) < mid(long[j]) })
	var out []candidate
	inTD1 := map[*chain]bool{}
	for i, a := range long {
		stack := []*chain{a}
		for _, b := range long[i+1:] {
			last := stack[len(stack)-1]
			if !parallel(last, b, loose) {
				continue
			}
			d := last.perp(b.blobs[0].cx, b.blobs[0].cy)
			if d < 1.15*last.height || d > 3.2*last.height {
				continue
			}
			stack = append(stack, b)
			if len(stack) == 3 {
				break
			}
		}
		// Three lines that fit a TD1 are not also two lines of a longer
		// format, nor are its lower two; other stacks starting lower come
		// from their own first chain. A chain that is the lower line of
		// such a stack still starts a TD1 of its own: the line above a
		// card's zone (a number printed over it in a like size) stacks
		// with the zone's first two lines, and the zone is then the
		// stack one line down.
		if len(stack) == 3 {
			if td1 := fitStack(stack, f); len(td1) > 0 {
				out = append(out, td1...)
				inTD1[stack[1]], inTD1[stack[2]] = true, true
				continue
			}
		}
		if len(stack) >= 2 && !inTD1[a] {
			out = append(out, fitStack(stack[:2], f)...)
		}
	}
	return out
}

// cutStack tells whether two long lines of print, one above the other
// as an MRZ's, run into the edge of the detection image: a zone cut off
// by the frame, which zoneCandidates cannot fit.
func cutStack(cs []*chain, w, h int) bool {
	touches := func(c *chain) bool {
		for _, b := range []*blob{&c.blobs[0], &c.blobs[len(c.blobs)-1]} {
			m := c.pitch
			if float64(b.x0) < m || float64(b.y0) < m || float64(b.x1) > float64(w)-1-m || float64(b.y1) > float64(h)-1-m {
				return true
			}
		}
		return false
	}
	for i, a := range cs {
		if len(a.blobs) < 12 {
			continue
		}
		for _, b := range cs[i+1:] {
			if len(b.blobs) < 12 || !parallel(a, b, false) || !(touches(a) || touches(b)) {
				continue
			}
			if d := math.Abs(a.perp(b.blobs[0].cx, b.blobs[0].cy)); d >= 1.15*a.height && d <= 3.2*a.height {
				return true
			}
		}
	}
	return false
}

func mid(c *chain) float64 {
	b := c.blobs[len(c.blobs)/2]
	return -b.cx*c.uy + b.cy*c.ux
}

func parallel(a, b *chain, loose bool) bool {
	dh := 0.35
	if loose {
		dh = 0.6
	}
	return math.Abs(a.ux*b.uy-a.uy*b.ux) < 0.035 &&
		math.Abs(b.pitch/a.pitch-1) < 0.15 && math.Abs(b.height/a.height-1) < dh
}

// fitStack fits the cells of each MRZ length the stack could have: the
// lines' first cells must line up (every MRZ line starts at the same
// margin), and a line whose chain lost cells at an end is tried with the
// missing cells at either end.
func fitStack(stack []*chain, f frame) []candidate {
	var out []candidate
	for _, n := range lengths[len(stack)] {
		for _, combo := range offsets(stack, n) {
			lines := make([]Line, len(stack))
			pts := make([][][3]float64, len(stack))
			for i, c := range stack {
				lines[i], pts[i] = fitLine(c, combo[i], n, f)
			}
			borrowShape(lines, pts)
			if aligned(lines) {
				out = append(out, candidate{lines: lines})
			}
		}
	}
	return out
}

// offsets lists the ways to number the cells of a stack's chains as a
// zone of lines of n cells: the zone cell of each chain's first blob.
//
// Each chain alone: its blobs fill the line, with the cells it lacks at
// either end, or it overruns the line by a few cells at one end or the
// other. Then the stack as a grid: the chains' first blobs are a whole
// number of cells apart along the lines, so one zone start numbers them
// all; this also covers chains that took in a speck beyond the margin
// at one end and lost a faint glyph at the other.
func offsets(stack []*chain, n int) [][]int {
	var out [][]int
	seen := map[string]bool{}
	add := func(o []int) {
		k := fmt.Sprint(o)
		if !seen[k] {
			seen[k] = true
			out = append(out, o)
		}
	}
	var offs [][]int
	alone := true
	for _, c := range stack {
		missing := n - 1 - c.span
		if missing < -4 || missing > 6 {
			alone = false
			break
		}
		var o []int
		for k := min(missing, 0); k <= max(missing, 0); k++ {
			o = append(o, k)
		}
		offs = append(offs, o)
	}
	if alone {
		for _, o := range combos(offs) {
			add(o)
		}
	}
	// A chain far longer than the line (specks beyond both margins
	// joined it) has no numbering alone; the grid below still places it
	// by the other chains.
	// The grid: cells of each chain's first blob from the first chain's,
	// along the first chain's direction (both roundings when halfway).
	// Each chain's cell 0 is placed by the median over its blobs, so a
	// speck that joined a chain across a gap (numbered a cell off) does
	// not shift the whole line.
	ref := stack[0]
	origin := func(c *chain) float64 {
		v := make([]float64, len(c.blobs))
		for k := range c.blobs {
			v[k] = ref.proj(&c.blobs[k])/ref.pitch - float64(c.idx[k])
		}
		return median(v)
	}
	o0 := origin(ref)
	shifts := [][]int{{0}}
	for _, c := range stack[1:] {
		d := origin(c) - o0
		fl := math.Floor(d)
		s := []int{int(math.Round(d))}
		if fr := d - fl; fr > 0.3 && fr < 0.7 {
			s = []int{int(fl), int(fl) + 1}
		}
		shifts = append(shifts, s)
	}
	type scoredOffs struct {
		o      []int
		inside int
	}
	var grid []scoredOffs
	for _, sh := range combos(shifts) {
		for o := -4 - ref.span; o <= n+3; o++ {
			offs := make([]int, len(stack))
			inside, fits := 0, true
			for i, c := range stack {
				offs[i] = o + sh[i]
				// At most four cells of specks beyond either margin.
				if offs[i] < -4 || offs[i]+c.span > n+3 {
					fits = false
					break
				}
				for _, k := range c.idx {
					if j := offs[i] + k; j >= 0 && j < n {
						inside++
					}
				}
			}
			if fits {
				grid = append(grid, scoredOffs{offs, inside})
			}
		}
	}
	sort.SliceStable(grid, func(i, j int) bool { return grid[i].inside > grid[j].inside })
	for _, g := range grid {
		if g.inside < grid[0].inside {
			break
		}
		add(g.o)
	}
	return out
}

// combos lists every choice of one offset per line, at most 64.
func combos(offs [][]int) [][]int {
	out := [][]int{{}}
	for _, o := range offs {
		var next [][]int
		for _, prefix := range out {
			for _, v := range o {
				if len(next) < 64 {
					next = append(next, append(append([]int(nil), prefix...), v))
				}
			}
		}
		out = next
	}
	return out
}

// aligned tells whether the first cells of the lines sit one above the
// other, within half a pitch, as do the last cells.
func aligned(lines []Line) bool {
	for _, end := range []int{0, lines[0].N - 1} {
		x0, y0 := lines[0].centre(float64(end))
		tx, ty := lines[0].tangent(float64(end))
		p := math.Hypot(tx, ty)
		for _, l := range lines[1:] {
			x, y := l.centre(float64(end))
			if math.Abs(((x-x0)*tx+(y-y0)*ty)/p) > 0.5*p {
				return false
			}
		}
	}
	return true
}

// borrowShape gives a line whose chain covered little of it (a run of
// fillers lost, the end of the line faint) the shape of the best-covered
// line of the zone, moved onto its own cells: the lines of a zone are
// printed one above the other, cell for cell, so their curves are alike,
// while extrapolating a short chain's own curve drifts off the cells.
func borrowShape(lines []Line, pts [][][3]float64) {
	best := 0
	for i := range pts {
		if len(pts[i]) > len(pts[best]) {
			best = i
		}
	}
	ref := lines[best]
	for i := range lines {
		if i == best || len(pts[i]) >= len(pts[best])*9/10 || len(pts[i]) < 4 {
			continue
		}
		var dx, dy float64
		for _, p := range pts[i] {
			x, y := ref.centre(p[0])
			dx += p[1] - x
			dy += p[2] - y
		}
		k := float64(len(pts[i]))
		h := lines[i].H
		lines[i] = ref
		lines[i].X[0] += dx / k
		lines[i].Y[0] += dy / k
		lines[i].H = h
	}
}

// fitLine fits the cell centres of a chain, whose first blob is cell off
// of a line of n, by quadratics in the cell index (linear when the chain
// covers too little of the line to trust a curve), in image coordinates.
// It returns the centres it fitted (cell index, x, y).
func fitLine(c *chain, off, n int, f frame) (Line, [][3]float64) {
	var is, xs, ys, hs []float64
	wmed := 0.0
	{
		ws := make([]float64, len(c.blobs))
		for i, b := range c.blobs {
			ws[i] = float64(b.w())
		}
		wmed = median(ws)
	}
	for k, b := range c.blobs {
		i := c.idx[k] + off
		if i < 0 || i >= n {
			continue
		}
		x, y := f.toImage(b.cx, b.cy)
		hs = append(hs, float64(b.h())/f.scale)
		if float64(b.w()) > 1.5*max(wmed, c.pitch*0.5) {
			continue // merged glyphs: their centre is between cells
		}
		is, xs, ys = append(is, float64(i)), append(xs, x), append(ys, y)
	}
	l := Line{N: n}
	deg := 2
	if len(is) < 8 || (is[len(is)-1]-is[0]) < 0.7*float64(n) {
		deg = 1
	}
	l.X = polyFit(is, xs, deg)
	l.Y = polyFit(is, ys, deg)
	// Refit without the centres far off the curve (a neighbour's accent,
	// a blob joined to the print above).
	var is2, xs2, ys2 []float64
	for k, i := range is {
		x, y := l.centre(i)
		if math.Hypot(xs[k]-x, ys[k]-y) < 0.3*c.pitch/f.scale {
			is2, xs2, ys2 = append(is2, i), append(xs2, xs[k]), append(ys2, ys[k])
		}
	}
	if len(is2) >= 6 && len(is2) < len(is) {
		l.X = polyFit(is2, xs2, deg)
		l.Y = polyFit(is2, ys2, deg)
	}
	// The chain's height is measured across the line (see newChain).
	l.H = [2]float64{c.height / f.scale, 0}
	var pts [][3]float64
	for k := range is {
		pts = append(pts, [3]float64{is[k], xs[k], ys[k]})
	}
	return l, pts
}

// polyFit fits v(i) = c0 + c1·i (+ c2·i²) by least squares.
func polyFit(is, vs []float64, deg int) [3]float64 {
	var out [3]float64
	if len(is) == 0 {
		return out
	}
	n := deg + 1
	var m [3][4]float64
	for k, i := range is {
		p := [3]float64{1, i, i * i}
		for r := range n {
			for c := range n {
				m[r][c] += p[r] * p[c]
			}
			m[r][3] += p[r] * vs[k]
		}
	}
	for c := range n {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[piv][c]) {
				piv = r
			}
		}
		m[c], m[piv] = m[piv], m[c]
		if m[c][c] == 0 {
			return out
		}
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k < 4; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	for c := n - 1; c >= 0; c-- {
		v := m[c][3]
		for k := c + 1; k < n; k++ {
			v -= m[c][k] * out[k]
		}
		out[c] = v / m[c][c]
	}
	return out
}

// reversed is l read the other way (the page upside down).
func (l Line) reversed() Line {
	m := float64(l.N - 1)
	r := Line{N: l.N}
	r.X = [3]float64{l.X[0] + m*(l.X[1]+m*l.X[2]), -(l.X[1] + 2*m*l.X[2]), l.X[2]}
	r.Y = [3]float64{l.Y[0] + m*(l.Y[1]+m*l.Y[2]), -(l.Y[1] + 2*m*l.Y[2]), l.Y[2]}
	r.H = [2]float64{l.H[0] + m*l.H[1], -l.H[1]}
	return r
}
