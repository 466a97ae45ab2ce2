package ocr

import (
	"math"
	"time"
)

// A zone found but read with a few characters unsure is often only out
// of focus: its glyphs are there, their strokes run together. It is
// looked at again through deconvolved cells: each line's cells, side by
// side as the line lays them, form a strip of samples, which a few
// Richardson–Lucy iterations with a Gaussian point-spread function undo
// the blur of. The function's width is the zone's own: its cells' edges
// (see cellBlur) against what the edges of a sharp zone measure.

const (
	// sharpBase is what cellBlur measures on a zone in focus (the
	// sampling's own softness and the print's): 0.80 to 0.95 on the
	// generated glare class of bench/mrz, whose photos are not blurred.
	// Only the blur beyond it is undone.
	sharpBase = 0.9
	// minSharpSigma: a blur to undo narrower than this (in cell samples)
	// changes too little to be worth a look.
	minSharpSigma = 0.5
	// maxSharpUnsure: a zone with more unsure characters is damaged
	// beyond what sharpening mends (glyphs merged into bars, glare, a
	// wrong fit); on the generated blur class, sharpening settled zones
	// of at most 5 unsure characters and never one of more than 12.
	maxSharpUnsure = 12
	// rlIters: Richardson–Lucy iterations. Each sharpens further and
	// rings more; ten recover strokes a blur of one to two samples merged.
	rlIters = 10
)

// sharpStrengths are the widths tried, as multiples of the measured one.
var sharpStrengths = []float64{1, 1.4}

// psfSigma is the width, in cell samples along the line, of the Gaussian
// blur to undo in a zone whose cells measure blur (cellBlur).
func psfSigma(blur float64) float64 {
	if blur <= sharpBase {
		return 0
	}
	return math.Sqrt(blur*blur - sharpBase*sharpBase)
}

// sharpLines samples every line of s deconvolved by a Gaussian of sigma
// cell samples along the line (across it, scaled by the cells' aspect)
// and classifies every cell.
func sharpLines(net *Net, py *Pyramid, s *scored, sigma float64) scored {
	return lookAgain(net, py, s, func(l *Line, raw [][]float32) CellSamples {
		// Samples across the line are cellHeightRatio·h/CellH apart,
		// along it pitch/CellW: the same blur spans fewer of the former
		// when the cell is taller than wide.
		sy := sigma
		if p, h := l.Pitch(), l.height(float64(l.N)/2)*cellHeightRatio; p > 0 && h > 0 {
			sy = sigma * (p / CellW) / (h / CellH)
		}
		deconvolveCells(raw, sigma, sy, rlIters)
		return normaliseCells(raw)
	})
}

// lookAgain classifies every cell of s's lines as prep makes them from
// their raw samples.
func lookAgain(net *Net, py *Pyramid, s *scored, prep func(l *Line, raw [][]float32) CellSamples) scored {
	out := scored{lines: s.lines, blur: s.blur, score: s.score}
	raws := make([][][]float32, len(s.lines))
	eachOf(len(s.lines), func(i int) { raws[i] = sampleRaw(py, &s.lines[i]) })
	for i := range s.lines {
		l := &s.lines[i]
		raw := raws[i]
		// A layer's edge is judged on the samples as they are: the
		// deconvolution's ringing is no layer (see cutCells).
		th := make([][3]float32, len(raw))
		for k := range raw {
			th[k] = thirdsDepth(raw[k])
		}
		cs := prep(l, raw)
		out.probs = append(out.probs, forwardAll(net, cs.Cells))
		out.conts = append(out.conts, cs.Contrast)
		out.thirds = append(out.thirds, th)
	}
	return out
}

// deconvolveCells lays the cells (CellH×CellW each) side by side in one
// strip, deconvolves it (Richardson–Lucy, Gaussian PSF of sx samples
// along and sy across) and writes it back into the cells.
func deconvolveCells(cells [][]float32, sx, sy float64, iters int) {
	n := len(cells)
	if n == 0 || (sx <= 0 && sy <= 0) {
		return
	}
	w, h := n*CellW, CellH
	obs := make([]float32, w*h)
	for i, c := range cells {
		for v := range CellH {
			// Gray levels lifted by one: Richardson–Lucy divides by the
			// estimate, and a black sample must not be 0.
			for u := range CellW {
				obs[v*w+i*CellW+u] = c[v*CellW+u] + 1
			}
		}
	}
	kx, ky := gaussKernel(sx), gaussKernel(sy)
	est := append([]float32(nil), obs...)
	blurred := make([]float32, w*h)
	ratio := make([]float32, w*h)
	tmp := make([]float32, w*h)
	for range iters {
		convolve(est, blurred, tmp, w, h, kx, ky)
		for j := range ratio {
			ratio[j] = obs[j] / max(blurred[j], 1e-3)
		}
		convolve(ratio, blurred, tmp, w, h, kx, ky) // the kernel is symmetric
		for j := range est {
			est[j] *= blurred[j]
		}
	}
	for i, c := range cells {
		for v := range CellH {
			for u := range CellW {
				c[v*CellW+u] = est[v*w+i*CellW+u] - 1
			}
		}
	}
}

