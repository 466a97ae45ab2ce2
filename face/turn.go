package face

import "image"

// turn returns g, a working copy from Gray (origin at 0,0), turned
// clockwise by deg (90, 180 or 270) degrees.
func turn(g *image.Gray, deg int) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	ow, oh := h, w
	if deg == 180 {
		ow, oh = w, h
	}
	out := image.NewGray(image.Rect(0, 0, ow, oh))
	for oy := range oh {
		row := out.Pix[oy*out.Stride : oy*out.Stride+ow]
		for ox := range row {
			var x, y int
			switch deg {
			case 90:
				x, y = oy, h-1-ox
			case 270:
				x, y = w-1-oy, ox
			default:
				x, y = w-1-ox, h-1-oy
			}
			row[ox] = g.Pix[y*g.Stride+x]
		}
	}
	return out
}

// unturn maps a box found in the image turned clockwise by deg back into
// the original image, whose bounds are b.
func unturn(x Box, deg int, b image.Rectangle) Box {
	w, h := b.Dx(), b.Dy()
	switch deg {
	case 90:
		x.X, x.Y, x.W, x.H = x.Y, h-x.X-x.W, x.H, x.W
	case 270:
		x.X, x.Y, x.W, x.H = w-x.Y-x.H, x.X, x.H, x.W
	case 180:
		x.X, x.Y = w-x.X-x.W, h-x.Y-x.H
	}
	x.X += b.Min.X
	x.Y += b.Min.Y
	return x
}
