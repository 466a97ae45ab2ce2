package main

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/vector"

	"kycd/mrz/ocr"
)

// homography maps page coordinates (font units: x along the line, y down)
// to image pixels.
type homography [9]float64

func (h *homography) apply(x, y float64) (float64, float64) {
	w := h[6]*x + h[7]*y + h[8]
	return (h[0]*x + h[1]*y + h[2]) / w, (h[3]*x + h[4]*y + h[5]) / w
}

// page is one synthetic MRZ photo: the gray image and, per MRZ line, its
// text and true geometry.
type page struct {
	gray  *image.Gray
	lines []string
	geom  []ocr.Line
	// glare is, per line and cell, how much of the ink contrast the
	// simulated glare left (1 none, 0 all washed out).
	glare [][]float64
}

// shapes are the MRZ sizes: lines × characters.
var shapes = [][2]int{{3, 30}, {2, 36}, {2, 44}}

const mrzChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<"

// randomLine is MRZ-like text: runs of letters, digits and fillers as
// names, numbers and dates make them, or (half the time) characters drawn
// uniformly, so every symbol appears beside every other.
func randomLine(r *rand.Rand, n int) string {
	b := make([]byte, 0, n)
	if r.IntN(2) == 0 {
		for len(b) < n {
			b = append(b, mrzChars[r.IntN(len(mrzChars))])
		}
		return string(b)
	}
	for len(b) < n {
		var run int
		var set string
		switch r.IntN(4) {
		case 0:
			run, set = 1+r.IntN(12), mrzChars[10:36]
		case 1:
			run, set = 1+r.IntN(10), mrzChars[:10]
		case 2:
			run, set = 1+r.IntN(3), "<"
		default:
			run, set = 1+r.IntN(20), "<"
		}
		for range run {
			b = append(b, set[r.IntN(len(set))])
		}
	}
	return string(b[:n])
}

// params of one page, drawn at random.
type params struct {
	rows, n      int
	pitch        float64 // pixels per cell along the line
	aspect       float64 // character height scale against the pitch
	spacing      float64 // baseline distance in font units
	angle, shear float64
	persp        [2]float64
	weight       float64 // ink coverage exponent: < 1 bolder, > 1 thinner
	paper, ink   float64
	blur, motion float64 // in pixels
	noise        float64
	jpegQ        int // 0: none
	glare        bool
	lowres       float64 // > 1: shrink by this and enlarge back
}

func drawParams(r *rand.Rand) params {
	s := shapes[r.IntN(len(shapes))]
	p := params{rows: s[0], n: s[1]}
	// Pitch from 5.5 to 40 px, log-uniform: tiny phone crops to scans.
	p.pitch = math.Exp(math.Log(5.5) + r.Float64()*(math.Log(40)-math.Log(5.5)))
	p.aspect = 0.82 + 0.36*r.Float64()
	p.spacing = 1000 * (1.15 + 0.45*r.Float64())
	p.angle = (r.Float64()*2 - 1) * 4 * math.Pi / 180
	p.shear = (r.Float64()*2 - 1) * 0.08
	p.persp = [2]float64{(r.Float64()*2 - 1) * 4e-6, (r.Float64()*2 - 1) * 4e-6}
	p.weight = math.Exp((r.Float64()*2 - 1) * 0.6)
	p.paper = 140 + 115*r.Float64()
	p.ink = r.Float64() * min(110, p.paper-50)
	if r.IntN(10) < 8 {
		p.blur = r.Float64() * 0.14 * p.pitch
	} else {
		p.blur = r.Float64() * 0.22 * p.pitch
	}
	if r.IntN(10) == 0 {
		p.motion = r.Float64() * 0.25 * p.pitch
	}
	p.noise = r.Float64() * 10
	if r.IntN(10) < 6 {
		p.jpegQ = 25 + r.IntN(71)
	}
	p.glare = r.IntN(7) == 0
	if r.IntN(5) == 0 && p.pitch > 9 {
		p.lowres = 1 + r.Float64()*(p.pitch/7-1)
	}
	return p
}

