package forgery

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
)

// Noise adds Gaussian noise of sigma grey levels to every channel of
// every pixel: the forger's imitation of a sensor.
func Noise(img image.Image, sigma float64, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			r, g, bb, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			n := func(v uint32) uint8 { return clamp8(float64(v>>8) + rng.NormFloat64()*sigma) }
			out.SetRGBA(x, y, color.RGBA{n(r), n(g), n(bb), 255})
		}
	}
	return out
}

func clamp8(v float64) uint8 { return uint8(min(255, max(0, math.Round(v)))) }

// JPEG re-encodes img at quality q and decodes it again.
func JPEG(img image.Image, q int) image.Image {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
		panic(err) // encoding to memory cannot fail for these images
	}
	out, err := jpeg.Decode(&buf)
	if err != nil {
		panic(err)
	}
	return out
}

// Encode returns img as JPEG (q > 0) or PNG bytes, as a client uploads it.
func Encode(img image.Image, q int) []byte {
	var buf bytes.Buffer
	var err error
	if q > 0 {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: q})
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Warp lays the document on a table-coloured background with a
// perspective: its corners moved inwards by up to strength of its size,
// bilinearly sampled, as a photo taken at an angle shows it.
func Warp(img image.Image, strength float64, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, 11))
	b := img.Bounds()
	W, H := b.Dx()*5/4, b.Dy()*5/4
	out := image.NewRGBA(image.Rect(0, 0, W, H))
	bg := color.RGBA{uint8(60 + rng.IntN(60)), uint8(50 + rng.IntN(50)), uint8(40 + rng.IntN(40)), 255}
	for i := range out.Pix {
		out.Pix[i] = [4]uint8{bg.R, bg.G, bg.B, 255}[i%4]
	}
	mx, my := float64(W-b.Dx())/2, float64(H-b.Dy())/2
	j := func(s float64) float64 { return (rng.Float64()*2 - 1) * strength * s }
	// Destination corners: TL, TR, BR, BL.
	dx := [4]float64{mx + j(float64(b.Dx())), mx + float64(b.Dx()) + j(float64(b.Dx())), mx + float64(b.Dx()) + j(float64(b.Dx())), mx + j(float64(b.Dx()))}
	dy := [4]float64{my + j(float64(b.Dy())), my + j(float64(b.Dy())), my + float64(b.Dy()) + j(float64(b.Dy())), my + float64(b.Dy()) + j(float64(b.Dy()))}
	hm := homography(dx, dy, float64(b.Dx()), float64(b.Dy()))
	for y := range H {
		for x := range W {
			den := hm[6]*float64(x) + hm[7]*float64(y) + 1
			u := (hm[0]*float64(x) + hm[1]*float64(y) + hm[2]) / den
			v := (hm[3]*float64(x) + hm[4]*float64(y) + hm[5]) / den
			if u < 0 || v < 0 || u >= float64(b.Dx()-1) || v >= float64(b.Dy()-1) {
				continue
			}
			out.SetRGBA(x, y, bilinear(img, b.Min.X, b.Min.Y, u, v))
		}
	}
	return out
}

func bilinear(img image.Image, ox, oy int, u, v float64) color.RGBA {
	x0, y0 := int(u), int(v)
	fx, fy := u-float64(x0), v-float64(y0)
	var c [3]float64
	for k, p := range [4][3]float64{{0, 0, (1 - fx) * (1 - fy)}, {1, 0, fx * (1 - fy)}, {0, 1, (1 - fx) * fy}, {1, 1, fx * fy}} {
		_ = k
		r, g, b, _ := img.At(ox+x0+int(p[0]), oy+y0+int(p[1])).RGBA()
		c[0] += float64(r>>8) * p[2]
		c[1] += float64(g>>8) * p[2]
		c[2] += float64(b>>8) * p[2]
	}
	return color.RGBA{clamp8(c[0]), clamp8(c[1]), clamp8(c[2]), 255}
}

// homography maps destination (x, y) to source (u, v) for the quad
// (dx, dy) ← the source rectangle w×h (8 unknowns, solved by Gauss).
func homography(dx, dy [4]float64, w, h float64) [8]float64 {
	su := [4]float64{0, w, w, 0}
	sv := [4]float64{0, 0, h, h}
	var a [8][9]float64
	for i := range 4 {
		x, y, u, v := dx[i], dy[i], su[i], sv[i]
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
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
			if r != c {
				f := a[r][c] / a[c][c]
				for k := c; k < 9; k++ {
					a[r][k] -= f * a[c][k]
				}
			}
		}
	}
	var out [8]float64
	for i := range 8 {
		out[i] = a[i][8] / a[i][i]
	}
	return out
}

// Mirror flips img left to right, as a front camera's preview shows it.
func Mirror(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			r, g, bb, a := img.At(b.Max.X-1-x, b.Min.Y+y).RGBA()
			out.SetRGBA(x, y, color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bb >> 8), uint8(a >> 8)})
		}
	}
	return out
}
