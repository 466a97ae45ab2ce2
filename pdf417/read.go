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
		if !ok {
			continue
		}
		if v, found := patternIndex[p]; found {
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
