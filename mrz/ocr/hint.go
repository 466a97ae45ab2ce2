package ocr

import (
	"math"
	"sort"
)

// hint tells why a zone that was found could not be read: cells outside
// the picture, characters too small, washed-out cells (glare), a dim zone
// (little ink against the paper), a page seen at an angle, soft strokes
// (blur), or some unclear characters. contrast and persp are the zone's
// (Result.Contrast, Result.Perspective).
func hint(s *scored, d *decoded, base *plane, contrast, persp float64) Hint {
	for i := range s.lines {
		l := &s.lines[i]
		for _, c := range []float64{0, float64(l.N - 1)} {
			x, y := l.centre(c)
			p := l.Pitch()
			if x < -0.3*p || y < -0.3*p || x > float64(base.w)-0.7*p || y > float64(base.h)-0.7*p {
				return HintCutOff
			}
		}
	}
	if s.lines[0].Pitch() < 5 {
		return HintTooSmall
	}
	var all []float64
	for _, cs := range s.conts {
		for _, c := range cs {
			all = append(all, float64(c))
		}
	}
	med := median(all)
	washed := 0
	for _, p := range d.unsure {
		if float64(s.conts[p.line][p.col]) < 0.45*med {
			washed++
		}
	}
	if washed >= 2 && washed*2 >= len(d.unsure) {
		return HintGlare
	}
	if contrast < minContrast {
		return HintDark
	}
	if persp > maxPerspective {
		return HintTilted
	}
	if len(d.unsure) > 8 || s.blur > maxCellBlur {
		return HintBlurry
	}
	return HintUnclear
}

// minContrast: a zone whose paper is fewer gray levels than this above its
// ink is dim (a dark room, a shadow): the camera's noise and JPEG's
// blocks are then a large part of what the classifier sees, and more
// light is what helps. Printed black on paper a camera sees with 100 to
// 200 levels between them; set from the generated low-light class of
// bench/mrz and the split-A half of the shared photos (see docs/decisions.md).
const minContrast = 45

// maxPerspective: a zone whose character pitch differs by more than this
// fraction between its ends is seen at an angle (or on a bent page): the
// cells at the far end are smaller and their glyphs foreshortened, and
// holding the page flat and face on helps.
const maxPerspective = 0.15

// zoneContrast is the median over the zone's cells of paper minus ink.
func zoneContrast(s *scored) float64 {
	var all []float64
	for _, cs := range s.conts {
		for _, c := range cs {
			all = append(all, float64(c))
		}
	}
	return median(all)
}

// perspective is the largest pitch at an end of a line over the smallest,
// minus 1.
func perspective(lines []Line) float64 {
	lo, hi := math.Inf(1), 0.0
	for i := range lines {
		l := &lines[i]
		for _, c := range []float64{0, float64(l.N - 1)} {
			p := math.Hypot(l.tangent(c))
			lo, hi = min(lo, p), max(hi, p)
		}
	}
	if lo <= 0 || math.IsInf(lo, 1) {
		return 0
	}
	return hi/lo - 1
}

// maxCellBlur: the classifier was trained on lines blurred by up to about
// a fifth of a pitch; past a seventh (2 of a cell's 14 samples) unsure
// characters are put down to blur.
const maxCellBlur = 2.0