// gaussKernel is a normalised Gaussian of sigma samples, 3σ either side
// ({1} for sigma 0).
func gaussKernel(sigma float64) []float32 {
	if sigma <= 0 {
		return []float32{1}
	}
	r := int(math.Ceil(3 * sigma))
	k := make([]float32, 2*r+1)
	var s float64
	for i := range k {
		d := float64(i - r)
		v := math.Exp(-d * d / (2 * sigma * sigma))
		k[i] = float32(v)
		s += v
	}
	for i := range k {
		k[i] = float32(float64(k[i]) / s)
	}
	return k
}

// convolve writes src convolved by kx along rows and ky along columns
// into dst (tmp is scratch), the edges repeated beyond the strip. Both
// passes run along rows over contiguous samples, clamping only near the
// ends: this is most of the second look's work. Products are converted
// to float32 before they are summed, as in Net.Forward, so that no
// platform fuses them and the reading is the same on every one.
func convolve(src, dst, tmp []float32, w, h int, kx, ky []float32) {
	rx, ry := len(kx)/2, len(ky)/2
	for y := range h {
		row := src[y*w : (y+1)*w]
		out := tmp[y*w : (y+1)*w]
		for x := range w {
			if x >= rx && x+rx < w {
				win := row[x-rx : x+rx+1]
				var a float32
				for i, k := range kx {
					a += float32(k * win[i])
				}
				out[x] = a
				continue
			}
			var a float32
			for i, k := range kx {
				a += float32(k * row[min(max(x+i-rx, 0), w-1)])
			}
			out[x] = a
		}
	}
	for y := range h {
		out := dst[y*w : (y+1)*w]
		clear(out)
		for i, k := range ky {
			yy := min(max(y+i-ry, 0), h-1)
			in := tmp[yy*w : (yy+1)*w]
			for x, v := range in {
				out[x] += float32(k * v)
			}
		}
	}
}

// secondLooks reads a zone found but not read (full, decoded as r) again
// through deconvolved cells when it is soft (secondLook), then through
// smoothed ones when it is dim (denoiseLook).
func secondLooks(net *Net, py *Pyramid, full *scored, r *Result, base *plane, ref time.Time) *Result {
	if r = secondLook(net, py, full, r, base, ref); r.Status != StatusUnreadable {
		return r
	}
	return denoiseLook(net, py, full, r, base, ref)
}

// secondLook reads a zone found but not read (full, decoded as r)
// again through deconvolved cells, when its cells are softer than a
// sharp zone's and only a few characters kept it from being read: the
// blur's width as measured, then a stronger one (the measure is a
// median over cells, and a glyph's thin strokes suffer more). A reading
// is taken only when it ranks above r and keeps every character r was
// sure of (see agrees); otherwise r stands, with its retake hint.
func secondLook(net *Net, py *Pyramid, full *scored, r *Result, base *plane, ref time.Time) *Result {
	sigma := psfSigma(full.blur)
	if sigma < minSharpSigma || len(r.Unsure) > maxSharpUnsure {
		return r
	}
	best := r
	for _, k := range sharpStrengths {
		sh := sharpLines(net, py, full, sigma*k)
		if r2 := result(&sh, base, ref); rank(r2) > rank(best) && agrees(r, r2) {
			best = r2
		}
		if best.Status == StatusRead {
			break
		}
	}
	return best
}

// agrees tells whether a second look's reading keeps every character the
// first look was sure of: a second look may settle what the first left
// unsure, never overrule it. Two views that contradict each other on a
// clear character are evidence that one of them is wrong (the
// deconvolution rings a D into an O in a noisy cell), and neither is
// taken.
func agrees(first, second *Result) bool {
	if len(first.Lines) != len(second.Lines) {
		return false
	}
	unsure := map[[2]int]bool{}
	for _, p := range first.Unsure {
		unsure[p] = true
	}
	for i, l := range first.Lines {
		if len(l) != len(second.Lines[i]) {
			return false
		}
		for k := range len(l) {
			if l[k] != second.Lines[i][k] && !unsure[[2]int{i, k}] {
				return false
			}
		}
	}
	return true
}
