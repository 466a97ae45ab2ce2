package ocr

import (
	"math"
	"slices"
	"sort"
)

// A chain is a run of blobs of about the same height, side by side along
// a straight line: a line of print. In an MRZ every cell holds a glyph
// (the filler '<' too) and all glyphs have about the same height, so the
// zone shows up as 2 or 3 long, parallel, evenly spaced chains.
type chain struct {
	blobs  []blob  // in reading order
	idx    []int   // cell index of each blob, relative to the first
	ux, uy float64 // unit direction of the line
	height float64 // median blob height
	pitch  float64 // median distance between neighbouring cells
	span   int     // idx of the last blob
}

// detectLines finds the chains of a detection image, and its bars:
// blobs at least 10 times as long as tall (a line of glyphs blurred into
// one), for the hint when no zone is found.
func detectLines(p *plane) ([]*chain, []blob) {
	return linesOf(blobs(inkMask(p, 16), p.w, p.h))
}

// linesOf is detectLines on the blobs of a detection image's ink.
func linesOf(all []blob) ([]*chain, []blob) {
	var bs, bars []blob
	for _, b := range all {
		h, w := b.h(), b.w()
		if h >= 6 && h <= 160 && w >= 10*h && b.n >= w*h/3 {
			bars = append(bars, b)
		}
		if h < 6 || h > 160 || b.n < 6 || w > 6*h || h > 10*w {
			continue
		}
		bs = append(bs, b)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].x0 < bs[j].x0 })
	next := make([]int, len(bs))
	prevBest := make([]int, len(bs))
	prevCost := make([]float64, len(bs))
	for i := range bs {
		next[i], prevBest[i], prevCost[i] = -1, -1, math.Inf(1)
	}
	for i := range bs {
		a := &bs[i]
		best, bestCost := -1, math.Inf(1)
		ha := float64(a.h())
		for j := i + 1; j < len(bs) && float64(bs[j].x0) <= float64(a.x1)+1.3*ha; j++ {
			b := &bs[j]
			hb := float64(b.h())
			H := max(ha, hb)
			dx, dy := b.cx-a.cx, b.cy-a.cy
			if ha/hb > 1.7 || hb/ha > 1.7 || dx < 0.3*min(ha, hb) || dx > 3.2*H {
				continue
			}
			if math.Abs(dy) > 0.3*H+0.28*dx {
				continue
			}
			cost := dx + 2*math.Abs(dy)
			if cost < bestCost {
				best, bestCost = j, cost
			}
		}
		if best >= 0 && bestCost < prevCost[best] {
			next[i] = best
			prevBest[best], prevCost[best] = i, bestCost
		}
	}
	var out []*chain
	for i := range bs {
		if prevBest[i] >= 0 && next[prevBest[i]] == i {
			continue // not the head of a chain
		}
		var c []blob
		for k := i; k >= 0; k = next[k] {
			c = append(c, bs[k])
			if next[k] >= 0 && prevBest[next[k]] != k {
				break
			}
		}
		if len(c) >= 8 {
			if ch := newChain(c); ch != nil {
				out = append(out, ch)
			}
		}
	}
	return mergeChains(out), bars
}

// newChain fits a chain's direction, pitch and cell indices.
func newChain(bs []blob) *chain {
	c := &chain{blobs: bs}
	// Direction: least squares through the centres.
	var sx, sy, sxx, sxy float64
	for _, b := range bs {
		sx += b.cx
		sy += b.cy
		sxx += b.cx * b.cx
		sxy += b.cx * b.cy
	}
	n := float64(len(bs))
	den := sxx - sx*sx/n
	if den <= 0 {
		return nil
	}
	slope := (sxy - sx*sy/n) / den
	norm := math.Hypot(1, slope)
	c.ux, c.uy = 1/norm, slope/norm
	// A tilted glyph's box is taller than the glyph: undo the rotation
	// (box h' = h·cos + w·sin, w' = w·cos + h·sin).
	cos, sin := c.ux, math.Abs(c.uy)
	hs := make([]float64, len(bs))
	for i, b := range bs {
		h, w := float64(b.h()), float64(b.w())
		hs[i] = max((h*cos-w*sin)/(cos*cos-sin*sin), 0.5*h)
	}
	// Letters and digits are the tallest glyphs; a line of fillers has
	// enough of them to set the height.
	c.height = quantile(hs, 0.8)
	c.index()
	if c.pitch <= 0 {
		return nil
	}
	return c
}

