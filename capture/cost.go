package capture

import (
	"image"
	"image/color"
	"math"
)

// Pixel counts bound an upload poorly on their own: an all-zero 16-bit
// RGBA PNG compresses to almost nothing, yet image/png decodes it at 8
// bytes a pixel, and a progressive JPEG keeps 4 bytes of coefficients per
// pixel and component besides its pixels. cost prices an upload from its
// headers before a pixel is decoded, by what each decoder will allocate.

// price is what one upload is estimated to hold, in two stages. decode
// is what the decoder allocates; held is the part of it that outlives the
// decoder (the image it returns). A progressive JPEG's coefficients are
// garbage once the decoder returns: when they are large, finish collects
// them before the normalised copy and the encoder's buffer are allocated,
// so the two stages never hold memory at once and the peak is the larger
// of them rather than their sum.
type price struct {
	src    int64 // the upload itself, held throughout
	decode int64 // everything the decoder allocates
	held   int64 // of decode, the decoded image, still held while normalising
	after  int64 // the normalised copy (when one is needed) and the encoded output
	split  bool  // finish collects the decoder's garbage before the second stage
}

// peak is the most the upload holds at once.
func (p price) peak() int64 {
	if p.split {
		return p.src + max(p.decode, p.held+p.after)
	}
	return p.src + p.decode + p.after
}

// cost estimates the peak bytes Process holds for one upload: the upload
// itself, what the decoder allocates for its pixels and working buffers,
// the normalised copy (when one is needed) and the encoded output.
// stored is the stored size (after downscaling and turning aside).
func cost(f *format, src []byte, cfg image.Config, o int, stored int64, wantsCopy bool) price {
	px := int64(cfg.Width) * int64(cfg.Height)
	p := price{src: int64(len(src))}
	p.decode, p.held = decodeCost(f, src, cfg, px)
	if wantsCopy || o >= 2 && o <= 8 || stored < px {
		p.after += 4 * stored // normalise writes 8-bit RGBA
	}
	// The encoder's buffer: JPEG at quality 92 stays under a byte a pixel
	// for photos; PNG of photo-like content can approach 4.
	if f.output == "image/png" {
		p.after += 4 * stored
	} else {
		p.after += stored
	}
	// Collecting costs milliseconds; it pays when the garbage is large.
	p.split = p.decode-p.held >= collectAfter
	return p
}

// decodeCost is what the decoder of f allocates for a px-pixel image, and
// of it what the decoded image keeps after the decoder returns. Only
// JPEG's is told apart; for the others all of it counts as kept.
func decodeCost(f *format, src []byte, cfg image.Config, px int64) (decode, held int64) {
	switch f {
	case formatJPEG:
		return jpegCost(inspectJPEG(src), cfg, px)
	case formatPNG:
		info := inspectPNG(src)
		n := px * pngBytesPerPixel(cfg.ColorModel, info.tRNS)
		if info.interlaced {
			n += n / 2 // a pass is at most half the image, merged into the whole
		}
		return n, n
	case formatWebP:
		var n int64
		switch cfg.ColorModel {
		case color.YCbCrModel:
			n = px * 3 / 2 // VP8: 4:2:0 planes
		case color.NYCbCrAModel:
			n = px * 11 // VP8 planes, alpha plane, and the VP8L decode of the alpha
		default:
			n = px * 12 // VP8L: ARGB words, a transform's copy, the NRGBA image
		}
		return n, n
	}
	return px * 8, px * 8
}

// pngBytesPerPixel is the depth image/png decodes a colour type to.
func pngBytesPerPixel(m color.Model, tRNS bool) int64 {
	switch m {
	case color.GrayModel:
		if tRNS {
			return 4
		}
		return 1
	case color.Gray16Model:
		if tRNS {
			return 8
		}
		return 2
	case color.RGBAModel, color.NRGBAModel:
		return 4
	case color.RGBA64Model, color.NRGBA64Model:
		return 8
	}
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	return 8
}

// jpegDecoderOverhead bounds what image/jpeg allocates besides planes
// and coefficients: its Huffman tables and buffered reader (~30 KB).
const jpegDecoderOverhead = 64 << 10

// jpegCost follows image/jpeg: one plane per component at its sampling,
// padded to whole MCUs; for progressive files 256 bytes of coefficients
// per 8×8 block of each component (an int32 per coefficient), which the
// decoder drops when it returns; for CMYK and RGB files an RGBA or CMYK
// copy as well, which is what it returns instead of the planes.
func jpegCost(info jpegInfo, cfg image.Config, px int64) (decode, held int64) {
	if len(info.comps) == 0 {
		return px * 16, px * 16 // no frame header seen: the decoder will refuse it
	}
	hmax, vmax := 1, 1
	for _, c := range info.comps {
		hmax, vmax = max(hmax, c.h), max(vmax, c.v)
	}
	mxx := int64(math.Ceil(float64(cfg.Width) / float64(8*hmax)))
	myy := int64(math.Ceil(float64(cfg.Height) / float64(8*vmax)))
	var planes int64
	for _, c := range info.comps {
		planes += 64 * int64(max(c.h, 1)) * mxx * int64(max(c.v, 1)) * myy
	}
	// The decoder's own tables and buffered reader: tens of KB.
	decode, held = planes+jpegDecoderOverhead, planes
	if info.progressive {
		decode += 4 * planes
	}
	switch len(info.comps) {
	case 3:
		c := info.comps
		rgb := !info.jfif && (info.adobe == 0 || c[0].id == 'R' && c[1].id == 'G' && c[2].id == 'B')
		if rgb {
			decode += 4 * px
			held = 4 * px
		}
	case 4:
		decode += 4 * px
		held = 4 * px
	}
	return decode, held
}
