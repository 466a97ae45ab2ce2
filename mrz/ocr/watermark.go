package ocr

import (
	"image"
	"math"
	"time"
)

// A stock photo's watermark over the zone (a translucent grey or white
// band with the site's name, a word repeated diagonally, a tiled logo)
// is a neutral layer: the colour rule (removeCast) cannot see it. Where it
// lies, pixel = (1−a)·original + a·C, so the paper's level and the ink's
// change together, with a sharp step at the band's edge that cuts
// characters into a darker and a lighter part, and the watermark's own
// strokes add gray marks between and over the characters.
//
// Both are undone when the first read did not read a zone: the paper's
// level is the closing of the gray (the brightest level within about a
// character of each pixel, then the darkest of those: strokes vanish, a
// band's straight edge stays where it is), the ink's level the darkest
// within about a character, and each pixel is set by where it lies
// between the two, cut at wmLow and wmHigh. A band's paper and ink are
// brought back to the page's (in full farther than a character from its
// edge; nearer, the ink's level is the darker side's and the band's ink
// comes back part way). The MRZ's print is the darkest there is, so it
// keeps its full weight, while a watermark's stroke over paper near the
// print, lighter than the ink (a translucent layer never reaches the
// ink's black), falls below wmLow and turns to paper. What a white
// stroke erased of a character is not brought back: the classifier
// sees the rest, and the decoder's rules decide as on any photo (the
// tests and the benchmark count wrong readings, none so far; see
// TestReadThroughWatermarkBand for the one the first read makes).
//
// It is a second look, not the first: on a photo without a watermark the
// cut thins faint print, and the first read is what the reader was
// measured on.
const (
	// wmReach: the filters' half-width, in character pitches: wide
	// enough that the ink's level near a watermark's stroke between two
	// lines is a character's, narrow enough to follow a band.
	wmReach = 1.2
	// wmLow and wmHigh: the share of the way from paper to ink below
	// which a pixel is paper and above which it is ink. Chosen on the
	// tuning half (A) of bench/mrz's phone watermark class among
	// (0.3, 0.7), (0.15, 0.7), (0, 0.7) and (0, 1): 11, 10, 8 and 9 of
	// 18 read, but 0.3 read one wrong (a 0 whose top a white letter had
	// erased, turned into a sure U: U and 0 weigh the same for a check
	// digit), so 0.15 keeps what is left of such a stroke in sight.
	wmLow  = 0.15
	wmHigh = 0.7
	// wmFlat: where paper and ink differ by less than this many gray
	// levels there is no print, only paper (and perhaps a watermark).
	wmFlat = 24
	// wmMargin: the margin around a zone's box read again, in pitches:
	// room for its lines to be found again, and for the filters.
	wmMargin = 6
	// wmGuess: without a zone found, the filters reach this share of
	// the picture's long side (a pitch and a bit of a document across
	// most of the frame).
	wmGuess = 80
	// wmHalfSide: a picture with no zone found, longer than this, is
	// looked at again at half its size.
	wmHalfSide = 1000
)

// readFlattened reads the picture again with a translucent layer undone
// (see above), when the first read res did not read a zone; the better
// of the two is returned. Around a zone found, only its surroundings are
// read again (wmMargin), the filters reaching wmReach of its pitch; when
// none was found, the whole picture, the filters reaching wmGuess of its
// long side (a document across a good part of the frame).
func readFlattened(net *Net, py *Pyramid, ref time.Time, res *Result) *Result {
	if res.Status == StatusRead {
		return res
	}
	src, scale := py.levels[0], 1
	area := image.Rect(0, 0, src.w, src.h)
	var r float64
	if res.Status != StatusNotFound && res.PitchPx > 0 && !res.Box.Empty() {
		r = wmReach * res.PitchPx
		m := int(wmMargin * res.PitchPx)
		area = res.Box.Inset(-m).Intersect(area)
	} else {
		// The whole picture, at half its size when large: the zone's
		// characters are then still a dozen pixels or more, and the
		// filters cost a quarter.
		if max(src.w, src.h) > wmHalfSide && len(py.levels) > 1 {
			src, scale = py.levels[1], 2
			area = image.Rect(0, 0, src.w, src.h)
		}
		r = float64(max(src.w, src.h)) / wmGuess
	}
	if area.Dx() < 32 || area.Dy() < 32 {
		return res
	}
	flat := flatten(crop(src, area), max(2, int(math.Ceil(r))))
	got := readPyramid(net, pyramidOf(flat), ref, 1)
	if rank(got) <= rank(res) || !agreesFlattened(res, got) {
		return res
	}
	b := got.Box.Add(area.Min)
	got.Box = image.Rect(b.Min.X*scale, b.Min.Y*scale, b.Max.X*scale, b.Max.Y*scale)
	got.PitchPx *= float64(scale)
	got.PrintLines = res.PrintLines
	return got
}

