package main

import (
	"image"
	"math"
	"math/rand/v2"

	"golang.org/x/image/vector"
)

// background fills img with paper: a base level, an illumination
// gradient, smooth blotches and the fine periodic lines of security
// printing.
func background(r *rand.Rand, img []float64, W, H int, p params) {
	gx, gy := (r.Float64()*2-1)*0.25/float64(W), (r.Float64()*2-1)*0.25/float64(H)
	type wave struct{ fx, fy, ph, amp float64 }
	var waves []wave
	for range r.IntN(4) {
		period := p.pitch * (0.3 + 3*r.Float64())
		th := r.Float64() * math.Pi
		waves = append(waves, wave{math.Cos(th) * 2 * math.Pi / period, math.Sin(th) * 2 * math.Pi / period, r.Float64() * 2 * math.Pi, r.Float64() * 0.25 * (p.paper - p.ink)})
	}
	// Blotches: a coarse random grid, bilinearly enlarged.
	cell := p.pitch * (1 + 4*r.Float64())
	gw, gh := int(float64(W)/cell)+2, int(float64(H)/cell)+2
	grid := make([]float64, gw*gh)
	bl := r.Float64() * 0.2 * (p.paper - p.ink)
	for i := range grid {
		grid[i] = (r.Float64()*2 - 1) * bl
	}
	for y := range H {
		for x := range W {
			v := p.paper * (1 + gx*float64(x-W/2) + gy*float64(y-H/2))
			for _, w := range waves {
				v += w.amp * math.Sin(w.fx*float64(x)+w.fy*float64(y)+w.ph)
			}
			fx, fy := float64(x)/cell, float64(y)/cell
			ix, iy := int(fx), int(fy)
			ax, ay := fx-float64(ix), fy-float64(iy)
			g0 := grid[iy*gw+ix]*(1-ax) + grid[iy*gw+ix+1]*ax
			g1 := grid[(iy+1)*gw+ix]*(1-ax) + grid[(iy+1)*gw+ix+1]*ax
			v += g0*(1-ay) + g1*ay
			img[y*W+x] = min(v, 255)
		}
	}
}

// gaussBlur blurs img in place with a Gaussian of standard deviation s.
func gaussBlur(img []float64, W, H int, s float64) {
	rad := int(math.Ceil(3 * s))
	k := make([]float64, 2*rad+1)
	var sum float64
	for i := range k {
		d := float64(i - rad)
		k[i] = math.Exp(-d * d / (2 * s * s))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	convolve(img, W, H, k, 1, 0)
	convolve(img, W, H, k, 0, 1)
}

// convolve applies the 1-D kernel k along direction (dx, dy) ∈ {(1,0),
// (0,1)}, clamping at the edges.
func convolve(img []float64, W, H int, k []float64, dx, dy int) {
	rad := len(k) / 2
	n := W
	if dy == 1 {
		n = H
	}
	line := make([]float64, n)
	out := make([]float64, n)
	for o := range W*dy + H*dx {
		for i := range n {
			line[i] = img[idx(o, i, W, dx)]
		}
		for i := range n {
			var s float64
			for j, w := range k {
				s += w * line[min(max(i+j-rad, 0), n-1)]
			}
			out[i] = s
		}
		for i := range n {
			img[idx(o, i, W, dx)] = out[i]
		}
	}
}

func idx(o, i, W, dx int) int {
	if dx == 1 {
		return o*W + i
	}
	return i*W + o
}

// motionBlur averages img along a segment of the given length and angle.
func motionBlur(img []float64, W, H int, length, angle float64) {
	n := int(math.Ceil(length)) + 1
	src := append([]float64(nil), img...)
	cx, cy := math.Cos(angle), math.Sin(angle)
	for y := range H {
		for x := range W {
			var s float64
			for k := range n {
				t := (float64(k)/float64(n-1) - 0.5) * length
				xx := min(max(int(float64(x)+t*cx+0.5), 0), W-1)
				yy := min(max(int(float64(y)+t*cy+0.5), 0), H-1)
				s += src[yy*W+xx]
			}
			img[y*W+x] = s / float64(n)
		}
	}
}

// lowRes shrinks img by f (area average) and enlarges it back (bilinear),
// as a low-resolution camera and a client-side upscale would.
func lowRes(img []float64, W, H int, f float64) []float64 {
	w, h := max(1, int(float64(W)/f)), max(1, int(float64(H)/f))
	small := make([]float64, w*h)
	cnt := make([]float64, w*h)
	for y := range H {
		sy := min(y*h/H, h-1)
		for x := range W {
			sx := min(x*w/W, w-1)
			small[sy*w+sx] += img[y*W+x]
			cnt[sy*w+sx]++
		}
	}
	for i := range small {
		small[i] /= max(cnt[i], 1)
	}
	out := make([]float64, W*H)
	for y := range H {
		fy := (float64(y)+0.5)*float64(h)/float64(H) - 0.5
		y0 := min(max(int(math.Floor(fy)), 0), h-1)
		y1 := min(y0+1, h-1)
		ay := min(max(fy-float64(y0), 0), 1)
		for x := range W {
			fx := (float64(x)+0.5)*float64(w)/float64(W) - 0.5
			x0 := min(max(int(math.Floor(fx)), 0), w-1)
			x1 := min(x0+1, w-1)
			ax := min(max(fx-float64(x0), 0), 1)
			a := small[y0*w+x0]*(1-ax) + small[y0*w+x1]*ax
			b := small[y1*w+x0]*(1-ax) + small[y1*w+x1]*ax
			out[y*W+x] = a*(1-ay) + b*ay
		}
	}
	return out
}

// spread moves the edges of the ink coverage cov outwards by d pixels
// (inwards when negative), as ink spreading into the paper or a lighter
// print would: blur, then cut where a straight edge's blur falls to the
// level d away from it, keeping a one-pixel soft edge.
func spread(cov []float64, W, H int, d float64) {
	s := max(0.6, 1.5*math.Abs(d))
	gaussBlur(cov, W, H, s)
	z := d / s
	t := 0.5 * math.Erfc(z/math.Sqrt2)                   // Φ(−z): the blurred level at the new edge
	slope := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) / s // its change per pixel there
	for i, b := range cov {
		cov[i] = min(max(0.5+(b-t)/slope, 0), 1)
	}
}

