package ocr

import (
	"math"
	"sort"
)

// searchResult: the likeliest valid reading (its characters at the cells
// where the classifier hesitated), the runner-up, and their
// log-likelihoods, beside that of the classifier's own reading.
type searchResult struct {
	found            bool
	best, second     float64 // second is -Inf when there is no runner-up
	raw              float64
	choice, runnerUp map[pos]byte
}

// option is one reading of a group of hesitant cells.
type option struct {
	ll    float64
	res   int // contribution to the composite check, mod 10
	chars []byte
}

// group is a set of hesitant cells decided together: those of one
// field's check digit, or a lone cell only the composite covers.
type group struct {
	cells []pos
	opts  []option // valid for the group's own check; at most 2 per residue
}

func value(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 0
}

// search finds the two likeliest readings that pass every check digit,
// changing only cells with plausible alternatives. Check digits are
// linear mod 10, so each field's cells are enumerated alone, keeping the
// two best readings per contribution to the composite digit, and a
// dynamic programme over those contributions joins them.
func search(checks []checkSpan, dists [][]cellDist, text [][]byte) searchResult {
	var composite *checkSpan
	var fields []*checkSpan
	for i := range checks {
		if checks[i].field == "composite" {
			composite = &checks[i]
		} else {
			fields = append(fields, &checks[i])
		}
	}
	weight := map[pos]int{} // weight in the composite; the digit itself −1
	if composite != nil {
		for k, p := range composite.data {
			weight[p] = [3]int{7, 3, 1}[k%3]
		}
		weight[composite.digit] = -1
	}
	hesitant := func(p pos) bool { return len(dists[p.line][p.col].alts) > 1 }
	sr := searchResult{second: math.Inf(-1)}
	inField := map[pos]bool{}
	var groups []group
	for _, f := range fields {
		cells := append(append([]pos(nil), f.data...), f.digit)
		var amb []pos
		for _, p := range cells {
			inField[p] = true
			if hesitant(p) {
				amb = append(amb, p)
			}
		}
		g := group{cells: amb}
		enumerate(amb, dists, text, func(ll float64, chars []byte) {
			if !f.holds(text) {
				return
			}
			res := 0
			for i, p := range amb {
				res += weight[p] * value(chars[i])
			}
			g.opts = append(g.opts, option{ll: ll, res: mod10(res), chars: append([]byte(nil), chars...)})
		})
		g.opts = keepTwoPerResidue(g.opts)
		if len(g.opts) == 0 {
			return sr // this field's check cannot hold
		}
		groups = append(groups, g)
	}
	if composite != nil {
		for _, p := range append(append([]pos(nil), composite.data...), composite.digit) {
			if inField[p] || !hesitant(p) {
				continue
			}
			g := group{cells: []pos{p}}
			dist := &dists[p.line][p.col]
			for _, c := range dist.alts {
				ch := Alphabet[c]
				if p == composite.digit && ch == '<' {
					continue
				}
				g.opts = append(g.opts, option{ll: math.Log(dist.q[c]), res: mod10(weight[p] * value(ch)), chars: []byte{ch}})
			}
			groups = append(groups, g)
		}
	}
	for _, g := range groups {
		for _, p := range g.cells {
			d := &dists[p.line][p.col]
			sr.raw += math.Log(d.q[d.alts[0]])
		}
	}
	// The part of the composite sum the hesitant cells do not change.
	target := 0
	if composite != nil {
		if c := text[composite.digit.line][composite.digit.col]; !hesitant(composite.digit) && c == '<' {
			return sr
		}
		fixed := 0
		for p, w := range weight {
			if !hesitantIn(groups, p) {
				fixed += w * value(text[p.line][p.col])
			}
		}
		target = mod10(-fixed)
	}
	// Dynamic programme over the groups: per residue, the two best
	// partial readings.
	type partial struct {
		ll   float64
		pick []int // option index per group
	}
	states := [10][]partial{}
	states[0] = []partial{{}}
	for gi, g := range groups {
		var next [10][]partial
		for r := range 10 {
			for _, st := range states[r] {
				for oi, o := range g.opts {
					nr := r
					if composite != nil {
						nr = mod10(r + o.res)
					}
					pk := append(append([]int(nil), st.pick...), oi)
					next[nr] = append(next[nr], partial{st.ll + o.ll, pk})
				}
			}
		}
		for r := range next {
			sort.Slice(next[r], func(i, j int) bool { return next[r][i].ll > next[r][j].ll })
			if len(next[r]) > 2 {
				next[r] = next[r][:2]
			}
		}
		states = next
		_ = gi
	}
	final := states[target]
	if composite == nil {
		// Without a composite digit every residue is fine: gather all.
		final = nil
		for r := range states {
			final = append(final, states[r]...)
		}
		sort.Slice(final, func(i, j int) bool { return final[i].ll > final[j].ll })
	}
	if len(final) == 0 {
		return sr
	}
	sr.found = true
	sr.best = final[0].ll
	sr.choice = assignment(groups, final[0].pick)
	if len(final) > 1 {
		sr.second = final[1].ll
		sr.runnerUp = assignment(groups, final[1].pick)
	}
	return sr
}

func hesitantIn(groups []group, p pos) bool {
	for _, g := range groups {
		for _, c := range g.cells {
			if c == p {
				return true
			}
		}
	}
	return false
}

func assignment(groups []group, pick []int) map[pos]byte {
	m := map[pos]byte{}
	for gi, g := range groups {
		for k, p := range g.cells {
			m[p] = g.opts[pick[gi]].chars[k]
		}
	}
	return m
}

func mod10(v int) int { return ((v % 10) + 10) % 10 }

// keepTwoPerResidue keeps the two likeliest options of each residue.
func keepTwoPerResidue(opts []option) []option {
	sort.Slice(opts, func(i, j int) bool { return opts[i].ll > opts[j].ll })
	var out []option
	var n [10]int
	for _, o := range opts {
		if n[o.res] < 2 {
			out = append(out, o)
			n[o.res]++
		}
	}
	return out
}

// maxEnum bounds the readings enumerated for one field: past it the
// field is too damaged to single out a reading anyway.
const maxEnum = 20000

// enumerate calls fn for every combination of the alternatives of the
// cells, with text set to it, and restores text.
func enumerate(cells []pos, dists [][]cellDist, text [][]byte, fn func(ll float64, chars []byte)) {
	chars := make([]byte, len(cells))
	count := 0
	var walk func(k int, ll float64)
	walk = func(k int, ll float64) {
		if count >= maxEnum {
			return
		}
		if k == len(cells) {
			count++
			fn(ll, chars)
			return
		}
		p := cells[k]
		d := &dists[p.line][p.col]
		orig := text[p.line][p.col]
		for _, c := range d.alts {
			chars[k] = Alphabet[c]
			text[p.line][p.col] = Alphabet[c]
			walk(k+1, ll+math.Log(d.q[c]))
		}
		text[p.line][p.col] = orig
	}
	walk(0, 0)
}
