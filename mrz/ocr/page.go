package ocr

import (
	"image"
	"math"
	"sort"
	"time"
)

// The page: when the zone is not read where it lies in the photo, the
// reader looks for the document itself — the quadrilateral of a card or a
// passport page lying on a table — and reads again on the page alone,
// warped back to a rectangle. A document small in a large frame then
// fills the picture the reader looks at (its characters get the usual
// detection scale instead of 4 pixels), and a page seen at an angle gets
// its glyphs back in proportion (the far end's characters are no longer
// narrower than the near end's).
//
// The page is found as a contrast region: on a coarse level of the
// pyramid (at most 500 pixels long, where a table's grain is averaged
// away), the pixels where the gray level changes sharply are the edges;
// what can be reached from the picture's border without crossing an edge
// is the background, and the largest solid region left is the document.
// Its corners are those of the largest quadrilateral in its convex hull.
// A region that is not solid (holes: the background leaked in through a
// gap in the edge) or not a quadrilateral (a face, a round object) is no
// page. All of it is bounded: the coarse level has at most pageLevelSide²
// pixels and the warped page at most maxPageSide on its long side.
const (
	// pageLevelSide: the coarse level's long side is at most this.
	pageLevelSide = 500
	// pageEdge: the least gray-level difference across two coarse pixels
	// that is an edge; the background's own texture (3× its median
	// gradient) raises it.
	pageEdge = 16
	// minPageArea and maxPageArea bound the page's share of the picture:
	// smaller is not a document the reader could read, larger is the
	// picture itself (a scan, a crop), where the first read already saw it.
	minPageArea = 0.04
	maxPageArea = 0.92
	// minPageFill: the region must fill its hull this much (a solid
	// page, its outline ragged by the erosion), and minQuadFill: the
	// quadrilateral must cover the hull this much (four corners).
	minPageFill = 0.85
	minQuadFill = 0.85
	// maxPageSide bounds the warped page (7.7 MB of float32 at most,
	// with its pyramid 10 MB): the portal's upload-time read makes it too.
	maxPageSide = 1600
	// pageErode: the erosion, in coarse pixels, that parts the page from
	// specks of background texture touching it.
	pageErode = 3
	// pageMargin: the warped page keeps this share of its longer side
	// around it (some of the table).
	pageMargin = 0.04
)

