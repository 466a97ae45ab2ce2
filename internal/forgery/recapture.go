package forgery

import (
	"image"
	"image/color"
	"math"

	xdraw "golang.org/x/image/draw"
)

// Screen shows img on a simulated LCD (each image pixel a cell of k×k
// device pixels: red, green and blue stripes with a dark gap) and
// photographs it: the panel is resampled by the factor scale (a camera
// sees the panel at another resolution, which turns the grid into moiré
// when the period nears two pixels).
func Screen(img image.Image, k int, scale float64) image.Image {
	b := img.Bounds()
	panel := image.NewRGBA(image.Rect(0, 0, b.Dx()*k, b.Dy()*k))
	for y := range b.Dy() * k {
		for x := range b.Dx() * k {
			r, g, bb, _ := img.At(b.Min.X+x/k, b.Min.Y+y/k).RGBA()
			c := [3]uint32{r >> 8, g >> 8, bb >> 8}
			sub := (x % k) * 3 / k
			var px color.RGBA
			if y%k != k-1 { // the row gap is dark
				v := [3]uint8{}
				v[sub] = uint8(min(255, c[sub]*5/4))
				// Light leaks into the neighbouring subpixels.
				for i := range 3 {
					if i != sub {
						v[i] = uint8(c[i] / 5)
					}
				}
				px = color.RGBA{v[0], v[1], v[2], 255}
			} else {
				px = color.RGBA{uint8(c[0] / 6), uint8(c[1] / 6), uint8(c[2] / 6), 255}
			}
			panel.SetRGBA(x, y, px)
		}
	}
	out := image.NewRGBA(image.Rect(0, 0, int(float64(panel.Bounds().Dx())*scale), int(float64(panel.Bounds().Dy())*scale)))
	xdraw.BiLinear.Scale(out, out.Bounds(), panel, panel.Bounds(), xdraw.Src, nil)
	return out
}

// Halftone prints img as a four-colour press does (amplitude-modulated
// dots on screens at 15°, 75°, 0° and 45°, cell pixels apart) on white
// paper, at the resolution of img.
func Halftone(img image.Image, cell float64) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	angles := [4]float64{15, 75, 0, 45} // C, M, Y, K
	for y := range b.Dy() {
		for x := range b.Dx() {
			r, g, bb, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			rf, gf, bf := float64(r>>8)/255, float64(g>>8)/255, float64(bb>>8)/255
			k := 1 - max(rf, gf, bf)
			ink := [4]float64{0, 0, 0, k}
			if k < 1 {
				ink[0], ink[1], ink[2] = (1-rf-k)/(1-k), (1-gf-k)/(1-k), (1-bf-k)/(1-k)
			}
			var on [4]bool
			for i, a := range angles {
				s, c := math.Sincos(a * math.Pi / 180)
				u := (float64(x)*c + float64(y)*s) / cell
				v := (-float64(x)*s + float64(y)*c) / cell
				du, dv := u-math.Floor(u)-0.5, v-math.Floor(v)-0.5
				// A dot covers the cell's share ink of its area.
				on[i] = math.Pi*(du*du+dv*dv) < ink[i]
			}
			cr, cg, cb := 1.0, 1.0, 1.0
			if on[0] {
				cr *= 0.1
			}
			if on[1] {
				cg *= 0.1
			}
			if on[2] {
				cb *= 0.1
			}
			if on[3] {
				cr, cg, cb = cr*0.1, cg*0.1, cb*0.1
			}
			out.SetRGBA(x, y, color.RGBA{uint8(cr * 255), uint8(cg * 255), uint8(cb * 255), 255})
		}
	}
	return out
}
