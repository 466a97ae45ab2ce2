package capture

import (
	"image"
	"image/draw"
	"math"
)

// storedSize is the size an image of w×h pixels is stored at: itself when
// it has at most maxPx pixels, else scaled down, keeping its aspect
// ratio, to at most maxPx.
func storedSize(w, h int, maxPx int64) (int, int) {
	px := int64(w) * int64(h)
	if px <= maxPx {
		return w, h
	}
	s := math.Sqrt(float64(maxPx) / float64(px))
	dw, dh := max(1, int(float64(w)*s)), max(1, int(float64(h)*s))
	for int64(dw)*int64(dh) > maxPx { // float rounding
		if dw >= dh {
			dw--
		} else {
			dh--
		}
	}
	return dw, dh
}

// plain reports whether img can be encoded as it is, for output: 8 bits
// per channel and, for JPEG, which has no alpha, opaque. The common case,
// a phone's JPEG, is re-encoded from the decoder's own YCbCr planes.
func plain(img image.Image, output string) bool {
	switch img.(type) {
	case *image.YCbCr, *image.Gray, *image.CMYK:
		return true
	case *image.NRGBA, *image.RGBA, *image.Paletted, *image.NYCbCrA:
		return output == "image/png" || isOpaque(img)
	}
	return false // 16 bits per channel: stored as 8
}

func isOpaque(img image.Image) bool {
	o, ok := img.(interface{ Opaque() bool })
	return ok && o.Opaque()
}

// normalise returns the image to store: at most maxPx pixels (scaled down
// by area averaging), turned upright for EXIF orientation o, 8 bits per
// channel and, for JPEG output, flattened onto white, because JPEG has no
// alpha and the encoder would otherwise turn transparent pixels black.
// It makes at most one copy, of the stored size, and none when img needs
// no change.
func normalise(img image.Image, o int, output string, maxPx int64) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := storedSize(w, h, maxPx)
	turn := o >= 2 && o <= 8
	if dw == w && dh == h && !turn && plain(img, output) {
		return img
	}
	if !turn {
		o = 1
	}
	return resample(img, dw, dh, o, output == "image/jpeg")
}

// resample writes img, scaled to dw×dh (never up) and turned for
// orientation o, into a new RGBA image. It reads img one row at a time,
// converted to premultiplied RGBA by image/draw, so the only full-size
// buffer is the output. Each output pixel is the exact area-weighted mean
// of the source pixels it covers: in units of 1/dw of a source pixel
// horizontally (1/dh vertically), output column i spans [i·w, (i+1)·w)
// and source column x spans [x·dw, (x+1)·dw), so every weight is an
// integer overlap and the sums are exact.
func resample(img image.Image, dw, dh, o int, flatten bool) *image.RGBA {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	start, stepX, stepY, ow, oh := placement(o, dw, dh)
	out := image.NewRGBA(image.Rect(0, 0, ow, oh))
	row := image.NewRGBA(image.Rect(0, 0, w, 1))
	put := func(off int, r, g, bl, a uint8) {
		if flatten { // over white, in premultiplied terms
			r, g, bl, a = r+255-a, g+255-a, bl+255-a, 255
		}
		p := out.Pix[off : off+4 : off+4]
		p[0], p[1], p[2], p[3] = r, g, bl, a
	}
	if dw == w && dh == h { // turn or convert only
		for y := range h {
			draw.Draw(row, row.Rect, img, image.Pt(b.Min.X, b.Min.Y+y), draw.Src)
			off := start + y*stepY
			for x := range w {
				p := row.Pix[4*x : 4*x+4 : 4*x+4]
				put(off, p[0], p[1], p[2], p[3])
				off += stepX
			}
		}
		return out
	}
	cols := spans(w, dw)
	// Two output rows are open at a time: when shrinking, a source row
	// overlaps at most two.
	acc := [2][]uint64{make([]uint64, 4*dw), make([]uint64, 4*dw)}
	hrow := make([]uint64, 4*dw)
	inv := 1 / (float64(w) * float64(h)) // the weights of one output pixel sum to w·h
	emit := func(j int, sum []uint64) {
		off := start + j*stepY
		for i := range dw {
			s := sum[4*i : 4*i+4]
			put(off, mean(s[0], inv), mean(s[1], inv), mean(s[2], inv), mean(s[3], inv))
			off += stepX
		}
		clear(sum)
	}
	for y := range h {
		draw.Draw(row, row.Rect, img, image.Pt(b.Min.X, b.Min.Y+y), draw.Src)
		clear(hrow)
		for i, c := range cols {
			for _, t := range c {
				p := row.Pix[4*t.x : 4*t.x+4 : 4*t.x+4]
				hrow[4*i] += t.w * uint64(p[0])
				hrow[4*i+1] += t.w * uint64(p[1])
				hrow[4*i+2] += t.w * uint64(p[2])
				hrow[4*i+3] += t.w * uint64(p[3])
			}
		}
		// Output rows j0 and j0+1 may overlap source row y.
		for j := y * dh / h; j < dh && j*h < (y+1)*dh; j++ {
			wy := uint64(min((j+1)*h, (y+1)*dh) - max(j*h, y*dh))
			sum := acc[j%2]
			for k, v := range hrow {
				sum[k] += wy * v
			}
			if (y+1)*dh >= (j+1)*h { // row j has had its last source row
				emit(j, sum)
			}
		}
	}
	return out
}

// tap is one source column's integer weight in an output column.
type tap struct {
	x int
	w uint64
}

// spans gives, for each of n output columns over a source of size size,
// the source columns it covers and their overlaps (which sum to size).
func spans(size, n int) [][]tap {
	out := make([][]tap, n)
	for i := range n {
		lo, hi := i*size, (i+1)*size
		for x := lo / n; x*n < hi; x++ {
			ov := min(hi, (x+1)*n) - max(lo, x*n)
			out[i] = append(out[i], tap{x, uint64(ov)})
		}
	}
	return out
}

// mean is the weighted sum v times inv, the reciprocal of its total
// weight, rounded to a byte. Sums stay far below 2^53, so float64 holds
// them exactly.
func mean(v uint64, inv float64) uint8 {
	return uint8(min(float64(v)*inv+0.5, 255))
}
