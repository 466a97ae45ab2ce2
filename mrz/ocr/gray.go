package ocr

import (
	"image"
	"image/color"
)

// inkGray converts img to gray for reading the zone, shrunk (by box
// averages) so that its longer side is at most maxSide, and returns it
// with the factor from its pixels back to img's.
//
// The gray level is the brightest of the three channels, not the luma:
// an MRZ is printed in black (ICAO 9303 asks for an ink that reads in the
// near infrared, carbon black in practice), which is dark in every
// channel, while the coloured print around and over it (security
// backgrounds, a red SPECIMEN stamp, boxes drawn on a photo) is bright in
// at least one and so fades into the paper. A translucent colour laid
// over the zone (a highlighter, a tinted box), which lifts the ink too, is
// undone by its chroma (see removeCast).
func inkGray(img image.Image, maxSide int) (*image.Gray, float64) {
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
	colOf := make([]int, w)
	for x := range w {
		colOf[x] = x * ow / w
	}
	chroma := make([]uint8, ow*oh)
	// Row y of img falls in row y·oh/h of out (oh ≤ h): each band of
	// out's rows is summed from its own rows of img, a band per core.
	inChunks(oh, func(lo, hi int) {
		sums, csums, counts := make([]uint32, ow), make([]uint32, ow), make([]uint32, ow)
		row, crow := make([]uint8, w), make([]uint8, w)
		for y := (lo*h + oh - 1) / oh; y < h && y*oh/h < hi; y++ {
			valueRow(img, b.Min.X, b.Min.Y+y, row, crow)
			for x, v := range row {
				c := colOf[x]
				sums[c] += uint32(v)
				csums[c] += uint32(crow[x])
				counts[c]++
			}
			if oy := y * oh / h; y == h-1 || (y+1)*oh/h != oy {
				dst := out.Pix[oy*out.Stride : oy*out.Stride+ow]
				cdst := chroma[oy*ow : (oy+1)*ow]
				for i := range dst {
					dst[i] = uint8((sums[i] + counts[i]/2) / counts[i])
					cdst[i] = uint8((csums[i] + counts[i]/2) / counts[i])
					sums[i], csums[i], counts[i] = 0, 0, 0
				}
			}
		}
	})
	removeCast(out, chroma)
	return out, float64(w) / float64(ow)
}

// valueRow writes max(R, G, B) of row y of img (over white where it is
// transparent), from column x0 on, into dst, and the chroma max − min
// into chroma.
func valueRow(img image.Image, x0, y int, dst, chroma []uint8) {
	switch m := img.(type) {
	case *image.Gray:
		i := m.PixOffset(x0, y)
		copy(dst, m.Pix[i:i+len(dst)])
		clear(chroma)
	case *image.YCbCr:
		for x := range dst {
			yi, ci := m.YOffset(x0+x, y), m.COffset(x0+x, y)
			r, g, b := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
			dst[x], chroma[x] = max(r, g, b), max(r, g, b)-min(r, g, b)
		}
	case *image.NRGBA:
		p := m.Pix[m.PixOffset(x0, y):]
		for x := range dst {
			r, g, b, a := uint32(p[4*x]), uint32(p[4*x+1]), uint32(p[4*x+2]), uint32(p[4*x+3])
			v := max(r, g, b)
			dst[x] = uint8((v*a + 255*(255-a)) / 255)
			chroma[x] = uint8((v - min(r, g, b)) * a / 255)
		}
	case *image.RGBA:
		p := m.Pix[m.PixOffset(x0, y):]
		for x := range dst {
			r, g, b := uint32(p[4*x]), uint32(p[4*x+1]), uint32(p[4*x+2])
			na := 255 - uint32(p[4*x+3])
			dst[x] = uint8(min(max(r, g, b)+na, 255))
			chroma[x] = uint8(max(r, g, b) - min(r, g, b))
		}
	default:
		for x := range dst {
			r, g, b, a := img.At(x0+x, y).RGBA() // premultiplied, 16 bit
			dst[x] = uint8(min(max(r, g, b)+0xffff-a, 0xffff) >> 8)
			chroma[x] = uint8((max(r, g, b) - min(r, g, b)) >> 8)
		}
	}
}