// cellBlur estimates the blur of a line's cells, in cell samples: the
// width σ of the Gaussian that would make the steepest step of each cell
// as gentle as it is (a step of height R blurred by σ rises at most
// R/(σ√2π) per sample), the median over cells with ink.
func cellBlur(cells [][]float32) float64 {
	var sig []float64
	for _, c := range cells {
		steep := 0.0
		lo, hi := float32(1), float32(0)
		for v := range CellH {
			row := c[v*CellW : (v+1)*CellW]
			for u := 1; u < CellW-1; u++ {
				steep = max(steep, math.Abs(float64(row[u+1]-row[u-1]))/2)
			}
			for _, x := range row {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
		if hi-lo < 0.5 || steep == 0 {
			continue // a blank or washed-out cell says nothing of blur
		}
		sig = append(sig, float64(hi-lo)/(steep*math.Sqrt(2*math.Pi)))
	}
	return median(sig)
}

// noZoneHint tells what an applicant can do about a photo in which no
// zone was found: lines of print that run off the picture (cut off), two
// or three long bars one above the other where glyphs have blurred into
// each other, or a picture out of focus everywhere (blurry: see
// pictureBlur), or else show the side with the MRZ.
func noZoneHint(cut, bars bool, blur float64) Hint {
	switch {
	case cut:
		return HintCutOff
	case bars || blur > maxPictureBlur:
		return HintBlurry
	}
	return HintNoZone
}

// barStack tells whether some of the bars (blobs many times longer than
// tall) lie one above the other as the lines of a zone do, each about as
// long as the other and starting or ending at the same place: the
// glyphs of an MRZ blurred (by motion, focus) into one blob per line.
func barStack(bars []blob) bool {
	for i := range bars {
		a := &bars[i]
		for j := range bars {
			b := &bars[j]
			if i == j || b.cy <= a.cy {
				continue
			}
			ha, hb := float64(a.h()), float64(b.h())
			wa, wb := float64(a.w()), float64(b.w())
			d := b.cy - a.cy
			if hb/ha > 1.5 || ha/hb > 1.5 || d < 1.15*ha || d > 3.2*ha || wb/wa > 1.3 || wa/wb > 1.3 {
				continue
			}
			if math.Abs(float64(a.x0-b.x0)) < 2*ha || math.Abs(float64(a.x1-b.x1)) < 2*ha {
				return true
			}
		}
	}
	return false
}

// maxPictureBlur: a picture whose sharpest contrasty parts measure more
// than this (pictureBlur, in pixels of the reader's working size) is out
// of focus. A perfect step measures 0.8 (the estimator's floor: a step
// between two pixels); 1.8 is a Gaussian blur of about 1.6 pixels, which
// runs the strokes of small glyphs together. The sharp shared document
// photos measure 0.80 to 1.38, their Gaussian-blurred derivative 2.1.
const maxPictureBlur = 1.8

// pictureBlur estimates how out of focus a picture is: in tiles of
// 16×16 pixels with contrast (a range of at least 48 gray levels), the
// width σ that would make the steepest step as gentle as it is (as
// cellBlur), taken at the 20th percentile: the sharpest parts of a
// picture tell its focus (a document in focus before a blurred
// background is sharp). 0 when no tile has contrast.
func pictureBlur(p *plane) float64 {
	const tile = 16
	var sig []float64
	for ty := 0; ty+tile <= p.h; ty += tile {
		for tx := 0; tx+tile <= p.w; tx += tile {
			lo, hi := float32(255), float32(0)
			for y := ty; y < ty+tile; y++ {
				for _, v := range p.pix[y*p.w+tx : y*p.w+tx+tile] {
					lo, hi = min(lo, v), max(hi, v)
				}
			}
			if hi-lo < 48 {
				// Most of a photo (paper, a table, a wall): its steps,
				// which cost most of the time, are not needed.
				continue
			}
			steep := float32(0)
			for y := ty; y < ty+tile; y++ {
				row := p.pix[y*p.w : (y+1)*p.w]
				for x := tx; x < tx+tile; x++ {
					if x > 0 && x < p.w-1 {
						steep = max(steep, abs32(row[x+1]-row[x-1])/2)
					}
					if y > 0 && y < p.h-1 {
						steep = max(steep, abs32(p.pix[(y+1)*p.w+x]-p.pix[(y-1)*p.w+x])/2)
					}
				}
			}
			if steep == 0 {
				continue
			}
			sig = append(sig, float64(hi-lo)/(float64(steep)*math.Sqrt(2*math.Pi)))
		}
	}
	if len(sig) == 0 {
		return 0
	}
	sort.Float64s(sig)
	return sig[len(sig)/5]
}

func abs32(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}
