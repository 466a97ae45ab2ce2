package pdf417

import (
	"bytes"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
)

// This file damages rendered symbols the way phone photos do, for the
// decode-rate tests: perspective, rotation, blur, low light, glare, noise
// and JPEG.

// homography maps (x, y) to (X, Y); h[8] is 1.
type homography [9]float64

func (h homography) apply(x, y float64) (float64, float64) {
	w := h[6]*x + h[7]*y + h[8]
	return (h[0]*x + h[1]*y + h[2]) / w, (h[3]*x + h[4]*y + h[5]) / w
}

// quadToQuad solves the homography taking the four points src to dst.
func quadToQuad(src, dst [4][2]float64) homography {
	var a [8][9]float64
	for i := range 4 {
		x, y, X, Y := src[i][0], src[i][1], dst[i][0], dst[i][1]
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -x * X, -y * X, X}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -x * Y, -y * Y, Y}
	}
	for c := range 8 {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		a[c], a[p] = a[p], a[c]
		for r := range 8 {
			if r == c || a[c][c] == 0 {
				continue
			}
			f := a[r][c] / a[c][c]
			for k := c; k < 9; k++ {
				a[r][k] -= f * a[c][k]
			}
		}
	}
	var h homography
	for i := range 8 {
		h[i] = a[i][8] / a[i][i]
	}
	h[8] = 1
	return h
}

// warp draws src into a w×h white canvas so its corners land on quad
// (top-left, top-right, bottom-right, bottom-left), sampling bilinearly.
func warp(src *image.Gray, w, h int, quad [4][2]float64) *image.Gray {
	sw, sh := float64(src.Rect.Dx()), float64(src.Rect.Dy())
	inv := quadToQuad(quad, [4][2]float64{{0, 0}, {sw, 0}, {sw, sh}, {0, sh}})
	out := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			sx, sy := inv.apply(float64(x)+0.5, float64(y)+0.5)
			sx, sy = sx-0.5, sy-0.5
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := sx-float64(x0), sy-float64(y0)
			px := func(x, y int) float64 {
				if x < 0 || y < 0 || x >= src.Rect.Dx() || y >= src.Rect.Dy() {
					return 255
				}
				return float64(src.Pix[y*src.Stride+x])
			}
			v := (px(x0, y0)*(1-fx)+px(x0+1, y0)*fx)*(1-fy) + (px(x0, y0+1)*(1-fx)+px(x0+1, y0+1)*fx)*fy
			out.Pix[y*out.Stride+x] = uint8(v + 0.5)
		}
	}
	return out
}

// boxBlur blurs with a (2r+1)² box, twice (close to a Gaussian).
func boxBlur(g *image.Gray, r int) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	cur := g
	for range 2 {
		tmp := image.NewGray(cur.Rect)
		for y := range h {
			for x := range w {
				s, n := 0, 0
				for dx := -r; dx <= r; dx++ {
					if xx := x + dx; xx >= 0 && xx < w {
						s += int(cur.Pix[y*cur.Stride+xx])
						n++
					}
				}
				tmp.Pix[y*tmp.Stride+x] = uint8(s / n)
			}
		}
		out := image.NewGray(cur.Rect)
		for y := range h {
			for x := range w {
				s, n := 0, 0
				for dy := -r; dy <= r; dy++ {
					if yy := y + dy; yy >= 0 && yy < h {
						s += int(tmp.Pix[yy*tmp.Stride+x])
						n++
					}
				}
				out.Pix[y*out.Stride+x] = uint8(s / n)
			}
		}
		cur = out
	}
	return cur
}

// levels maps black to lo and white to hi and adds Gaussian noise.
func levels(g *image.Gray, lo, hi, noise float64, rng *rand.Rand) {
	for i, v := range g.Pix {
		x := lo + (hi-lo)*float64(v)/255 + rng.NormFloat64()*noise
		g.Pix[i] = uint8(math.Max(0, math.Min(255, x)))
	}
}

// glare brightens an elliptical spot at (cx, cy), as a flash or a lamp
// reflected on a laminated card does.
func glare(g *image.Gray, cx, cy, rx, ry, strength float64) {
	for y := range g.Rect.Dy() {
		for x := range g.Rect.Dx() {
			d := math.Hypot((float64(x)-cx)/rx, (float64(y)-cy)/ry)
			if d >= 1 {
				continue
			}
			i := y*g.Stride + x
			add := strength * (1 - d*d)
			g.Pix[i] = uint8(math.Min(255, float64(g.Pix[i])+add))
		}
	}
}

func jpegRoundTrip(g *image.Gray, q int) image.Image {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, g, &jpeg.Options{Quality: q}); err != nil {
		panic(err)
	}
	img, err := jpeg.Decode(&buf)
	if err != nil {
		panic(err)
	}
	return img
}