// agreesFlattened tells whether the second look's reading keeps every character
// the first look was sure of (as sure as a character taken on its own),
// but where a check digit vouches for the change: it may settle what the
// first look hesitated over, and correct a character whose check digit
// failed, never overturn elsewhere what the first look saw clearly.
// Undoing a layer cannot bring back what a white stroke erased, and the
// rest of an erased glyph can look like another one (a B missing its
// left stroke read as a sure O in a name, which no check digit covers).
// A change between characters a check digit weighs the same (0 and U, 1
// and L…) is no change it vouches for. A first look that found no zone,
// or a zone of another shape (lines fitted short, cutting the zone's
// characters into other cells), has nothing to keep.
func agreesFlattened(first, second *Result) bool {
	if len(first.Lines) != len(second.Lines) || len(first.Confidence) != len(first.Lines) {
		return true
	}
	text := make([][]byte, len(second.Lines))
	for i, l := range second.Lines {
		if len(l) != len(first.Lines[i]) || len(first.Confidence[i]) != len(l) {
			return true
		}
		text[i] = []byte(l)
	}
	covered := map[pos]bool{}
	for _, c := range checkLayout(second.Format, text) {
		for _, p := range c.data {
			covered[p] = true
		}
		covered[c.digit] = true
	}
	for i, l := range first.Lines {
		for k := range len(l) {
			a, b := l[k], text[i][k]
			if a == b || first.Confidence[i][k] < sureProb {
				continue
			}
			if !covered[pos{i, k}] || value(a)%10 == value(b)%10 {
				return false
			}
		}
	}
	return true
}

// crop copies the rectangle c of p.
func crop(p *plane, c image.Rectangle) *plane {
	if c == image.Rect(0, 0, p.w, p.h) {
		return p
	}
	q := newPlane(c.Dx(), c.Dy())
	for y := range q.h {
		copy(q.pix[y*q.w:(y+1)*q.w], p.pix[(c.Min.Y+y)*p.w+c.Min.X:])
	}
	return q
}

// flatten sets each pixel of p by where it lies between the ink's level
// and the paper's around it (r pixels either way), cut at wmLow and
// wmHigh: 0 ink, 255 paper. It keeps two planes the size of p alive.
func flatten(p *plane, r int) *plane {
	ink := newPlane(p.w, p.h)
	copy(ink.pix, p.pix)
	squareFilter(ink, r, false)
	// The paper: the closing, greatest then least.
	out := newPlane(p.w, p.h)
	copy(out.pix, p.pix)
	squareFilter(out, r, true)
	squareFilter(out, r, false)
	inChunks(len(p.pix), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			v, paper := p.pix[i], out.pix[i]
			c := paper - ink.pix[i]
			if c < wmFlat {
				out.pix[i] = 255
				continue
			}
			k := ((paper-v)/c - wmLow) / (wmHigh - wmLow)
			out.pix[i] = 255 * (1 - min(max(k, 0), 1))
		}
	})
	return out
}

// squareFilter sets each pixel of p to the greatest (grow) or
// least value over its (2r+1)² square, by rows then columns (p's pixels
// are replaced, not reused: a third plane lives meanwhile). The least
// is the greatest of the negated values, negated back.
func squareFilter(p *plane, r int, grow bool) {
	if !grow {
		negate(p.pix)
	}
	n := max(p.w, p.h) + 2*r
	inChunks(p.h, func(lo, hi int) {
		a, g, h := make([]float32, n), make([]float32, n), make([]float32, n)
		for y := lo; y < hi; y++ {
			runMax(p.pix[y*p.w:], p.pix[y*p.w:], p.w, 1, r, a, g, h)
		}
	})
	p.pix = colMax(p, r)
	if !grow {
		negate(p.pix)
	}
}