// render draws a page with the given parameters.
func render(r *rand.Rand, fs *fonts, p params) *page {
	scale := p.pitch / ocrbAdvance
	// Page layout in font units: margins of a few cells around the zone.
	left := ocrbAdvance * (1 + 3*r.Float64())
	top := 1000 * (1.2 + 2*r.Float64())
	pageW := left*2 + float64(p.n)*ocrbAdvance
	pageH := top*2 + float64(p.rows-1)*p.spacing + 800
	W, H := int(pageW*scale)+1, int(pageH*scale*p.aspect)+1

	// Page → image: scale (x by pitch, y by pitch·aspect), shear, rotate
	// about the centre, a touch of perspective, and back into the frame.
	ca, sa := math.Cos(p.angle), math.Sin(p.angle)
	sx, sy := scale, scale*p.aspect
	cx, cy := pageW/2, pageH/2
	a := [4]float64{ca * sx, ca*p.shear*sy - sa*sy, sa * sx, sa*p.shear*sy + ca*sy}
	h := homography{a[0], a[1], float64(W)/2 - a[0]*cx - a[1]*cy, a[2], a[3], float64(H)/2 - a[2]*cx - a[3]*cy, p.persp[0], p.persp[1], 1 - p.persp[0]*cx - p.persp[1]*cy}
	// Rotation grows the frame: shift so that every corner is inside.
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [][2]float64{{0, 0}, {pageW, 0}, {0, pageH}, {pageW, pageH}} {
		x, y := h.apply(c[0], c[1])
		minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
	}
	for i := range 3 {
		h[i] -= minX * h[6+i]
		h[3+i] -= minY * h[6+i]
	}
	W, H = int(maxX-minX)+2, int(maxY-minY)+2

	ras := vector.NewRasterizer(W, H)
	pg := &page{}
	for row := range p.rows {
		text := randomLine(r, p.n)
		base := top + float64(row)*p.spacing + 720
		for i := range p.n {
			drawGlyph(ras, &h, fs.ocrb[rune(text[i])], left+float64(i)*ocrbAdvance, base, 1)
		}
		pg.lines = append(pg.lines, text)
		pg.geom = append(pg.geom, fitLine(&h, p.n, left, base-360))
	}
	// Print above and beside the zone, as on a data page.
	if r.IntN(3) > 0 {
		k := r.IntN(len(fs.clutter))
		size := 0.6 + 0.7*r.Float64()
		base := top - (0.9+0.6*r.Float64())*1000
		x := left + r.Float64()*2000
		for x < pageW-2000 {
			c := rune(fs.clutterAlphabets[r.IntN(len(fs.clutterAlphabets))])
			if r.IntN(8) == 0 {
				x += fs.clutterAdvance[k] * size
				continue
			}
			drawGlyph(ras, &h, fs.clutter[k][c], x, base, size)
			x += fs.clutterAdvance[k] * size
		}
	}
	mask := image.NewAlpha(image.Rect(0, 0, W, H))
	ras.Draw(mask, mask.Bounds(), image.Opaque, image.Point{})

	img := make([]float64, W*H)
	background(r, img, W, H, p)
	for i, a := range mask.Pix {
		cov := math.Pow(float64(a)/255, p.weight)
		img[i] = img[i]*(1-cov) + p.ink*cov
	}
	glare := make([]float64, W*H)
	if p.glare {
		gx, gy := r.Float64()*float64(W), r.Float64()*float64(H)
		rad := p.pitch * (2 + 8*r.Float64())
		amp := 0.4 + 0.6*r.Float64()
		for y := range H {
			for x := range W {
				d := math.Hypot(float64(x)-gx, float64(y)-gy) / rad
				g := amp * math.Exp(-d*d)
				glare[y*W+x] = g
				img[y*W+x] = 255 - (255-img[y*W+x])*(1-g)
			}
		}
	}
	if p.blur > 0.3 {
		gaussBlur(img, W, H, p.blur)
	}
	if p.motion > 0.5 {
		motionBlur(img, W, H, p.motion, r.Float64()*math.Pi)
	}
	if p.lowres > 1.05 {
		// Shrink and enlarge back: the geometry keeps its coordinates.
		img = lowRes(img, W, H, p.lowres)
	}
	for i := range img {
		img[i] += r.NormFloat64() * p.noise
	}
	g := image.NewGray(image.Rect(0, 0, W, H))
	for i, v := range img {
		g.Pix[i] = uint8(min(max(v+0.5, 0), 255))
	}
	if p.jpegQ > 0 {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, g, &jpeg.Options{Quality: p.jpegQ}); err == nil {
			if d, err := jpeg.Decode(&buf); err == nil {
				g = d.(*image.Gray)
			}
		}
	}
	pg.gray = g
	// What glare left of the contrast at each cell centre.
	for row, l := range pg.geom {
		var gl []float64
		for i := range l.N {
			x, y := l.X[0]+float64(i)*(l.X[1]+float64(i)*l.X[2]), l.Y[0]+float64(i)*(l.Y[1]+float64(i)*l.Y[2])
			xi, yi := min(max(int(x), 0), W-1), min(max(int(y), 0), H-1)
			gl = append(gl, 1-glare[yi*W+xi])
		}
		_ = row
		pg.glare = append(pg.glare, gl)
	}
	return pg
}

