package face

import (
	"image"
	"image/color"
)

// Gray returns img as 8-bit luma, shrunk by area averaging so that its
// longer side is at most maxSide (never enlarged; maxSide <= 0 keeps the
// size), and the factor from its pixels back to img's (1 when not shrunk).
// Transparent pixels are laid over white, as the upload path flattens
// them for JPEG, so a PNG's see-through margin reads as paper, not black.
//
// Detect and the image-quality measures both look at this copy, so a
// blur or glare figure and a face box refer to the same pixels. The work
// is O(pixels of img); JPEG (YCbCr) and the usual PNG layouts avoid the
// per-pixel interface call of image.Image.At.
func Gray(img image.Image, maxSide int) (*image.Gray, float64) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return image.NewGray(image.Rect(0, 0, 0, 0)), 1
	}
	ow, oh := w, h
	if long := max(w, h); maxSide > 0 && long > maxSide {
		ow = max(1, (w*maxSide+long/2)/long)
		oh = max(1, (h*maxSide+long/2)/long)
	}
	out := image.NewGray(image.Rect(0, 0, ow, oh))
	// Sum source rows into per-column accumulators of the output row they
	// fall in, then divide: one pass over the source, no full-size copy.
	sums := make([]uint32, ow)
	counts := make([]uint32, ow)
	colOf := make([]int, w)
	for x := range w {
		colOf[x] = x * ow / w
	}
	row := make([]uint8, w)
	oy := 0
	for y := range h {
		lumaRow(img, b.Min.X, b.Min.Y+y, row)
		for x, v := range row {
			c := colOf[x]
			sums[c] += uint32(v)
			counts[c]++
		}
		// Flush when the next source row belongs to a later output row.
		if y == h-1 || (y+1)*oh/h != oy {
			dst := out.Pix[oy*out.Stride : oy*out.Stride+ow]
			for i := range dst {
				dst[i] = uint8((sums[i] + counts[i]/2) / counts[i])
				sums[i], counts[i] = 0, 0
			}
			oy++
		}
	}
	return out, float64(w) / float64(ow)
}

// lumaRow writes the luma (BT.601, as image/color's Gray model) of row y
// of img, from column x0 on, into dst.
func lumaRow(img image.Image, x0, y int, dst []uint8) {
	switch m := img.(type) {
	case *image.YCbCr:
		// JPEG's Y plane is BT.601 luma already.
		i := m.YOffset(x0, y)
		copy(dst, m.Y[i:i+len(dst)])
	case *image.Gray:
		i := m.PixOffset(x0, y)
		copy(dst, m.Pix[i:i+len(dst)])
	case *image.NRGBA:
		p := m.Pix[m.PixOffset(x0, y):]
		for x := range dst {
			r, g, b, a := uint32(p[4*x]), uint32(p[4*x+1]), uint32(p[4*x+2]), uint32(p[4*x+3])
			// Over white: c*a + 255*(255-a), all over 255.
			r = (r*a + 255*(255-a)) / 255
			g = (g*a + 255*(255-a)) / 255
			b = (b*a + 255*(255-a)) / 255
			dst[x] = luma8(r, g, b)
		}
	case *image.RGBA:
		p := m.Pix[m.PixOffset(x0, y):]
		for x := range dst {
			// Premultiplied: over white adds 255-a to each channel.
			na := 255 - uint32(p[4*x+3])
			dst[x] = luma8(uint32(p[4*x])+na, uint32(p[4*x+1])+na, uint32(p[4*x+2])+na)
		}
	default:
		for x := range dst {
			r, g, b, a := img.At(x0+x, y).RGBA() // premultiplied, 16 bit
			na := 0xffff - a
			c := color.RGBA64{R: uint16(r + na), G: uint16(g + na), B: uint16(b + na), A: 0xffff}
			dst[x] = color.GrayModel.Convert(c).(color.Gray).Y
		}
	}
}

// luma8 is image/color's RGB→Gray weighting (0.299, 0.587, 0.114) for
// 8-bit channels.
func luma8(r, g, b uint32) uint8 {
	return uint8((19595*r + 38470*g + 7471*b + 1<<15) >> 16)
}
