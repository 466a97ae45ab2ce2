// Package relight renders, for tests, what a camera sees of a face lit
// by a screen: the genuine path of the liveness light check cannot use
// real people here, so tests relight real frames of the shared footage
// as the screen's colour would (issue 24). It is test support: nothing in
// the product imports it.
package relight

import (
	"image"
	"image/color"
	"math"
)

// Face returns img with the face inside the ellipse inscribed in box (the
// face detector's box, widened to take in the forehead and cheeks) lit
// by a screen of colour (r, g, b in 0-1) adding k of the room's light:
// in linear light each channel of a face pixel becomes p·(1 + k·c), its
// own reflectance times the screen's light, with a soft edge. The rest of
// the frame, metres from the screen, is left as it is.
func Face(img image.Image, box image.Rectangle, r, g, b, k float64) *image.RGBA {
	bounds := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, bounds.Dx(), bounds.Dy()))
	cx, cy := float64(box.Min.X+box.Max.X)/2, float64(box.Min.Y+box.Max.Y)/2+0.05*float64(box.Dy())
	rx, ry := 0.62*float64(box.Dx()), 0.75*float64(box.Dy())
	gain := [3]float64{1 + k*r, 1 + k*g, 1 + k*b}
	for y := range bounds.Dy() {
		for x := range bounds.Dx() {
			c := color.RGBAModel.Convert(img.At(bounds.Min.X+x, bounds.Min.Y+y)).(color.RGBA)
			dx, dy := (float64(x)-cx)/rx, (float64(y)-cy)/ry
			d := math.Sqrt(dx*dx + dy*dy)
			w := 1.0 // full light inside, fading out over the outer fifth
			if d > 1 {
				w = 0
			} else if d > 0.8 {
				w = (1 - d) / 0.2
			}
			if w == 0 {
				out.SetRGBA(x, y, color.RGBA{c.R, c.G, c.B, 255})
				continue
			}
			v := [3]uint8{c.R, c.G, c.B}
			for i := range v {
				lin := math.Pow(float64(v[i])/255, 2.2)
				lin *= 1 + w*(gain[i]-1)
				v[i] = uint8(math.Round(255 * math.Pow(math.Min(lin, 1), 1/2.2)))
			}
			out.SetRGBA(x, y, color.RGBA{v[0], v[1], v[2], 255})
		}
	}
	return out
}

// Tint returns img tinted all over toward colour (r, g, b): a gain of
// 1 + k·c on every channel of every pixel in linear light, as a digital
// relighting of the whole frame (or a camera's white balance) does.
func Tint(img image.Image, r, g, b, k float64) *image.RGBA {
	return Face(img, image.Rect(-1<<20, -1<<20, 1<<20, 1<<20), r, g, b, k)
}

// Blend returns img overlaid with colour (r, g, b) at opacity a, as an
// image editor's colour layer does: every pixel becomes (1-a)·p + a·c.
func Blend(img image.Image, r, g, b, a float64) *image.RGBA {
	bounds := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, bounds.Dx(), bounds.Dy()))
	col := [3]float64{r * 255, g * 255, b * 255}
	for y := range bounds.Dy() {
		for x := range bounds.Dx() {
			c := color.RGBAModel.Convert(img.At(bounds.Min.X+x, bounds.Min.Y+y)).(color.RGBA)
			v := [3]uint8{c.R, c.G, c.B}
			for i := range v {
				v[i] = uint8(math.Round((1-a)*float64(v[i]) + a*col[i]))
			}
			out.SetRGBA(x, y, color.RGBA{v[0], v[1], v[2], 255})
		}
	}
	return out
}
