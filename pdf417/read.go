package pdf417

import "math"

// patternIndex maps a 17-module pattern to its codeword and cluster
// (value | cluster/3 << 10).
var patternIndex = func() map[uint32]uint16 {
	m := make(map[uint32]uint16, 3*929)
	for k := range 3 {
		for v, p := range patterns[k] {
			m[p] = uint16(v) | uint16(k)<<10
		}
	}
	return m
}()

// edgeIndex maps the six edge-to-similar-edge distances of a codeword
// (bar plus following space, space plus following bar, in modules) to
// its codeword and cluster, for the codewords those distances name
// uniquely. Ink spread and blur widen bars and narrow spaces by the same
// amount, which these sums cancel (ISO/IEC 15438 §10, reference decode).
var edgeIndex = func() map[uint32]uint16 {
	m := make(map[uint32]uint16, 3*929)
	dup := map[uint32]bool{}
	for k := range 3 {
		for v, p := range patterns[k] {
			key, ok := edgeKey(moduleWidths(p))
			if !ok {
				continue
			}
			if _, seen := m[key]; seen {
				dup[key] = true
			}
			m[key] = uint16(v) | uint16(k)<<10
		}
	}
	for key := range dup {
		delete(m, key)
	}
	return m
}()

// moduleWidths returns the eight element widths of a pattern.
func moduleWidths(p uint32) [8]int {
	var w [8]int
	e := 0
	for i := 16; i >= 0; i-- {
		if i < 16 && (p>>uint(i)&1) != (p>>uint(i+1)&1) {
			e++
		}
		if e < 8 {
			w[e]++
		}
	}
	return w
}

func edgeKey(w [8]int) (uint32, bool) {
	var key uint32
	for i := range 6 {
		e := w[i] + w[i+1]
		if e < 2 || e > 15 {
			return 0, false
		}
		key = key<<4 | uint32(e)
	}
	return key, true
}

type point struct{ x, y float64 }

// cwRead is one codeword read on one scan line: its column (0 the left
// row indicator, cols+1 the right), value and cluster (0, 1, 2 for 0, 3, 6).
type cwRead struct {
	col, value, cluster int
}

// readLine samples the straight path from p0 (the start pattern's outer
// edge) to p1 (the stop pattern's outer edge), which holds cols data
// codewords, and returns the codewords it can read. Each codeword is found
// by its leading bar edge near where the previous one ended, so pitch
// changes along the line (perspective) are followed.
//
// A compact symbol (§5.11, formerly "truncated") has no right row
// indicator and a one-module stop bar; p1 is then the end of that bar.
func readLine(bm *bitmap, p0, p1 point, cols int, compact bool, buf []byte) ([]cwRead, []byte) {
	mods := float64(symbolModules(cols, compact))
	last := cols + 1
	if compact {
		last = cols
	}
	dx, dy := p1.x-p0.x, p1.y-p0.y
	length := math.Hypot(dx, dy)
	pitch := length / mods // pixels per module
	if pitch < 0.6 {
		return nil, buf
	}
	ds := math.Min(1.0/3, 0.5/pitch) // modules per sample
	n := int((mods + 4) / ds)
	buf = buf[:0]
	for i := range n {
		s := -2 + float64(i)*ds
		f := s / mods
		buf = append(buf, bm.dark(p0.x+dx*f, p0.y+dy*f))
	}
	pos := func(i int) float64 { return -2 + float64(i)*ds }
	// edges[i] is the sample where a run starts; rising[i] tells whether
	// that run is dark.
	var edges []int
	for i := 1; i < len(buf); i++ {
		if buf[i] != buf[i-1] {
			edges = append(edges, i)
		}
	}
	var out []cwRead
	drift := 0.0
	for col := 0; col <= last; col++ {
		want := float64(17*(col+1)) + drift
		best, bestD := -1, 2.0
		for j, e := range edges {
			if buf[e] != 1 {
				continue
			}
			d := math.Abs(pos(e) - want)
			if d < bestD {
				best, bestD = j, d
			}
		}
		if best < 0 || best+8 >= len(edges) {
			continue
		}
		var w [8]float64
		total := 0.0
		for i := range 8 {
			w[i] = float64(edges[best+i+1]-edges[best+i]) * ds
			total += w[i]
		}
		start := pos(edges[best])
		// First the edge-to-similar-edge sums, which blur and ink spread
		// (bars grown, spaces shrunk alike) leave unchanged; then the
		// element widths; then the modules sampled at their centres.
		v, found := uint16(0), false
		if total > 13 && total < 21 {
			var key uint32
			for i := range 6 {
				e := int(math.Round((w[i] + w[i+1]) * 17 / total))
				key = key<<4 | uint32(min(max(e, 0), 15))
			}
			v, found = edgeIndex[key]
		}
		if !found {
			p, ok := patternFromWidths(w, total)
			if !ok && math.Abs(total-17) < 4 {
				p, ok = patternFromSamples(buf, (start+2)/ds, 17/ds)
			}
			if !ok {
				// The edges did not bound one codeword; sample where it should be.
				p, ok = patternFromSamples(buf, (want+2)/ds, 17/ds)
				if ok {
					start = want
				}
			}
			if ok {
				v, found = patternIndex[p]
			}
		}
		if found {
			out = append(out, cwRead{col: col, value: int(v & 1023), cluster: int(v >> 10)})
			drift = start - float64(17*(col+1))
		}
	}
	return out, buf
}

// patternFromWidths rounds eight element widths to a 17-module pattern.
func patternFromWidths(w [8]float64, total float64) (uint32, bool) {
	if total < 13 || total > 21 {
		return 0, false
	}
	var mw [8]int
	sum := 0
	for i, x := range w {
		mw[i] = max(1, int(math.Round(x*17/total)))
		sum += mw[i]
	}
	// Fix the sum on the element whose rounding was furthest off.
	for sum != 17 {
		bi, bd := -1, -1.0
		for i, x := range w {
			exact := x * 17 / total
			d := exact - float64(mw[i])
			if sum > 17 {
				d = -d
			}
			if (sum > 17 && mw[i] == 1) || d <= bd {
				continue
			}
			bi, bd = i, d
		}
		if bi < 0 {
			return 0, false
		}
		if sum > 17 {
			mw[bi]--
			sum--
		} else {
			mw[bi]++
			sum++
		}
	}
	var p uint32
	for i, n := range mw {
		if n > 6 {
			return 0, false
		}
		for range n {
			p = p<<1 | uint32(1-i%2)
		}
	}
	return p, true
}

// patternFromSamples reads 17 modules at their centres, from sample
// index start over span samples.
func patternFromSamples(buf []byte, start, span float64) (uint32, bool) {
	var p uint32
	for i := range 17 {
		j := int(start + (float64(i)+0.5)*span/17)
		if j < 0 || j >= len(buf) {
			return 0, false
		}
		p = p<<1 | uint32(buf[j])
	}
	return p, p>>16 == 1 && p&1 == 0
}

// symbolModules is the width of a row in modules, quiet zones excluded.
func symbolModules(cols int, compact bool) int {
	if compact {
		return 17*(cols+2) + 1
	}
	return 17*(cols+4) + 1
}
