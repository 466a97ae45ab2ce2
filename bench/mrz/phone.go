package main

import (
	"bytes"
	"hash/fnv"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"log"
	"math"
	"math/rand/v2"
	"os"
)

// The phone classes: each shared doc_* image degraded the way a hand-held
// phone photo degrades it, generated here from a seed fixed by the image's
// name and the class (never committed images). Each case is one class of
// the table, so that a gain on one cannot hide a loss on another.
var phoneCases = []struct {
	name string
	make func(src image.Image, rng *rand.Rand) image.Image
}{
	// The document small in a large frame (35–50% of its width), turned a
	// little, on a textured table.
	{"phone small", func(src image.Image, rng *rand.Rand) image.Image {
		return place(src, rng, 0.35+0.15*rng.Float64(), 0.05, 8)
	}},
	// Held at an angle: one edge of the page a quarter shorter than the
	// other.
	{"phone perspective", func(src image.Image, rng *rand.Rand) image.Image {
		return place(src, rng, 0.75, 0.22, 4)
	}},
	// Out of focus.
	{"phone blur", func(src image.Image, rng *rand.Rand) image.Image {
		m := place(src, rng, 0.7, 0.05, 3)
		return blur(m, 1.0+0.6*rng.Float64())
	}},
	// A dim room: a fifth of the light, sensor noise, gamma.
	{"phone low light", func(src image.Image, rng *rand.Rand) image.Image {
		m := place(src, rng, 0.7, 0.05, 3)
		dim(m, rng, 0.18+0.1*rng.Float64(), 5)
		return m
	}},
	// A lamp reflected near the zone.
	{"phone glare", func(src image.Image, rng *rand.Rand) image.Image {
		m := place(src, rng, 0.7, 0.05, 3)
		glare(m, rng)
		return m
	}},
	// Marks over the zone: a red box drawn around the page's lower
	// quarter (where most zones are), a yellow highlighter stroke across
	// it, and a grey watermark band just above it, as on stock photos.
	{"phone overlay", func(src image.Image, rng *rand.Rand) image.Image {
		return place(overlay(src, rng), rng, 0.7, 0.05, 3)
	}},
	// A stock photo's watermark near or over the zone: a translucent
	// band with the site's name, a diagonal repeated word or a tiled
	// logo, grey or white (see watermark).
	{"phone watermark", func(src image.Image, rng *rand.Rand) image.Image {
		return place(watermark(src, rng), rng, 0.7, 0.05, 3)
	}},
	// A thumb over a top corner of the page.
	{"phone hand", func(src image.Image, rng *rand.Rand) image.Image {
		m := place(src, rng, 0.7, 0.05, 3)
		hand(m, rng)
		return m
	}},
}

func seeded(name, class string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name + "\x00" + class))
	s := h.Sum64()
	return rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15))
}

// place draws src into a frame where its width is frac of the frame's,
// with its corners moved inwards by up to persp of its size on one side
// (perspective) and the whole turned by up to tilt degrees; the frame is
// a noisy, shaded table. The result is JPEG-compressed as phones do.
func place(src image.Image, rng *rand.Rand, frac, persp, tilt float64) *image.RGBA {
	b := src.Bounds()
	sw, sh := float64(b.Dx()), float64(b.Dy())
	fw := int(sw / frac)
	fh := int(float64(fw) * 0.75)
	if fh < int(sh*1.3) {
		fh = int(sh * 1.3)
	}
	out := image.NewRGBA(image.Rect(0, 0, fw, fh))
	base := 90 + rng.IntN(80)
	for y := range fh {
		for x := range fw {
			v := base + int(30*float64(x)/float64(fw)) + rng.IntN(21) - 10
			v = min(max(v, 0), 255)
			out.Pix[out.PixOffset(x, y)+0] = uint8(v)
			out.Pix[out.PixOffset(x, y)+1] = uint8(v * 9 / 10)
			out.Pix[out.PixOffset(x, y)+2] = uint8(v * 8 / 10)
			out.Pix[out.PixOffset(x, y)+3] = 255
		}
	}
	// Corners of the page in the frame.
	cx := float64(fw)/2 + (rng.Float64()-0.5)*(float64(fw)-sw)*0.6
	cy := float64(fh)/2 + (rng.Float64()-0.5)*(float64(fh)-sh)*0.6
	a := (rng.Float64()*2 - 1) * tilt * math.Pi / 180
	q := [4][2]float64{{-sw / 2, -sh / 2}, {sw / 2, -sh / 2}, {sw / 2, sh / 2}, {-sw / 2, sh / 2}}
	// Perspective: one side (top, right, bottom or left) shrinks.
	side := rng.IntN(4)
	k := persp * (0.6 + 0.4*rng.Float64())
	i, j := side, (side+1)%4
	ex, ey := q[j][0]-q[i][0], q[j][1]-q[i][1]
	q[i][0], q[i][1] = q[i][0]+ex*k/2, q[i][1]+ey*k/2
	q[j][0], q[j][1] = q[j][0]-ex*k/2, q[j][1]-ey*k/2
	var dst [4][2]float64
	for i, p := range q {
		dst[i] = [2]float64{cx + p[0]*math.Cos(a) - p[1]*math.Sin(a), cy + p[0]*math.Sin(a) + p[1]*math.Cos(a)}
	}
	srcq := [4][2]float64{{0, 0}, {sw, 0}, {sw, sh}, {0, sh}}
	hm := homography(dst, srcq) // frame → page
	minX, minY, maxX, maxY := float64(fw), float64(fh), 0.0, 0.0
	for _, p := range dst {
		minX, minY, maxX, maxY = min(minX, p[0]), min(minY, p[1]), max(maxX, p[0]), max(maxY, p[1])
	}
	for y := max(0, int(minY)); y < min(fh, int(maxY)+1); y++ {
		for x := max(0, int(minX)); x < min(fw, int(maxX)+1); x++ {
			px, py := apply(hm, float64(x)+0.5, float64(y)+0.5)
			if px < 0 || py < 0 || px >= sw || py >= sh {
				continue
			}
			r, g, bl := bilinear(src, b, px-0.5, py-0.5)
			i := out.PixOffset(x, y)
			out.Pix[i], out.Pix[i+1], out.Pix[i+2] = r, g, bl
		}
	}
	return out
}