// findPage returns the corners of the document in the pyramid's level-0
// pixels, clockwise on the picture (y down), or false.
func findPage(py *Pyramid) ([4][2]float64, bool) {
	var q [4][2]float64
	k := 0
	for k+1 < len(py.levels) && max(py.levels[k].w, py.levels[k].h) > pageLevelSide {
		k++
	}
	p := py.levels[k]
	w, h := p.w, p.h
	if w < 64 || h < 64 {
		return q, false
	}
	// Gradient magnitude by central differences.
	grad := make([]float32, w*h)
	var sample []float32
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			i := y*w + x
			gx, gy := p.pix[i+1]-p.pix[i-1], p.pix[i+w]-p.pix[i-w]
			grad[i] = float32(math.Sqrt(float64(gx*gx + gy*gy)))
			if (x+y)%7 == 0 {
				sample = append(sample, grad[i])
			}
		}
	}
	sort.Slice(sample, func(i, j int) bool { return sample[i] < sample[j] })
	t := float32(pageEdge)
	if len(sample) > 0 {
		t = max(t, 3*sample[len(sample)/2])
	}
	// Edges, closed by one pixel so that a faint stretch of the page's
	// border does not let the background in.
	wall := make([]bool, w*h)
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			if grad[y*w+x] < t {
				continue
			}
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					wall[(y+dy)*w+x+dx] = true
				}
			}
		}
	}
	// The background: reached from the border without crossing a wall.
	back := make([]bool, w*h)
	queue := make([]int32, 0, 4*(w+h))
	push := func(i int) {
		if !back[i] && !wall[i] {
			back[i] = true
			queue = append(queue, int32(i))
		}
	}
	for x := range w {
		push(x)
		push((h-1)*w + x)
	}
	for y := range h {
		push(y * w)
		push(y*w + w - 1)
	}
	for len(queue) > 0 {
		i := int(queue[len(queue)-1])
		queue = queue[:len(queue)-1]
		x, y := i%w, i/w
		if x > 0 {
			push(i - 1)
		}
		if x < w-1 {
			push(i + 1)
		}
		if y > 0 {
			push(i - w)
		}
		if y < h-1 {
			push(i + w)
		}
	}
	// What is left, eroded by pageErode pixels so that specks of the
	// table's grain strung along a seam do not join the page, then its
	// largest region (4-connected).
	solid := erode(back, w, h, pageErode)
	best, bestN := -1, 0
	label := make([]int32, w*h)
	n := int32(0)
	for s := range solid {
		if !solid[s] || label[s] != 0 {
			continue
		}
		n++
		cnt := 0
		queue = append(queue[:0], int32(s))
		label[s] = n
		for len(queue) > 0 {
			i := int(queue[len(queue)-1])
			queue = queue[:len(queue)-1]
			cnt++
			x, y := i%w, i/w
			for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
				if (j == i-1 && x == 0) || (j == i+1 && x == w-1) || (j == i-w && y == 0) || (j == i+w && y == h-1) {
					continue
				}
				if solid[j] && label[j] == 0 {
					label[j] = n
					queue = append(queue, int32(j))
				}
			}
		}
		if cnt > bestN {
			best, bestN = int(n), cnt
		}
	}
	area := float64(w * h)
	if best < 0 || float64(bestN) < minPageArea*area || float64(bestN) > maxPageArea*area {
		return q, false
	}
	// The region's outline: the first and last pixel of each row.
	var pts [][2]float64
	for y := range h {
		x0, x1 := -1, -1
		for x := range w {
			if label[y*w+x] == int32(best) {
				if x0 < 0 {
					x0 = x
				}
				x1 = x
			}
		}
		if x0 >= 0 {
			pts = append(pts, [2]float64{float64(x0), float64(y)}, [2]float64{float64(x1) + 1, float64(y)}, [2]float64{float64(x0), float64(y) + 1}, [2]float64{float64(x1) + 1, float64(y) + 1})
		}
	}
	hull := convexHull(pts)
	ha := polyArea(hull)
	if ha <= 0 || float64(bestN) < minPageFill*ha {
		return q, false
	}
	quad, ok := largestQuad(hull)
	if !ok || polyArea(quad[:]) < minQuadFill*ha {
		return q, false
	}
	// Grown back by the erosion (outwards from the centre) and to
	// level-0 pixels.
	s := float64(int(1) << k)
	var cx, cy float64
	for _, c := range quad {
		cx, cy = cx+c[0]/4, cy+c[1]/4
	}
	for i, c := range quad {
		dx, dy := c[0]-cx, c[1]-cy
		d := math.Hypot(dx, dy)
		g := pageErode * math.Sqrt2 / max(d, 1)
		q[i] = [2]float64{(c[0] + dx*g) * s, (c[1] + dy*g) * s}
	}
	return q, true
}

// convexHull returns the hull of pts, clockwise on the picture (y down),
// by the monotone chain.
func convexHull(pts [][2]float64) [][2]float64 {
	if len(pts) < 3 {
		return nil
	}
	sort.Slice(pts, func(i, j int) bool {
		if pts[i][0] != pts[j][0] {
			return pts[i][0] < pts[j][0]
		}
		return pts[i][1] < pts[j][1]
	})
	cross := func(o, a, b [2]float64) float64 {
		return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0])
	}
	var hull [][2]float64
	for _, pass := range []int{0, 1} {
		start := len(hull)
		for k := range pts {
			p := pts[k]
			if pass == 1 {
				p = pts[len(pts)-1-k]
			}
			for len(hull) >= start+2 && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
				hull = hull[:len(hull)-1]
			}
			hull = append(hull, p)
		}
		hull = hull[:len(hull)-1]
	}
	if polyArea(hull) < 0 {
		for i, j := 0, len(hull)-1; i < j; i, j = i+1, j-1 {
			hull[i], hull[j] = hull[j], hull[i]
		}
	}
	return hull
}