// guilloche darkens img with one or two families of fine wavy lines, as
// the security printing behind many zones.
func guilloche(r *rand.Rand, img []float64, W, H int, p params) {
	for range 1 + r.IntN(2) {
		th := r.Float64() * math.Pi
		ct, st := math.Cos(th), math.Sin(th)
		spacing := p.pitch * (0.25 + 0.9*r.Float64())
		amp := p.pitch * (0.2 + 2*r.Float64())
		period := p.pitch * (2 + 10*r.Float64())
		ph := r.Float64() * 2 * math.Pi
		width := 0.3 + 0.6*r.Float64()
		dark := (0.08 + 0.35*r.Float64()) * (p.paper - p.ink)
		for y := range H {
			for x := range W {
				u := float64(x)*ct + float64(y)*st
				v := -float64(x)*st + float64(y)*ct
				dv := v - amp*math.Sin(2*math.Pi*u/period+ph)
				m := math.Mod(dv, spacing)
				if m < 0 {
					m += spacing
				}
				dd := min(m, spacing-m) / width
				img[y*W+x] -= dark * math.Exp(-dd*dd)
			}
		}
	}
}

// overlay darkens img through translucent print over the zone: large
// rotated letters (a SPECIMEN stamp), boxes drawn around fields, and
// straight bands, multiplied in as ink over ink.
func overlay(r *rand.Rand, fs *fonts, img []float64, W, H int, p params) {
	ras := vector.NewRasterizer(W, H)
	quad := func(pts [4][2]float64) {
		ras.MoveTo(float32(pts[0][0]), float32(pts[0][1]))
		for _, q := range pts[1:] {
			ras.LineTo(float32(q[0]), float32(q[1]))
		}
		ras.ClosePath()
	}
	band := func(x0, y0, x1, y1, w float64) {
		dx, dy := x1-x0, y1-y0
		n := math.Hypot(dx, dy)
		if n == 0 {
			return
		}
		nx, ny := -dy/n*w/2, dx/n*w/2
		quad([4][2]float64{{x0 + nx, y0 + ny}, {x1 + nx, y1 + ny}, {x1 - nx, y1 - ny}, {x0 - nx, y0 - ny}})
	}
	h := p.pitch * p.aspect // about a character's height, in pixels
	for range 1 + r.IntN(3) {
		switch r.IntN(3) {
		case 0: // large letters along a slanted line
			k := r.IntN(len(fs.clutter))
			size := h * (1.5 + 3*r.Float64()) / 1000
			th := (r.Float64()*2 - 1) * math.Pi / 4
			ct, st := math.Cos(th), math.Sin(th)
			x, y := r.Float64()*float64(W)*0.5, float64(H)*(0.2+0.8*r.Float64())
			for range 4 + r.IntN(6) {
				c := rune(fs.clutterAlphabets[r.IntN(26)])
				drawSegments(ras, fs.clutter[k][c], func(gx, gy float64) (float32, float32) {
					gx, gy = gx*size, gy*size
					return float32(x + gx*ct - gy*st), float32(y + gx*st + gy*ct)
				})
				adv := fs.clutterAdvance[k] * size * 1.1
				x, y = x+adv*ct, y+adv*st
			}
		case 1: // a box
			x0, y0 := r.Float64()*float64(W), r.Float64()*float64(H)
			bw, bh := h*(1+6*r.Float64()), h*(1+3*r.Float64())
			w := max(0.8, h*(0.06+0.15*r.Float64()))
			band(x0, y0, x0+bw, y0, w)
			band(x0+bw, y0, x0+bw, y0+bh, w)
			band(x0+bw, y0+bh, x0, y0+bh, w)
			band(x0, y0+bh, x0, y0, w)
		default: // a straight band
			x0, y0 := r.Float64()*float64(W), r.Float64()*float64(H)
			th := r.Float64() * math.Pi
			l := float64(W + H)
			band(x0-l*math.Cos(th), y0-l*math.Sin(th), x0+l*math.Cos(th), y0+l*math.Sin(th), h*(0.05+0.5*r.Float64()))
		}
	}
	mask := image.NewAlpha(image.Rect(0, 0, W, H))
	ras.Draw(mask, mask.Bounds(), image.Opaque, image.Point{})
	a := 0.1 + 0.3*r.Float64()
	for i, m := range mask.Pix {
		img[i] *= 1 - a*float64(m)/255
	}
}

