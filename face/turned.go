package face

import (
	"image"
	"math"
)

// turnedReader returns a reader for img turned clockwise by deg (0, 90,
// 180 or 270) and the turned size, reading the original pixels in place.
func turnedReader(img image.Image, deg int) (rgbReader, int, int) {
	px := newRGBReader(img)
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	switch deg {
	case 90:
		return func(x, y int) (uint8, uint8, uint8) { return px(y, h-1-x) }, h, w
	case 270:
		return func(x, y int) (uint8, uint8, uint8) { return px(w-1-y, x) }, h, w
	case 180:
		return func(x, y int) (uint8, uint8, uint8) { return px(w-1-x, h-1-y) }, w, h
	}
	return px, w, h
}

// unturnPoint maps a point of the image turned clockwise by deg back to
// the image of bounds b (pixel edges, so (0, 0) is a corner).
func unturnPoint(p Point, deg int, b image.Rectangle) Point {
	w, h := float64(b.Dx()), float64(b.Dy())
	switch deg {
	case 90:
		p = Point{X: p.Y, Y: h - p.X}
	case 270:
		p = Point{X: w - p.Y, Y: p.X}
	case 180:
		p = Point{X: w - p.X, Y: h - p.Y}
	}
	return Point{X: p.X + float64(b.Min.X), Y: p.Y + float64(b.Min.Y)}
}

func unturnRect(r Rect, deg int, b image.Rectangle) Rect {
	a := unturnPoint(Point{r.X, r.Y}, deg, b)
	c := unturnPoint(Point{r.X + r.W, r.Y + r.H}, deg, b)
	return Rect{X: min(a.X, c.X), Y: min(a.Y, c.Y), W: math.Abs(c.X - a.X), H: math.Abs(c.Y - a.Y)}
}

// unturn moves f's box, landmarks and aligned crop from the turned image,
// where they were found, to the image as given, of bounds b.
func (f *Face) unturn(b image.Rectangle) {
	f.Box = unturnRect(f.Box, f.Turn, b)
	for i, p := range f.Landmarks {
		f.Landmarks[i] = unturnPoint(p, f.Turn, b)
	}
	v := f.view
	f.Aligned = unturnRect(Rect{float64(v.X), float64(v.Y), float64(v.W), float64(v.H)}, f.Turn, b)
}

// landmarkQuality measures upright landmarks of a face in a w × h image.
func landmarkQuality(lm *[68]Point, w, h int) LandmarkQuality {
	le, re := centroid(lm[36:42]), centroid(lm[42:48])
	q := LandmarkQuality{
		EyeDistance: dist(le, re),
		Roll:        math.Atan2(re.Y-le.Y, re.X-le.X) * 180 / math.Pi,
	}
	// Points 2 and 14 are the sides of the jaw at cheekbone height, 30 the
	// nose tip.
	l, r := lm[30].X-lm[2].X, lm[14].X-lm[30].X
	if l+r > 0 {
		q.Yaw = (l - r) / (l + r)
	}
	in := 0
	for _, p := range lm {
		if p.X >= 0 && p.Y >= 0 && p.X <= float64(w) && p.Y <= float64(h) {
			in++
		}
	}
	q.InImage = float64(in) / float64(len(lm))
	return q
}