func bilinear(src image.Image, b image.Rectangle, x, y float64) (uint8, uint8, uint8) {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	fx, fy := x-float64(x0), y-float64(y0)
	var acc [3]float64
	for _, t := range [4]struct {
		dx, dy int
		w      float64
	}{{0, 0, (1 - fx) * (1 - fy)}, {1, 0, fx * (1 - fy)}, {0, 1, (1 - fx) * fy}, {1, 1, fx * fy}} {
		xx := min(max(x0+t.dx, 0), b.Dx()-1)
		yy := min(max(y0+t.dy, 0), b.Dy()-1)
		r, g, bl, _ := src.At(b.Min.X+xx, b.Min.Y+yy).RGBA()
		acc[0] += t.w * float64(r>>8)
		acc[1] += t.w * float64(g>>8)
		acc[2] += t.w * float64(bl>>8)
	}
	return uint8(acc[0] + 0.5), uint8(acc[1] + 0.5), uint8(acc[2] + 0.5)
}

// homography returns the 3×3 matrix (h33 = 1) taking the points from to
// the points to.
func homography(from, to [4][2]float64) [9]float64 {
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
		for r := range 8 {
			if r == c {
				continue
			}
			f := m[r][c] / m[c][c]
			for k := c; k < 9; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	var h [9]float64
	for i := range 8 {
		h[i] = m[i][8] / m[i][i]
	}
	h[8] = 1
	return h
}

func apply(h [9]float64, x, y float64) (float64, float64) {
	w := h[6]*x + h[7]*y + h[8]
	return (h[0]*x + h[1]*y + h[2]) / w, (h[3]*x + h[4]*y + h[5]) / w
}

// blur is a Gaussian blur of standard deviation sigma (separable).
func blur(m *image.RGBA, sigma float64) *image.RGBA {
	r := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*r+1)
	var s float64
	for i := range k {
		d := float64(i - r)
		k[i] = math.Exp(-d * d / (2 * sigma * sigma))
		s += k[i]
	}
	for i := range k {
		k[i] /= s
	}
	w, h := m.Rect.Dx(), m.Rect.Dy()
	tmp := image.NewRGBA(m.Rect)
	pass := func(dst, src *image.RGBA, dx, dy int) {
		for y := range h {
			for x := range w {
				var acc [3]float64
				for i, kv := range k {
					xx := min(max(x+(i-r)*dx, 0), w-1)
					yy := min(max(y+(i-r)*dy, 0), h-1)
					o := src.PixOffset(xx, yy)
					acc[0] += kv * float64(src.Pix[o])
					acc[1] += kv * float64(src.Pix[o+1])
					acc[2] += kv * float64(src.Pix[o+2])
				}
				o := dst.PixOffset(x, y)
				dst.Pix[o], dst.Pix[o+1], dst.Pix[o+2], dst.Pix[o+3] = uint8(acc[0]+0.5), uint8(acc[1]+0.5), uint8(acc[2]+0.5), 255
			}
		}
	}
	pass(tmp, m, 1, 0)
	pass(m, tmp, 0, 1)
	return m
}

