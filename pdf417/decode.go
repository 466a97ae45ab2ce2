// Package pdf417 reads PDF417 symbols (ISO/IEC 15438) from photos and
// scans: the barcode on the back of North American driving licences and
// identity cards. It is written from the symbology specification: the
// start and stop patterns locate a symbol at any quarter turn with
// moderate skew and perspective, the row indicators give its rows,
// columns and correction level, codewords are voted across scan lines,
// Reed–Solomon correction over GF(929) repairs errors and erasures, and
// the text, byte and numeric compaction modes give the message.
package pdf417

import (
	"bytes"
	"image"
	"math"
)

// The working resolution: a first pass shrinks the image so its longer
// side is at most fastSide, which resolves a licence barcode that fills
// a fair part of the photo; when that finds nothing, a second pass works
// at up to fullSide, for a barcode small in a 12-megapixel frame.
const (
	fastSide = 2400
	fullSide = 4100
)

// Decode returns the first symbol read in img.
func Decode(img image.Image) (*Result, error) {
	all, err := decode(img, true)
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// DecodeAll returns every distinct symbol read in img.
func DecodeAll(img image.Image) ([]*Result, error) {
	return decode(img, false)
}

func decode(img image.Image, first bool) ([]*Result, error) {
	b := img.Bounds()
	if b.Dx() < 10 || b.Dy() < 3 {
		return nil, ErrNotFound
	}
	full := toGray(img)
	side := max(b.Dx(), b.Dy())
	fast, slow := (side+fastSide-1)/fastSide, (side+fullSide-1)/fullSide
	grays := []*image.Gray{shrink(full, fast)}
	if slow < fast {
		grays = append(grays, shrink(full, slow))
	}
	binarizers := []func(*image.Gray) *bitmap{binarizeGlobal, binarizeLocal}
	type key struct{ scale, bin, rot int }
	bitmaps := map[key]*bitmap{}
	var get func(k key) *bitmap
	get = func(k key) *bitmap {
		if bm, ok := bitmaps[k]; ok {
			return bm
		}
		var bm *bitmap
		if k.rot == 0 {
			bm = binarizers[k.bin](grays[k.scale])
		} else {
			bm = get(key{k.scale, k.bin, 0}).rotate90()
		}
		bitmaps[k] = bm
		return bm
	}
	var found []*Result
	var lastErr error = ErrNotFound
	tried := map[key]bool{}
	var try func(k key) bool
	try = func(k key) bool {
		tried[k] = true
		res, small, err := decodeBitmap(get(k), first)
		for _, r := range res {
			r.Rotation = (r.Rotation + k.rot) % 4
			if !contains(found, r) {
				found = append(found, r)
			}
		}
		if err != nil {
			lastErr = err
		}
		// Guard patterns of under 2.5 pixels a module on the shrunk
		// image: read the same orientation at the finer scale at once.
		if len(found) == 0 && small && k.scale == 0 && len(grays) > 1 {
			return try(key{1, k.bin, k.rot})
		}
		return len(found) > 0
	}
	// Upright and upside down are read in one bitmap; a quarter turn
	// covers the other two orientations.
	for bin := range binarizers {
		for rot := range 2 {
			if try(key{0, bin, rot}) && first {
				return found, nil
			}
		}
		if len(found) > 0 {
			return found, nil
		}
	}
	for bin := range binarizers {
		for rot := range 2 {
			if k := (key{len(grays) - 1, bin, rot}); !tried[k] && try(k) && first {
				return found, nil
			}
		}
	}
	if len(found) == 0 {
		return nil, lastErr
	}
	return found, nil
}

func contains(rs []*Result, r *Result) bool {
	for _, x := range rs {
		if bytes.Equal(x.Text, r.Text) {
			return true
		}
	}
	return false
}

// decodeBitmap pairs each start-pattern edge with the stop-pattern edges
// beyond it that span the same rows, and reads each pair: first symbols
// that read left to right, then upside-down ones, whose guard patterns
// appear mirrored and swapped.
func decodeBitmap(bm *bitmap, first bool) ([]*Result, bool, error) {
	var out []*Result
	var lastErr error = ErrNotFound
	small := false
	for _, dir := range []float64{1, -1} {
		startP, stopP := startWidths, stopWidths
		outerStart := func(h hit) float64 { return h.x0 }
		outerStop := func(h hit) float64 { return h.x1 }
		if dir < 0 {
			startP, stopP = reversedWidths(startWidths), reversedWidths(stopWidths)
			outerStart, outerStop = outerStop, outerStart
		}
		starts := group(findHits(bm, startP, dir > 0))
		if len(starts) == 0 {
			continue
		}
		stops := group(findHits(bm, stopP, true))
		used := map[*edge]bool{}
		for _, s := range starts[:min(len(starts), 6)] {
			l := fit(s.hits, outerStart)
			small = small || l.m < 2.5
			paired := false
			for _, p := range stops[:min(len(stops), 8)] {
				if used[p] {
					continue
				}
				r := fit(p.hits, outerStop)
				if !facing(l, r, dir) {
					continue
				}
				res, err := readSymbol(bm, l, &r, dir)
				if err != nil {
					lastErr = err
					continue
				}
				used[p], paired = true, true
				if dir < 0 {
					res.Rotation = 2
				}
				out = append(out, res)
				if first {
					return out, small, nil
				}
				break
			}
			if !paired {
				// No stop pattern closed it: perhaps a compact symbol.
				if res, err := readSymbol(bm, l, nil, dir); err == nil {
					if dir < 0 {
						res.Rotation = 2
					}
					out = append(out, res)
					if first {
						return out, small, nil
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, small, lastErr
	}
	return out, small, nil
}

func reversedWidths(p []int) []int {
	r := make([]int, len(p))
	for i, w := range p {
		r[len(p)-1-i] = w
	}
	return r
}

// facing tells whether the stop edge r can close the symbol opened by the
// start edge l: beyond it across the rows (to the right when dir is
// +1), spanning mostly the same rows, with a similar module. Rows are measured along the edges' mean
// direction, not the image's vertical, so a rotated symbol pairs too.
func facing(l, r line, dir float64) bool {
	if r.m > 2*l.m || r.m < l.m/2 {
		return false
	}
	// Under perspective the two edges lean apart; their mean is the
	// direction across the rows.
	a := (l.a + r.a) / 2
	n := math.Hypot(a, 1)
	ux, uy := a/n, 1/n // down the column
	vx, vy := uy, -ux  // across the rows, to the right
	proj := func(x, y float64) (float64, float64) { return x*ux + y*uy, x*vx + y*vy }
	s0, _ := proj(l.a*l.yTop+l.b, l.yTop)
	s1, across0 := proj(l.a*l.yBot+l.b, l.yBot)
	t0, _ := proj(r.a*r.yTop+r.b, r.yTop)
	t1, across1 := proj(r.a*r.yBot+r.b, r.yBot)
	if dir*(across1-across0) < 50*l.m*0.8 {
		return false // a stop pattern left of the start, or too close
	}
	// The two edges span about the same rows; a short run of stop-like
	// bars inside the data is not the symbol's stop pattern. Damage may
	// hide part of an edge, hence the generous ratio.
	short, long := math.Min(s1-s0, t1-t0), math.Max(s1-s0, t1-t0)
	overlap := math.Min(s1, t1) - math.Max(s0, t0)
	return overlap >= 0.5*short && short >= 0.3*long
}