// fitLine is the geometry of a line of n cells whose first cell starts
// at page x left, centred on page height yc: the exact cell centres fitted
// by quadratics in the cell index (exact but for the perspective).
func fitLine(h *homography, n int, left, yc float64) ocr.Line {
	l := ocr.Line{N: n}
	xs, ys, hs := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		px := left + (float64(i)+0.5)*ocrbAdvance
		xs[i], ys[i] = h.apply(px, yc)
		x0, y0 := h.apply(px, yc-360)
		x1, y1 := h.apply(px, yc+360)
		hs[i] = math.Hypot(x1-x0, y1-y0)
	}
	l.X = quadFit(xs)
	l.Y = quadFit(ys)
	hq := quadFit(hs)
	l.H = [2]float64{hq[0], hq[1] + hq[2]*float64(n-1)}
	return l
}

// quadFit fits v(i) = c0 + c1·i + c2·i² by least squares.
func quadFit(v []float64) [3]float64 {
	var s [5]float64
	var t [3]float64
	for i, y := range v {
		x := float64(i)
		p := 1.0
		for k := range 5 {
			s[k] += p
			if k < 3 {
				t[k] += p * y
			}
			p *= x
		}
	}
	m := [3][4]float64{{s[0], s[1], s[2], t[0]}, {s[1], s[2], s[3], t[1]}, {s[2], s[3], s[4], t[2]}}
	for c := range 3 {
		for rr := c + 1; rr < 3; rr++ {
			f := m[rr][c] / m[c][c]
			for k := c; k < 4; k++ {
				m[rr][k] -= f * m[c][k]
			}
		}
	}
	var out [3]float64
	for c := 2; c >= 0; c-- {
		v := m[c][3]
		for k := c + 1; k < 3; k++ {
			v -= m[c][k] * out[k]
		}
		out[c] = v / m[c][c]
	}
	return out
}

// drawGlyph adds a glyph outline (font units, scaled by size) at page
// position (x, base) to the rasterizer, mapped through h.
func drawGlyph(ras *vector.Rasterizer, h *homography, g glyph, x, base, size float64) {
	pt := func(p [2]float64) (float32, float32) {
		px, py := h.apply(x+p[0]*size, base+p[1]*size)
		return float32(px), float32(py)
	}
	fp := func(a sfnt.Segment, k int) [2]float64 {
		return [2]float64{float64(a.Args[k].X) / 64, float64(a.Args[k].Y) / 64}
	}
	for _, s := range g {
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			ras.ClosePath()
			ras.MoveTo(pt(fp(s, 0)))
		case sfnt.SegmentOpLineTo:
			ras.LineTo(pt(fp(s, 0)))
		case sfnt.SegmentOpQuadTo:
			bx, by := pt(fp(s, 0))
			cx, cy := pt(fp(s, 1))
			ras.QuadTo(bx, by, cx, cy)
		case sfnt.SegmentOpCubeTo:
			bx, by := pt(fp(s, 0))
			cx, cy := pt(fp(s, 1))
			dx, dy := pt(fp(s, 2))
			ras.CubeTo(bx, by, cx, cy, dx, dy)
		}
	}
	ras.ClosePath()
}