// polyArea is the signed area of a polygon, positive when it runs
// clockwise on the picture (y down).
func polyArea(poly [][2]float64) float64 {
	var a float64
	for i := range poly {
		p, r := poly[i], poly[(i+1)%len(poly)]
		a += p[0]*r[1] - r[0]*p[1]
	}
	return a / 2
}

// largestQuad picks four hull points making a large quadrilateral: the
// two farthest apart (a diagonal), then the farthest from it on each
// side. For a page, a quadrilateral, these are its corners.
func largestQuad(hull [][2]float64) ([4][2]float64, bool) {
	var q [4][2]float64
	n := len(hull)
	if n < 4 {
		return q, false
	}
	a, b, d := 0, 0, -1.0
	for i := range n {
		for j := i + 1; j < n; j++ {
			if v := math.Hypot(hull[i][0]-hull[j][0], hull[i][1]-hull[j][1]); v > d {
				a, b, d = i, j, v
			}
		}
	}
	// Hull indices a < b: the points between them lie on one side of
	// the diagonal, the others on the other; take the farthest of each.
	far := func(from, to int) (int, float64) {
		best, bd := -1, 0.0
		pa, pb := hull[a], hull[b]
		for i := from; i != to; i = (i + 1) % n {
			p := hull[i]
			v := math.Abs((pb[0]-pa[0])*(p[1]-pa[1])-(pb[1]-pa[1])*(p[0]-pa[0])) / d
			if v > bd {
				best, bd = i, v
			}
		}
		return best, bd
	}
	c, dc := far((a+1)%n, b)
	e, de := far((b+1)%n, a)
	if c < 0 || e < 0 || dc < d/20 || de < d/20 {
		return q, false
	}
	q = [4][2]float64{hull[a], hull[c], hull[b], hull[e]}
	return q, true
}

// warpPage samples the page inside q (level-0 pixels, clockwise) onto an
// upright rectangle as long as the page's longer edges (at most
// maxPageSide, plus a margin of pageMargin), and returns it with the homography taking the
// rectangle's pixels back to level 0.
func warpPage(py *Pyramid, q [4][2]float64) (*plane, [9]float64) {
	dist := func(i, j int) float64 { return math.Hypot(q[i][0]-q[j][0], q[i][1]-q[j][1]) }
	w, h := max(dist(0, 1), dist(3, 2)), max(dist(1, 2), dist(0, 3))
	if f := maxPageSide / (max(w, h) * (1 + 2*pageMargin)); f < 1 {
		w, h = w*f, h*f
	}
	// A margin around the page: a zone printed up to the card's edge
	// must not look cut off by the picture's.
	m := math.Round(pageMargin * max(w, h))
	W, H := max(1, int(math.Round(w+2*m))), max(1, int(math.Round(h+2*m)))
	rect := [4][2]float64{{m, m}, {float64(W) - m, m}, {float64(W) - m, float64(H) - m}, {m, float64(H) - m}}
	hm := solveHomography(rect, q)
	out := newPlane(W, H)
	base := py.levels[0]
	for y := range H {
		for x := range W {
			sx, sy := applyHomography(hm, float64(x)+0.5, float64(y)+0.5)
			out.pix[y*W+x] = base.at(sx-0.5, sy-0.5)
		}
	}
	return out, hm
}

func applyHomography(hm [9]float64, x, y float64) (float64, float64) {
	z := hm[6]*x + hm[7]*y + hm[8]
	return (hm[0]*x + hm[1]*y + hm[2]) / z, (hm[3]*x + hm[4]*y + hm[5]) / z
}