// dim scales the light by f, adds Gaussian noise of noise levels and
// applies a display gamma.
func dim(m *image.RGBA, rng *rand.Rand, f, noise float64) {
	for i := 0; i < len(m.Pix); i += 4 {
		for c := range 3 {
			v := 255 * math.Pow(float64(m.Pix[i+c])/255, 1.2) * f
			v += rng.NormFloat64() * noise
			m.Pix[i+c] = uint8(min(max(v, 0), 255))
		}
	}
}

// glare adds a bright elliptical reflection in the lower half of the
// frame (where an MRZ usually is), saturating at its heart.
func glare(m *image.RGBA, rng *rand.Rand) {
	w, h := float64(m.Rect.Dx()), float64(m.Rect.Dy())
	cx, cy := w*(0.25+0.5*rng.Float64()), h*(0.5+0.25*rng.Float64())
	rx, ry := w*0.08, h*0.06
	for y := range m.Rect.Dy() {
		for x := range m.Rect.Dx() {
			dx, dy := (float64(x)-cx)/rx, (float64(y)-cy)/ry
			a := math.Exp(-(dx*dx + dy*dy) / 2)
			if a < 0.01 {
				continue
			}
			o := m.PixOffset(x, y)
			for c := range 3 {
				v := float64(m.Pix[o+c]) + a*255*0.9
				m.Pix[o+c] = uint8(min(v, 255))
			}
		}
	}
}

// hand covers a top corner of the frame with a skin-coloured ellipse that
// reaches over the page's corner.
func hand(m *image.RGBA, rng *rand.Rand) {
	w, h := float64(m.Rect.Dx()), float64(m.Rect.Dy())
	cx := w * 0.12
	if rng.IntN(2) == 0 {
		cx = w * 0.88
	}
	cy := h * 0.15
	rx, ry := w*0.16, h*0.22
	skin := color.RGBA{224, 172, 140, 255}
	for y := range m.Rect.Dy() {
		for x := range m.Rect.Dx() {
			dx, dy := (float64(x)-cx)/rx, (float64(y)-cy)/ry
			if dx*dx+dy*dy <= 1 {
				s := 0.85 + 0.15*(1-dx*dx-dy*dy)
				m.SetRGBA(x, y, color.RGBA{uint8(float64(skin.R) * s), uint8(float64(skin.G) * s), uint8(float64(skin.B) * s), 255})
			}
		}
	}
}

// phoneJPEG is what a phone writes: JPEG at quality 80.
func phoneJPEG(m image.Image) (image.Image, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 80}); err != nil {
		return nil, err
	}
	return jpeg.Decode(&buf)
}

// writePNG writes m losslessly: the dumped image is the one read (the
// phone's JPEG already applied), bit for bit.
func writePNG(path string, m image.Image) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// overlay draws on a copy of src: a red box around its lower quarter, a
// translucent yellow band across it and a translucent grey band above it.
func overlay(src image.Image, rng *rand.Rand) *image.RGBA {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, src.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	blend := func(x, y int, c color.RGBA, a float64) {
		o := m.PixOffset(x, y)
		m.Pix[o] = uint8(float64(m.Pix[o])*(1-a) + float64(c.R)*a)
		m.Pix[o+1] = uint8(float64(m.Pix[o+1])*(1-a) + float64(c.G)*a)
		m.Pix[o+2] = uint8(float64(m.Pix[o+2])*(1-a) + float64(c.B)*a)
	}
	y0 := h * 3 / 4
	t := max(2, h/150)
	red := color.RGBA{220, 30, 30, 255}
	for y := y0 - 2*t; y < h-t; y++ {
		for x := t; x < w-t; x++ {
			if y < y0-t || y >= h-2*t || x < 2*t || x >= w-2*t {
				blend(x, y, red, 1)
			}
		}
	}
	band := y0 + int(float64(h-y0)*(0.3+0.4*rng.Float64()))
	for y := max(0, band-h/40); y < min(h, band+h/40); y++ {
		for x := range w {
			blend(x, y, color.RGBA{255, 235, 0, 255}, 0.45)
		}
	}
	for y := max(0, y0-h/10); y < y0-2*t; y++ {
		for x := range w {
			blend(x, y, color.RGBA{128, 128, 128, 255}, 0.35)
		}
	}
	return m
}