// wash lightens img with a broad gradient of glare across the page, as a
// window or a ceiling light reflected off a laminate washes out one side
// of the zone, and records in glare how much of the contrast it took.
func wash(r *rand.Rand, img, glare []float64, W, H int) {
	th := r.Float64() * 2 * math.Pi
	ct, st := math.Cos(th), math.Sin(th)
	// The projection of the page on the direction, from 0 to 1.
	var lo, hi float64
	for _, c := range [][2]float64{{0, 0}, {float64(W), 0}, {0, float64(H)}, {float64(W), float64(H)}} {
		t := c[0]*ct + c[1]*st
		lo, hi = min(lo, t), max(hi, t)
	}
	amp := 0.2 + 0.4*r.Float64()
	start := 0.2 + 0.5*r.Float64() // where the wash begins
	for y := range H {
		for x := range W {
			t := ((float64(x)*ct+float64(y)*st)-lo)/(hi-lo) - start
			if t <= 0 {
				continue
			}
			t = min(t/(1-start), 1)
			g := amp * t * t * (3 - 2*t)
			i := y*W + x
			img[i] = 255 - (255-img[i])*(1-g)
			glare[i] = 1 - (1-glare[i])*(1-g)
		}
	}
}

// darken is a dim room: the light scaled by f, then the phone's tone
// curve lifting the shadows (gamma g < 1).
func darken(img []float64, f, g float64) {
	for i, v := range img {
		v = min(max(v*f, 0), 255)
		img[i] = 255 * math.Pow(v/255, g)
	}
}

// watermark prints a row or two of translucent letters across the page,
// about as tall as the MRZ's characters or taller, darker or lighter than
// what is under them, as the watermark of a stock photo or a web
// gallery lies over the lines.
func watermark(r *rand.Rand, fs *fonts, img []float64, W, H int, p params) {
	ras := vector.NewRasterizer(W, H)
	h := p.pitch * p.aspect
	k := r.IntN(len(fs.clutter))
	size := h * (0.8 + 1.7*r.Float64()) / 1000
	th := (r.Float64()*2 - 1) * 0.35
	ct, st := math.Cos(th), math.Sin(th)
	for range 1 + r.IntN(2) {
		x, y := -r.Float64()*float64(W)*0.3, float64(H)*(0.15+0.85*r.Float64())
		for x < float64(W)*1.2 {
			c := rune(fs.clutterAlphabets[r.IntN(len(fs.clutterAlphabets))])
			drawSegments(ras, fs.clutter[k][c], func(gx, gy float64) (float32, float32) {
				gx, gy = gx*size, gy*size
				return float32(x + gx*ct - gy*st), float32(y + gx*st + gy*ct)
			})
			adv := fs.clutterAdvance[k] * size * (1 + 0.4*r.Float64())
			x, y = x+adv*ct, y+adv*st
		}
	}
	mask := image.NewAlpha(image.Rect(0, 0, W, H))
	ras.Draw(mask, mask.Bounds(), image.Opaque, image.Point{})
	a := 0.1 + 0.25*r.Float64()
	light := r.IntN(2) == 0
	for i, m := range mask.Pix {
		f := a * float64(m) / 255
		if light {
			img[i] += (255 - img[i]) * f
		} else {
			img[i] *= 1 - f
		}
	}
}