// solveHomography returns the 3×3 matrix (h33 = 1) taking from to to.
func solveHomography(from, to [4][2]float64) [9]float64 {
	var m [8][9]float64
	for i := range 4 {
		x, y, u, v := from[i][0], from[i][1], to[i][0], to[i][1]
		m[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		m[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	for c := range 8 {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		if m[c][c] == 0 {
			continue
		}
		for r := range 8 {
			if r != c {
				f := m[r][c] / m[c][c]
				for k := c; k < 9; k++ {
					m[r][k] -= f * m[c][k]
				}
			}
		}
	}
	var hm [9]float64
	for i := range 8 {
		if m[i][i] != 0 {
			hm[i] = m[i][8] / m[i][i]
		}
	}
	hm[8] = 1
	return hm
}

// readPage reads again on the document's page, found and warped upright
// (see findPage), when the first read res did not read the zone; the
// better of the two is returned, in the picture's level-0 pixels. A page
// small in the picture whose zone is not found either is too small: the
// applicant should come closer, not show another side. The page is read
// at the usual scale only: it fills the picture the reader looks at, so
// the finer look would find nothing more, and it would double the time
// (and the memory) of a photo without a zone.
func readPage(net *Net, py *Pyramid, ref time.Time, res *Result) *Result {
	q, ok := findPage(py)
	if !ok {
		return res
	}
	small := polyArea(q[:]) < smallPage*float64(py.levels[0].w*py.levels[0].h)
	page, hm := warpPage(py, q)
	// From here the picture's pyramid is no longer referenced: the page's
	// read (a plane no larger than the page's longer edges, at most
	// maxPageSide) takes its place in memory rather than adding to it.
	py = nil
	r := readPyramid(net, pyramidOf(page), ref, 1)
	if rank(r) <= rank(res) {
		if res.Status == StatusNotFound && res.Hint == HintNoZone && r.Status == StatusNotFound && small {
			res.Hint = HintTooSmall
		}
		return res
	}
	// Back to the picture: the box through the homography, the pitch and
	// rotation as the page's local scale and turn at the box's centre.
	b := r.Box
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [4][2]float64{{float64(b.Min.X), float64(b.Min.Y)}, {float64(b.Max.X), float64(b.Min.Y)}, {float64(b.Max.X), float64(b.Max.Y)}, {float64(b.Min.X), float64(b.Max.Y)}} {
		x, y := applyHomography(hm, c[0], c[1])
		minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
	}
	cx, cy := float64(b.Min.X+b.Max.X)/2, float64(b.Min.Y+b.Max.Y)/2
	x0, y0 := applyHomography(hm, cx, cy)
	x1, y1 := applyHomography(hm, cx+1, cy)
	r.PitchPx *= math.Hypot(x1-x0, y1-y0)
	r.Rotation = math.Mod(r.Rotation+math.Atan2(y1-y0, x1-x0)*180/math.Pi+360, 360)
	r.Box = image.Rect(int(minX), int(minY), int(math.Ceil(maxX)), int(math.Ceil(maxY)))
	// Lines of print as the picture shows them (the selfie check weighs
	// this count).
	r.PrintLines = res.PrintLines
	return r
}

// smallPage: a page under this share of the picture, whose zone is not
// found, is too small to read.
const smallPage = 0.2

// erode returns the pixels of !back whose whole (2r+1)² square is in
// !back (an integral image of back's count).
func erode(back []bool, w, h, r int) []bool {
	sum := make([]int32, (w+1)*(h+1))
	for y := range h {
		var row int32
		for x := range w {
			if back[y*w+x] {
				row++
			}
			sum[(y+1)*(w+1)+x+1] = sum[y*(w+1)+x+1] + row
		}
	}
	out := make([]bool, w*h)
	for y := r; y < h-r; y++ {
		for x := r; x < w-r; x++ {
			x0, y0, x1, y1 := x-r, y-r, x+r+1, y+r+1
			if sum[y1*(w+1)+x1]-sum[y0*(w+1)+x1]-sum[y1*(w+1)+x0]+sum[y0*(w+1)+x0] == 0 {
				out[y*w+x] = true
			}
		}
	}
	return out
}