// index numbers the cells: neighbours one pitch apart are consecutive
// cells; a wider gap (a lost glyph) skips as many cells as fit. A blob
// much wider than the others is glyphs run together (on a worn or
// low-resolution zone): it takes as many cells as its width holds, its
// centre being no cell's. The pitch is re-estimated locally, so
// perspective does not throw the count off.
func (c *chain) index() {
	ws := make([]float64, len(c.blobs))
	for i, b := range c.blobs {
		ws[i] = float64(b.w())
	}
	wmed := median(ws)
	wide := func(b *blob) bool { return float64(b.w()) > 1.6*wmed }
	// Typical step: the median of the steps between neighbours of usual
	// width no larger than 1.6 heights.
	var single []float64
	for i := 1; i < len(c.blobs); i++ {
		a, b := &c.blobs[i-1], &c.blobs[i]
		if s := c.proj(b) - c.proj(a); !wide(a) && !wide(b) && s < 1.6*c.height {
			single = append(single, s)
		}
	}
	c.pitch = median(single)
	if c.pitch <= 0 {
		return
	}
	local := c.pitch
	cells := func(b *blob) int {
		if !wide(b) {
			return 1
		}
		return max(1, int(math.Round(float64(b.w())/local)))
	}
	c.idx = make([]int, len(c.blobs))
	n := cells(&c.blobs[0])
	right := c.proj(&c.blobs[0]) + float64(n-1)/2*local // centre of its last cell
	last := n - 1                                       // and that cell's index
	for i := 1; i < len(c.blobs); i++ {
		b := &c.blobs[i]
		n := cells(b)
		left := c.proj(b) - float64(n-1)/2*local
		s := left - right
		k := max(1, int(math.Round(s/local)))
		c.idx[i] = last + k
		if k == 1 && n == 1 && !wide(&c.blobs[i-1]) {
			local = 0.8*local + 0.2*s
		}
		last = c.idx[i] + n - 1
		right = c.proj(b) + float64(n-1)/2*local
	}
	c.span = last
}

func (c *chain) proj(b *blob) float64 { return b.cx*c.ux + b.cy*c.uy }

// perp is the signed distance of (x, y) from the chain's line, through
// its first blob.
func (c *chain) perp(x, y float64) float64 {
	return -(x-c.blobs[0].cx)*c.uy + (y-c.blobs[0].cy)*c.ux
}

// mergeChains joins chains that continue one another on the same line
// across a gap (glare or a stain can cut an MRZ line in two).
func mergeChains(cs []*chain) []*chain {
	sort.Slice(cs, func(i, j int) bool { return cs[i].blobs[0].cx < cs[j].blobs[0].cx })
	for i := 0; i < len(cs); i++ {
		a := cs[i]
		for j := i + 1; j < len(cs); j++ {
			b := cs[j]
			if b == nil || a == nil {
				continue
			}
			last := &a.blobs[len(a.blobs)-1]
			first := &b.blobs[0]
			gap := a.ux*(first.cx-last.cx) + a.uy*(first.cy-last.cy)
			if gap <= 0.5*a.pitch || gap > 24*a.pitch || math.Abs(a.perp(first.cx, first.cy)) > 0.35*a.height ||
				math.Abs(b.pitch/a.pitch-1) > 0.12 || math.Abs(b.height/a.height-1) > 0.25 ||
				math.Abs(a.ux*b.uy-a.uy*b.ux) > 0.03 {
				continue
			}
			// Across a short gap the pitch must fit a whole number of
			// times; across a long one its estimate is too rough to tell.
			k := gap / a.pitch
			if k < 8 && math.Abs(k-math.Round(k)) > 0.35 {
				continue
			}
			m := newChain(append(slices.Clone(a.blobs), b.blobs...))
			if m == nil {
				continue
			}
			cs[i], cs[j] = m, nil
			a = m
		}
	}
	return slices.DeleteFunc(cs, func(c *chain) bool { return c == nil })
}
