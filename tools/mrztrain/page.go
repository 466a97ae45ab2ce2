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

// lookAlikes are groups of symbols that OCR-B draws alike: lines made of
// them teach the classifier what tells them apart.
var lookAlikes = []string{"0ODQ", "1I", "5S", "8B", "2Z", "<CK", "6G", "MNHW", "UV", "EFP", "4A", "7T"}

// randomLine is MRZ-like text: runs of letters, digits and fillers as
// names, numbers and dates make them, characters drawn uniformly, so
// every symbol appears beside every other, or runs of look-alikes.
func randomLine(r *rand.Rand, n int) string {
	b := make([]byte, 0, n)
	switch r.IntN(10) {
	case 0, 1, 2, 3:
		for len(b) < n {
			b = append(b, mrzChars[r.IntN(len(mrzChars))])
		}
		return string(b)
	case 4, 5:
		for len(b) < n {
			g := lookAlikes[r.IntN(len(lookAlikes))]
			for range 1 + r.IntN(4) {
				b = append(b, g[r.IntN(len(g))])
			}
			if r.IntN(3) == 0 {
				b = append(b, mrzChars[r.IntN(len(mrzChars))])
			}
		}
		return string(b[:n])
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
	font         int     // index into fonts.ocrb
	pitch        float64 // pixels per cell along the line
	aspect       float64 // character height scale against the pitch
	glyphW       float64 // glyph width scale inside its cell
	spacing      float64 // baseline distance in font units
	angle, shear float64
	persp        [2]float64
	jitter       float64 // printer's placement error per glyph, in cells
	weight       float64 // ink coverage exponent: < 1 bolder, > 1 thinner
	stroke       float64 // stroke weight: > 0 bolder, < 0 thinner (ink spread)
	paper, ink   float64
	blur, motion float64 // in pixels
	noise        float64
	jpegQ        int // 0: none
	glare        bool
	overlay      bool    // translucent print over the zone (a stamp, boxes, a hologram's lines)
	guilloche    bool    // fine security line patterns behind the zone
	lowres       float64 // > 1: shrink by this and enlarge back
	dim          float64 // > 0: a dim room's light, as a share of the scene's (then gamma and more noise)
	gamma        float64 // with dim: the phone's brightening of the shadows (< 1)
	wash         bool    // a broad washed-out glare gradient across the zone
	watermark    bool    // translucent text over the lines (a stock photo's watermark)
}

// phoneDamage turns on the training mix of issue 26 (small cells, web
// thumbnails' JPEG, dim rooms, washed-out glare, watermarks, cells
// washed out in part labelled None). Off, the pages are drawn exactly as
// for the committed model.bin (TestDefaultPagesUnchanged): the mix was
// measured (see the commit adding it) and not yet adopted.
var phoneDamage bool

func drawParams(r *rand.Rand) params {
	s := shapes[r.IntN(len(shapes))]
	p := params{rows: s[0], n: s[1]}
	if r.IntN(4) == 0 {
		p.font = 1
	}
	// Pitch from 5.5 to 40 px, log-uniform: tiny phone crops to scans;
	// one page in five at 7.5 to 12 px, the characters of small web
	// images and of cards held far from the phone, where the reader
	// samples cells from barely more pixels than it keeps.
	if phoneDamage && r.IntN(5) == 0 {
		p.pitch = 7.5 + 4.5*r.Float64()
	} else {
		p.pitch = math.Exp(math.Log(5.5) + r.Float64()*(math.Log(40)-math.Log(5.5)))
	}
	p.aspect = 0.82 + 0.36*r.Float64()
	p.glyphW = 0.88 + 0.2*r.Float64()
	p.spacing = 1000 * (1.15 + 0.45*r.Float64())
	p.angle = (r.Float64()*2 - 1) * 4 * math.Pi / 180
	p.shear = (r.Float64()*2 - 1) * 0.08
	p.persp = [2]float64{(r.Float64()*2 - 1) * 4e-6, (r.Float64()*2 - 1) * 4e-6}
	p.jitter = r.Float64() * 0.035
	p.weight = math.Exp((r.Float64()*2 - 1) * 0.6)
	if r.IntN(3) > 0 {
		// Lighter by up to 0.03 of the pitch on each side (OCR-B's strokes
		// are 0.14 pitches wide), bolder by up to 0.045.
		p.stroke = -0.03 + 0.075*r.Float64()
	}
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
	// JPEG: most pages at a photo's usual quality, one in twenty at a
	// web thumbnail's.
	if !phoneDamage {
		if r.IntN(10) < 6 {
			p.jpegQ = 25 + r.IntN(71)
		}
	} else {
		switch k := r.IntN(20); {
		case k < 12:
			p.jpegQ = 25 + r.IntN(71)
		case k < 13:
			p.jpegQ = 15 + r.IntN(11)
		}
	}
	p.glare = r.IntN(7) == 0
	p.overlay = r.IntN(4) == 0
	p.guilloche = r.IntN(4) == 0
	if r.IntN(5) == 0 && p.pitch > 9 {
		p.lowres = 1 + r.Float64()*(p.pitch/7-1)
	}
	// At most one of a phone's or a web page's damages, on one page in
	// five, kept where the ink can still be read: piled on one another
	// (and on a page in three) they left many cells unreadable, and a
	// classifier trained on those hedges on clean print too.
	if !phoneDamage {
		return p
	}
	switch r.IntN(15) {
	case 0:
		// Never under 35 levels of contrast left.
		p.dim = max(0.12+0.3*r.Float64(), 35/(p.paper-p.ink))
		p.gamma = 0.6 + 0.4*r.Float64()
	case 1:
		p.wash = true
	case 2:
		p.watermark = true
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
	font := fs.ocrb[p.font]
	for row := range p.rows {
		text := randomLine(r, p.n)
		base := top + float64(row)*p.spacing + 720
		for i := range p.n {
			// The glyph is scaled about its cell's centre and placed
			// with the printer's error; the geometry stays the cells'.
			dx := r.NormFloat64() * p.jitter * ocrbAdvance
			dy := r.NormFloat64() * p.jitter * 0.7 * 1000
			x := left + float64(i)*ocrbAdvance + (1-p.glyphW)*ocrbAdvance/2 + dx
			drawGlyphXY(ras, &h, font[rune(text[i])], x, base+dy, p.glyphW, 1)
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
	// Print close beside the zone: a word running up or down the card's
	// edge, or the end of a line of other print.
	if r.IntN(4) == 0 {
		k := r.IntN(len(fs.clutter))
		size := 0.7 + 0.8*r.Float64()
		gap := ocrbAdvance * (0.25 + r.Float64())
		x := left - gap - 400*size
		if r.IntN(2) == 0 {
			x = left + float64(p.n)*ocrbAdvance + gap
		}
		th := math.Pi / 2
		if r.IntN(3) == 0 {
			th = 0
		} else if r.IntN(2) == 0 {
			th = -th
		}
		y := top + r.Float64()*float64(p.rows)*p.spacing
		for range 3 + r.IntN(6) {
			c := rune(fs.clutterAlphabets[r.IntN(26)])
			drawGlyphRot(ras, &h, fs.clutter[k][c], x, y, size, th)
			adv := fs.clutterAdvance[k] * size * 1.2
			x, y = x+adv*math.Cos(th), y+adv*math.Sin(th)
		}
	}
	mask := image.NewAlpha(image.Rect(0, 0, W, H))
	ras.Draw(mask, mask.Bounds(), image.Opaque, image.Point{})
	cov := make([]float64, W*H)
	for i, a := range mask.Pix {
		cov[i] = float64(a) / 255
	}
	if p.stroke != 0 {
		spread(cov, W, H, p.stroke*p.pitch)
	}

	img := make([]float64, W*H)
	background(r, img, W, H, p)
	if p.guilloche {
		guilloche(r, img, W, H, p)
	}
	for i, c := range cov {
		c = math.Pow(c, p.weight)
		img[i] = img[i]*(1-c) + p.ink*c
	}
	if p.overlay {
		overlay(r, fs, img, W, H, p)
	}
	if p.watermark {
		watermark(r, fs, img, W, H, p)
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
	if p.wash {
		wash(r, img, glare, W, H)
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
	noise := p.noise
	if p.dim > 0 {
		darken(img, p.dim, p.gamma)
		noise += 1 + 3*r.Float64()
	}
	for i := range img {
		img[i] += r.NormFloat64() * noise
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
	// What glare left of the contrast in each cell: the least over its
	// centre and eight points around it (a third of the pitch along, a
	// third of the height across). A glyph washed out in part is a cell
	// that cannot be read, not the symbol: an O whose top is gone is a U
	// to the eye, and the reader must be unsure of it.
	for _, l := range pg.geom {
		var gl []float64
		for i := range l.N {
			fi := float64(i)
			x, y := l.X[0]+fi*(l.X[1]+fi*l.X[2]), l.Y[0]+fi*(l.Y[1]+fi*l.Y[2])
			tx, ty := l.X[1]+2*fi*l.X[2], l.Y[1]+2*fi*l.Y[2]
			h := (l.H[0] + fi*l.H[1]) / math.Max(math.Hypot(tx, ty), 1e-9)
			left := 1.0
			if !phoneDamage {
				xi, yi := min(max(int(x), 0), W-1), min(max(int(y), 0), H-1)
				gl = append(gl, 1-glare[yi*W+xi])
				continue
			}
			for _, a := range [3]float64{-1.0 / 3, 0, 1.0 / 3} {
				for _, b := range [3]float64{-1.0 / 3, 0, 1.0 / 3} {
					px, py := x+a*tx-b*h*ty, y+a*ty+b*h*tx
					xi, yi := min(max(int(px), 0), W-1), min(max(int(py), 0), H-1)
					left = min(left, 1-glare[yi*W+xi])
				}
			}
			gl = append(gl, left)
		}
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
	drawGlyphXY(ras, h, g, x, base, size, size)
}

// drawGlyphRot is drawGlyph turned by th (radians, clockwise in the page)
// about its origin.
func drawGlyphRot(ras *vector.Rasterizer, h *homography, g glyph, x, base, size, th float64) {
	c, s := math.Cos(th), math.Sin(th)
	drawSegments(ras, g, func(px, py float64) (float32, float32) {
		px, py = px*size, py*size
		ix, iy := h.apply(x+px*c-py*s, base+px*s+py*c)
		return float32(ix), float32(iy)
	})
}

// drawGlyphXY is drawGlyph with a width and a height scale of their own.
func drawGlyphXY(ras *vector.Rasterizer, h *homography, g glyph, x, base, sx, sy float64) {
	drawSegments(ras, g, func(px, py float64) (float32, float32) {
		ix, iy := h.apply(x+px*sx, base+py*sy)
		return float32(ix), float32(iy)
	})
}

// drawSegments adds an outline to the rasterizer, its points (font units)
// mapped to pixels by pt.
func drawSegments(ras *vector.Rasterizer, g glyph, pt func(x, y float64) (float32, float32)) {
	at := func(a sfnt.Segment, k int) (float32, float32) {
		return pt(float64(a.Args[k].X)/64, float64(a.Args[k].Y)/64)
	}
	for _, s := range g {
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			ras.ClosePath()
			ras.MoveTo(at(s, 0))
		case sfnt.SegmentOpLineTo:
			ras.LineTo(at(s, 0))
		case sfnt.SegmentOpQuadTo:
			bx, by := at(s, 0)
			cx, cy := at(s, 1)
			ras.QuadTo(bx, by, cx, cy)
		case sfnt.SegmentOpCubeTo:
			bx, by := at(s, 0)
			cx, cy := at(s, 1)
			dx, dy := at(s, 2)
			ras.CubeTo(bx, by, cx, cy, dx, dy)
		}
	}
	ras.ClosePath()
}
