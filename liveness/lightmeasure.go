package liveness

import (
	"image"
	"image/color"
	"math"

	"kycd/face"
)

// RegionColour is the mean colour of a region's well exposed pixels.
type RegionColour struct {
	R, G, B float64
	// Pixels is how many pixels were well exposed; Share their part of
	// the region's pixels.
	Pixels int
	Share  float64
}

// logChroma is the region's colour in the opponent chroma plane of the
// natural logs of its channel means: a gain on each channel (a camera's
// white balance, a tint of the whole frame) moves every region by the
// same vector there, whatever its colour.
func (c RegionColour) logChroma() (float64, float64) {
	return chroma(math.Log(c.R+1), math.Log(c.G+1), math.Log(c.B+1))
}

// LightSample is what a frame shows of the light: the face's skin and the
// far background.
type LightSample struct {
	Face, Background RegionColour
}

// ok reports whether the frame can be measured: enough of the skin well
// exposed, and enough background.
func (s LightSample) ok() bool {
	return s.Face.Pixels >= MinLightPixels && s.Face.Share >= MinFaceShare && s.Background.Pixels >= MinLightPixels
}

// skinOutline is the cheeks-and-nose band of the 68 landmarks, around:
// the left jaw at eye level, under the left eye, the nose's bridge, under
// the right eye, the right jaw, the mouth's corners and upper lip. It
// leaves out the eyes, brows, hair and lips, whose colour is not skin's.
var skinOutline = [...]int{1, 41, 40, 28, 47, 46, 15, 13, 54, 51, 48, 3}

// measureLight measures img's skin inside f's landmarks and its far
// background (outside the head and the body below it).
func measureLight(img image.Image, f *face.Face) LightSample {
	var poly [len(skinOutline)]face.Point
	var cx, cy float64
	for i, k := range skinOutline {
		poly[i] = f.Landmarks[k]
		cx += poly[i].X
		cy += poly[i].Y
	}
	cx /= float64(len(poly))
	cy /= float64(len(poly))
	// Pulled a tenth toward the centre: a turned head's jaw points lie on
	// its outline, where background shows.
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range poly {
		poly[i].X = cx + 0.9*(poly[i].X-cx)
		poly[i].Y = cy + 0.9*(poly[i].Y-cy)
		minX, maxX = math.Min(minX, poly[i].X), math.Max(maxX, poly[i].X)
		minY, maxY = math.Min(minY, poly[i].Y), math.Max(maxY, poly[i].Y)
	}
	b := img.Bounds()
	var s LightSample
	var acc [3]float64
	total := 0
	for y := max(b.Min.Y, int(minY)); y <= min(b.Max.Y-1, int(maxY)); y++ {
		for x := max(b.Min.X, int(minX)); x <= min(b.Max.X-1, int(maxX)); x++ {
			if !inside(poly[:], float64(x)+0.5, float64(y)+0.5) {
				continue
			}
			total++
			if r, g, bl, ok := exposed(img, x, y); ok {
				acc[0] += r
				acc[1] += g
				acc[2] += bl
				s.Face.Pixels++
			}
		}
	}
	s.Face = regionColour(acc, s.Face.Pixels, total)

	// The far background: outside the head (the box widened half its
	// width each side, and above, where hair is) and the body below it
	// (a shirt is close to the screen too). Every other pixel.
	box := f.Box
	head := image.Rect(int(box.X-box.W/2), int(box.Y-0.7*box.H), int(box.X+1.5*box.W), int(box.Y+1.3*box.H))
	body := image.Rect(int(box.X-box.W), int(box.Y+box.H), int(box.X+2*box.W), b.Max.Y)
	acc = [3]float64{}
	n, total := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			p := image.Pt(x, y)
			if p.In(head) || p.In(body) {
				continue
			}
			total++
			if r, g, bl, ok := exposed(img, x, y); ok {
				acc[0] += r
				acc[1] += g
				acc[2] += bl
				n++
			}
		}
	}
	s.Background = regionColour(acc, n, total)
	return s
}

func regionColour(acc [3]float64, n, total int) RegionColour {
	if n == 0 {
		return RegionColour{}
	}
	return RegionColour{R: acc[0] / float64(n), G: acc[1] / float64(n), B: acc[2] / float64(n), Pixels: n, Share: float64(n) / float64(total)}
}

// exposed returns the pixel's 8-bit channels and whether it is well
// exposed: not in shadow, no channel clipped.
func exposed(img image.Image, x, y int) (r, g, b float64, ok bool) {
	var R, G, B uint8
	if yc, isYC := img.(*image.YCbCr); isYC {
		ci := yc.COffset(x, y)
		R, G, B = color.YCbCrToRGB(yc.Y[yc.YOffset(x, y)], yc.Cb[ci], yc.Cr[ci])
	} else {
		r, g, b, _ := img.At(x, y).RGBA()
		R, G, B = uint8(r>>8), uint8(g>>8), uint8(b>>8)
	}
	luma := 0.299*float64(R) + 0.587*float64(G) + 0.114*float64(B)
	if luma < lightDark || R >= lightClip || G >= lightClip || B >= lightClip {
		return 0, 0, 0, false
	}
	return float64(R), float64(G), float64(B), true
}

// inside reports whether (x, y) lies in the polygon (even-odd rule).
func inside(poly []face.Point, x, y float64) bool {
	in := false
	for i, j := 0, len(poly)-1; i < len(poly); j, i = i, i+1 {
		a, b := poly[i], poly[j]
		if (a.Y > y) != (b.Y > y) && x < (b.X-a.X)*(y-a.Y)/(b.Y-a.Y)+a.X {
			in = !in
		}
	}
	return in
}
