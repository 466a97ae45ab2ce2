package ocr

import (
	"cmp"
	"math"
	"slices"
)

// inkMask marks the pixels darker than the mean of their (2r+1)²
// neighbourhood by a share of its standard deviation, and by a few gray
// levels at least. Unlike a threshold proportional to the mean (Sauvola),
// this keeps faint print on washed-out paper, and the floor keeps sensor
// noise on flat paper out.
func inkMask(p *plane, r int) []bool {
	w, h := p.w, p.h
	// Integral images of the values and their squares, one row and column
	// of zeros in front.
	iw := w + 1
	sum := make([]float64, iw*(h+1))
	sq := make([]float64, iw*(h+1))
	// Each row's running sums first (rows in parallel), then down the
	// columns (columns in parallel): the same additions in the same
	// order as one pass would make.
	inChunks(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			var rs, rq float64
			srow, qrow := sum[(y+1)*iw+1:(y+2)*iw], sq[(y+1)*iw+1:(y+2)*iw]
			for x, v := range p.pix[y*w : (y+1)*w] {
				f := float64(v)
				rs += f
				rq += f * f
				srow[x], qrow[x] = rs, rq
			}
		}
	})
	inChunks(w, func(lo, hi int) {
		for y := 1; y < h; y++ {
			above, srow := sum[y*iw+1+lo:y*iw+1+hi], sum[(y+1)*iw+1+lo:(y+1)*iw+1+hi]
			qabove, qrow := sq[y*iw+1+lo:y*iw+1+hi], sq[(y+1)*iw+1+lo:(y+1)*iw+1+hi]
			for x := range srow {
				srow[x] += above[x]
				qrow[x] += qabove[x]
			}
		}
	})
	out := make([]bool, w*h)
	inChunks(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			y0, y1 := max(0, y-r), min(h, y+r+1)
			for x := range w {
				v := float64(p.pix[y*w+x])
				x0, x1 := max(0, x-r), min(w, x+r+1)
				n := float64((y1 - y0) * (x1 - x0))
				s := sum[y1*iw+x1] - sum[y0*iw+x1] - sum[y1*iw+x0] + sum[y0*iw+x0]
				m := s / n
				if v >= m-8 {
					// Paper, or ink too faint at any spread: the
					// threshold below is at least 8 under the mean
					// (most pixels end here, without the root).
					continue
				}
				q := sq[y1*iw+x1] - sq[y0*iw+x1] - sq[y1*iw+x0] + sq[y0*iw+x0]
				sd := math.Sqrt(max(q/n-m*m, 0))
				out[y*w+x] = v < m-max(8, 0.3*sd)
			}
		}
	})
	return out
}

// blob is a connected component of ink.
type blob struct {
	x0, y0, x1, y1 int // bounding box, inclusive
	n              int
	cx, cy         float64 // centre of the bounding box
}

func (b *blob) w() int { return b.x1 - b.x0 + 1 }
func (b *blob) h() int { return b.y1 - b.y0 + 1 }

// blobs labels the 8-connected components of mask (w×h) in two passes
// with union-find, in the order of their first pixel row by row.
func blobs(mask []bool, w, h int) []blob {
	out, _ := blobsBothWays(mask, w, h)
	return out
}

// blobsBothWays is blobs, and the blobs of the transposed mask in the
// order blobs would list them there (by their first pixel column by
// column): the components are the same, 8-connectivity being symmetric,
// so the mask is labelled once for both views.
func blobsBothWays(mask []bool, w, h int) (out, turned []blob) {
	label := make([]int32, w*h)
	parent := []int32{0}
	find := func(a int32) int32 {
		for parent[a] != a {
			parent[a] = parent[parent[a]]
			a = parent[a]
		}
		return a
	}
	union := func(a, b int32) int32 {
		a, b = find(a), find(b)
		if a < b {
			parent[b] = a
			return a
		}
		parent[a] = b
		return b
	}
	// join merges the labelled neighbour nl into l (0: none yet).
	join := func(l, nl int32) int32 {
		switch {
		case nl == 0:
			return l
		case l == 0:
			return find(nl)
		case find(nl) != l:
			return union(l, nl)
		}
		return l
	}
	for y := range h {
		row := label[y*w : (y+1)*w]
		var up []int32
		if y > 0 {
			up = label[(y-1)*w : y*w]
		}
		for x, ink := range mask[y*w : (y+1)*w] {
			if !ink {
				continue
			}
			var l int32
			switch {
			case up != nil && up[x] != 0:
				// The pixel above touches all the other neighbours
				// looked at (left, above left, above right): they are
				// already in its component.
				l = find(up[x])
			default:
				if x > 0 {
					l = join(l, row[x-1])
					if up != nil && row[x-1] == 0 {
						// Above left touches left: looked at only
						// when left is paper.
						l = join(l, up[x-1])
					}
				}
				if up != nil && x+1 < w {
					l = join(l, up[x+1])
				}
			}
			if l == 0 {
				l = int32(len(parent))
				parent = append(parent, l)
			}
			row[x] = l
		}
	}
	index := make([]int32, len(parent))
	for i := range index {
		index[i] = -1
	}
	// firstY is the topmost row of each blob's leftmost column: the
	// first pixel of the transposed blob.
	var firstY []int
	for y := range h {
		for x, l := range label[y*w : (y+1)*w] {
			if l == 0 {
				continue
			}
			r := find(l)
			k := index[r]
			if k < 0 {
				k = int32(len(out))
				index[r] = k
				out = append(out, blob{x0: x, y0: y, x1: x, y1: y})
				firstY = append(firstY, y)
			}
			b := &out[k]
			if x < b.x0 {
				b.x0, firstY[k] = x, y
			}
			b.x1 = max(b.x1, x)
			b.y1 = max(b.y1, y)
			b.n++
		}
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		return cmp.Or(cmp.Compare(out[i].x0, out[j].x0), cmp.Compare(firstY[i], firstY[j]))
	})
	turned = make([]blob, len(out))
	for i, k := range order {
		b := out[k]
		turned[i] = blob{x0: b.y0, y0: b.x0, x1: b.y1, y1: b.x1, n: b.n,
			cx: float64(b.y0+b.y1) / 2, cy: float64(b.x0+b.x1) / 2}
	}
	for i := range out {
		b := &out[i]
		b.cx, b.cy = float64(b.x0+b.x1)/2, float64(b.y0+b.y1)/2
	}
	return out, turned
}