func negate(s []float32) {
	inChunks(len(s), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s[i] = -s[i]
		}
	})
}

// runMax writes to dst the greatest of src over each element's window of
// r either side (cut at the ends), along n elements stride apart, in
// linear time whatever r; src may be dst (it is read whole first) (van Herk and Gil–Werman: the window, as long as
// a block, spans at most two blocks, whose running maxima from the left
// and from the right give its maximum). a, g and h are scratch space of
// at least n + 2r.
func runMax(src, dst []float32, n, stride, r int, a, g, h []float32) {
	w, m := 2*r+1, n+2*r
	for j := range m {
		if j < r || j >= r+n {
			a[j] = float32(math.Inf(-1))
		} else {
			a[j] = src[(j-r)*stride]
		}
	}
	for j := range m {
		if j%w == 0 {
			g[j] = a[j]
		} else {
			g[j] = max(g[j-1], a[j])
		}
	}
	for j := m - 1; j >= 0; j-- {
		if j == m-1 || (j+1)%w == 0 {
			h[j] = a[j]
		} else {
			h[j] = max(h[j+1], a[j])
		}
	}
	for i := range n {
		dst[i*stride] = max(h[i], g[i+2*r])
	}
}

// colMax is the greatest of p over each pixel's column window of r
// either side, by runMax's blocks taken a row at a time (a column at a
// time would read the plane out of cache order).
func colMax(p *plane, r int) []float32 {
	out := make([]float32, len(p.pix))
	// A band of columns per core.
	inChunks(p.w, func(lo, hi int) { colMaxBand(p, r, lo, hi, out) })
	return out
}

// colMaxBand is colMax over columns lo … hi−1 of p, into out.
func colMaxBand(p *plane, r, lo, hi int, out []float32) {
	w, n, cw := 2*r+1, p.h, hi-lo
	m := n + 2*r
	neg := float32(math.Inf(-1))
	// row returns padded row j of the band (the −∞ padding as nil).
	row := func(j int) []float32 {
		if j < r || j >= r+n {
			return nil
		}
		return p.pix[(j-r)*p.w+lo : (j-r)*p.w+hi]
	}
	h := make([]float32, w*cw) // block b's maxima from the right
	g := make([]float32, w*cw) // block b+1's maxima from the left
	for b0 := 0; b0 < n; b0 += w {
		// h over block b (padded rows b0 … b0+w−1), backwards.
		for t := w - 1; t >= 0; t-- {
			dst := h[t*cw : (t+1)*cw]
			src := row(b0 + t)
			switch {
			case t == w-1 || b0+t == m-1:
				if src == nil {
					fill(dst, neg)
				} else {
					copy(dst, src)
				}
			default:
				next := h[(t+1)*cw : (t+2)*cw]
				if src == nil {
					copy(dst, next)
				} else {
					for x, v := range src {
						dst[x] = max(next[x], v)
					}
				}
			}
		}
		// g over block b+1, forwards.
		for t := range w {
			dst := g[t*cw : (t+1)*cw]
			src := row(b0 + w + t)
			switch {
			case t == 0:
				if src == nil {
					fill(dst, neg)
				} else {
					copy(dst, src)
				}
			default:
				prev := g[(t-1)*cw : t*cw]
				if src == nil {
					copy(dst, prev)
				} else {
					for x, v := range src {
						dst[x] = max(prev[x], v)
					}
				}
			}
		}
		// Output rows b0 … b0+w−1: window [i, i+2r] in padded rows.
		for t := 0; t < w && b0+t < n; t++ {
			dst := out[(b0+t)*p.w+lo : (b0+t)*p.w+hi]
			hr := h[t*cw : (t+1)*cw]
			if t == 0 {
				copy(dst, hr)
				continue
			}
			gr := g[(t-1)*cw : t*cw]
			for x := range dst {
				dst[x] = max(hr[x], gr[x])
			}
		}
	}
}

func fill(s []float32, v float32) {
	for i := range s {
		s[i] = v
	}
}
