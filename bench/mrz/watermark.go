package main

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The watermarks stock-photo sites lay over their sample documents, drawn
// near or over the zone (the page's lower third, where most zones are):
// one of
//   - a translucent grey or white band across the page with the site's
//     name repeated in it, in white on grey or grey on white;
//   - a word ("SAMPLE", "SPECIMEN", a brand) repeated in diagonal rows
//     over the whole page, translucent grey or white;
//   - a logo (a ring around a square) tiled over the page, translucent.
//
// Everything is generated from the image's seed; no image is stored.
func watermark(src image.Image, rng *rand.Rand) *image.RGBA {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(m, m.Rect, src, b.Min, draw.Src)
	tone := func() color.RGBA {
		if rng.IntN(2) == 0 {
			return color.RGBA{255, 255, 255, 255}
		}
		v := uint8(90 + rng.IntN(90))
		return color.RGBA{v, v, v, 255}
	}
	fh := float64(h)
	switch rng.IntN(3) {
	case 0: // band with the site's name
		c := tone()
		a := 0.3 + 0.3*rng.Float64()
		bh := fh * (0.06 + 0.08*rng.Float64())
		cy := fh * (0.7 + 0.25*rng.Float64())
		y0, y1 := int(cy-bh/2), int(cy+bh/2)
		cover := func(x, y int) float64 {
			if y >= y0 && y < y1 {
				return 1
			}
			return 0
		}
		blendMask(m, c, a, cover)
		text := c
		if c.R == 255 {
			v := uint8(70 + rng.IntN(60))
			text = color.RGBA{v, v, v, 255}
		} else {
			text = color.RGBA{255, 255, 255, 255}
		}
		mask := textMask([]string{"photostock", "imagebank.example", "stock-id", "docsamples"}[rng.IntN(4)] + "  ")
		scale := bh * (0.45 + 0.3*rng.Float64()) / 13
		tile := tiled(mask, scale, 0, float64(w)*rng.Float64(), cy-6.5*scale, 0)
		blendMask(m, text, 0.35+0.3*rng.Float64(), func(x, y int) float64 {
			if y < y0 || y >= y1 {
				return 0
			}
			return tile(x, y)
		})
	case 1: // diagonal repeated word
		c := tone()
		word := []string{"SAMPLE ", "SPECIMEN ", "PHOTOBANK ", "SAMPLE ONLY "}[rng.IntN(4)]
		scale := fh * (0.05 + 0.07*rng.Float64()) / 13
		ang := (20 + 25*rng.Float64()) * math.Pi / 180
		if rng.IntN(2) == 0 {
			ang = -ang
		}
		tile := tiled(textMask(word), scale, ang, fh*rng.Float64(), fh*rng.Float64(), 13*scale*(1.5+1.5*rng.Float64()))
		blendMask(m, c, 0.25+0.25*rng.Float64(), tile)
	default: // tiled logo
		c := tone()
		size := fh * (0.08 + 0.1*rng.Float64())
		tile := tiled(logoMask(), size/64, (rng.Float64()-0.5)*0.6, fh*rng.Float64(), fh*rng.Float64(), size*(0.3+0.7*rng.Float64()))
		blendMask(m, c, 0.2+0.25*rng.Float64(), tile)
	}
	return m
}

// blendMask mixes c into m with weight a times cover(x, y) (0…1).
func blendMask(m *image.RGBA, c color.RGBA, a float64, cover func(x, y int) float64) {
	for y := range m.Rect.Dy() {
		for x := range m.Rect.Dx() {
			k := a * cover(x, y)
			if k <= 0 {
				continue
			}
			o := m.PixOffset(x, y)
			m.Pix[o] = uint8(float64(m.Pix[o])*(1-k) + float64(c.R)*k + 0.5)
			m.Pix[o+1] = uint8(float64(m.Pix[o+1])*(1-k) + float64(c.G)*k + 0.5)
			m.Pix[o+2] = uint8(float64(m.Pix[o+2])*(1-k) + float64(c.B)*k + 0.5)
		}
	}
}

// textMask is s written in basicfont's 7×13 face: coverage 0…1.
func textMask(s string) *image.Alpha {
	m := image.NewAlpha(image.Rect(0, 0, 7*len(s), 13))
	d := font.Drawer{Dst: m, Src: image.Opaque, Face: basicfont.Face7x13, Dot: fixed.P(0, 11)}
	d.DrawString(s)
	return m
}

// logoMask is a 64×64 logo: a ring around a square outline.
func logoMask() *image.Alpha {
	m := image.NewAlpha(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			dx, dy := float64(x)-31.5, float64(y)-31.5
			r := math.Hypot(dx, dy)
			ring := r > 24 && r < 30
			sq := max(math.Abs(dx), math.Abs(dy))
			square := sq > 10 && sq < 15
			if ring || square {
				m.SetAlpha(x, y, color.Alpha{255})
			}
		}
	}
	return m
}

// tiled repeats mask (scaled by scale, turned by ang radians, its origin
// at (ox, oy)) along rows one mask wide and gap + mask height apart, each
// row shifted by half a mask: the coverage at each pixel (bilinear).
func tiled(mask *image.Alpha, scale, ang, ox, oy, gap float64) func(x, y int) float64 {
	mw, mh := float64(mask.Rect.Dx()), float64(mask.Rect.Dy())
	rowH := mh + gap/scale
	cs, sn := math.Cos(ang), math.Sin(ang)
	at := func(u, v int) float64 {
		if u < 0 || v < 0 || u >= mask.Rect.Dx() || v >= mask.Rect.Dy() {
			return 0
		}
		return float64(mask.Pix[v*mask.Stride+u]) / 255
	}
	return func(x, y int) float64 {
		px, py := float64(x)+0.5-ox, float64(y)+0.5-oy
		u := (px*cs + py*sn) / scale
		v := (-px*sn + py*cs) / scale
		row := math.Floor(v / rowH)
		v -= row * rowH
		u += row * mw / 2
		u -= math.Floor(u/mw) * mw
		u, v = u-0.5, v-0.5
		u0, v0 := math.Floor(u), math.Floor(v)
		fu, fv := u-u0, v-v0
		iu, iv := int(u0), int(v0)
		wrap := func(i int) int { return ((i % int(mw)) + int(mw)) % int(mw) }
		a := at(wrap(iu), iv)*(1-fu) + at(wrap(iu+1), iv)*fu
		c := at(wrap(iu), iv+1)*(1-fu) + at(wrap(iu+1), iv+1)*fu
		return a*(1-fv) + c*fv
	}
}
