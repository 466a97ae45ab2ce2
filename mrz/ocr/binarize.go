package ocr

import "math"

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
	for y := range h {
		var rs, rq float64
		for x := range w {
			v := float64(p.pix[y*w+x])
			rs += v
			rq += v * v
			sum[(y+1)*iw+x+1] = sum[y*iw+x+1] + rs
			sq[(y+1)*iw+x+1] = sq[y*iw+x+1] + rq
		}
	}
	out := make([]bool, w*h)
	for y := range h {
		y0, y1 := max(0, y-r), min(h, y+r+1)
		for x := range w {
			x0, x1 := max(0, x-r), min(w, x+r+1)
			n := float64((y1 - y0) * (x1 - x0))
			s := sum[y1*iw+x1] - sum[y0*iw+x1] - sum[y1*iw+x0] + sum[y0*iw+x0]
			q := sq[y1*iw+x1] - sq[y0*iw+x1] - sq[y1*iw+x0] + sq[y0*iw+x0]
			m := s / n
			sd := math.Sqrt(max(q/n-m*m, 0))
			out[y*w+x] = float64(p.pix[y*w+x]) < m-max(8, 0.3*sd)
		}
	}
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
// with union-find.
func blobs(mask []bool, w, h int) []blob {
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
	for y := range h {
		for x := range w {
			if !mask[y*w+x] {
				continue
			}
			var l int32
			for _, d := range [4][2]int{{-1, 0}, {-1, -1}, {0, -1}, {1, -1}} {
				nx, ny := x+d[0], y+d[1]
				if nx < 0 || ny < 0 || nx >= w {
					continue
				}
				if nl := label[ny*w+nx]; nl != 0 {
					if l == 0 {
						l = find(nl)
					} else if find(nl) != l {
						l = union(l, nl)
					}
				}
			}
			if l == 0 {
				l = int32(len(parent))
				parent = append(parent, l)
			}
			label[y*w+x] = l
		}
	}
	index := make([]int32, len(parent))
	for i := range index {
		index[i] = -1
	}
	var out []blob
	for y := range h {
		for x := range w {
			l := label[y*w+x]
			if l == 0 {
				continue
			}
			r := find(l)
			k := index[r]
			if k < 0 {
				k = int32(len(out))
				index[r] = k
				out = append(out, blob{x0: x, y0: y, x1: x, y1: y})
			}
			b := &out[k]
			b.x0, b.x1 = min(b.x0, x), max(b.x1, x)
			b.y0, b.y1 = min(b.y0, y), max(b.y1, y)
			b.n++
		}
	}
	for i := range out {
		b := &out[i]
		b.cx, b.cy = float64(b.x0+b.x1)/2, float64(b.y0+b.y1)/2
	}
	return out
}
