package capture

import (
	"image"
	"image/color"
	"image/draw"
)

// upright returns img ready for its output format: turned upright for EXIF
// orientation o and, for JPEG output, flattened onto white, because JPEG
// has no alpha and the encoder would otherwise turn transparent pixels
// black. An image that needs neither is returned as it is, so the common
// case re-encodes the decoder's own YCbCr planes without a copy. A PNG
// that must be turned goes through 8-bit NRGBA, so a 16-bit PNG with an
// eXIf orientation loses its extra depth; screenshots and scans have none.
func upright(img image.Image, o int, output string) image.Image {
	turn := o >= 2 && o <= 8
	if output == "image/png" {
		if !turn {
			return img
		}
		m := image.NewNRGBA(img.Bounds())
		draw.Draw(m, m.Rect, img, img.Bounds().Min, draw.Src)
		pix, w, h := orient(m.Pix, m.Stride, m.Rect.Dx(), m.Rect.Dy(), o)
		return &image.NRGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
	}
	opaque := isOpaque(img)
	if !turn && opaque {
		return img
	}
	m := image.NewRGBA(img.Bounds())
	if opaque {
		draw.Draw(m, m.Rect, img, img.Bounds().Min, draw.Src)
	} else {
		draw.Draw(m, m.Rect, image.NewUniform(color.White), image.Point{}, draw.Src)
		draw.Draw(m, m.Rect, img, img.Bounds().Min, draw.Over)
	}
	if !turn {
		return m
	}
	pix, w, h := orient(m.Pix, m.Stride, m.Rect.Dx(), m.Rect.Dy(), o)
	return &image.RGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
}

func isOpaque(img image.Image) bool {
	o, ok := img.(interface{ Opaque() bool })
	return ok && o.Opaque()
}

// orient returns the 4-byte pixels of a w×h image (row stride bytes apart)
// rearranged for EXIF orientation o (2-8), with the new width and height.
// Orientation o says how the stored pixels must be transformed for display;
// each case below gives, for output pixel (0,0), the source pixel and how
// far the source moves per output column (dx) and per output row (dy):
//
//	2 mirror     src(w-1-x, y)       5 transpose   src(y, x)
//	3 rotate 180 src(w-1-x, h-1-y)   6 rotate 90°  src(y, h-1-x)
//	4 flip       src(x, h-1-y)       7 transverse  src(w-1-y, h-1-x)
//	                                 8 rotate 270° src(w-1-y, x)
func orient(src []byte, stride, w, h, o int) (dst []byte, ow, oh int) {
	last, bottom := 4*(w-1), stride*(h-1)
	var start, dx, dy int
	switch o {
	case 2:
		start, dx, dy = last, -4, stride
	case 3:
		start, dx, dy = bottom+last, -4, -stride
	case 4:
		start, dx, dy = bottom, 4, -stride
	case 5:
		start, dx, dy = 0, stride, 4
	case 6:
		start, dx, dy = bottom, -stride, 4
	case 7:
		start, dx, dy = bottom+last, -stride, -4
	case 8:
		start, dx, dy = last, stride, -4
	default:
		start, dx, dy = 0, 4, stride
	}
	ow, oh = w, h
	if o >= 5 && o <= 8 {
		ow, oh = h, w
	}
	dst = make([]byte, 4*ow*oh)
	d := 0
	for y := range oh {
		s := start + y*dy
		for range ow {
			copy(dst[d:d+4], src[s:s+4])
			d += 4
			s += dx
		}
	}
	return dst, ow, oh
}
