package ocr

// The check digits of a zone, the cells each covers, and the state codes:
// what the decoder uses to tell a sure reading from a plausible one.

import (
	"math"
	"strings"

	"kycd/mrz"
)

// checkSpan is one check digit and the cells it covers.
type checkSpan struct {
	field string
	data  []pos
	digit pos
	// emptyOK: a field of fillers only may have '<' as its digit (the
	// personal number of TD3).
	emptyOK bool
}

func (c *checkSpan) holds(text [][]byte) bool {
	data := make([]byte, len(c.data))
	empty := true
	for i, p := range c.data {
		data[i] = text[p.line][p.col]
		empty = empty && data[i] == '<'
	}
	found := text[c.digit.line][c.digit.col]
	return mrz.CheckDigit(string(data)) == found || (c.emptyOK && empty && found == '<')
}

func allHold(cs []checkSpan, text [][]byte) bool {
	for i := range cs {
		if !cs[i].holds(text) {
			return false
		}
	}
	return true
}

func span(line, from, to int) []pos {
	var out []pos
	for c := from; c < to; c++ {
		out = append(out, pos{line, c})
	}
	return out
}

func join(ps ...[]pos) []pos {
	var out []pos
	for _, p := range ps {
		out = append(out, p...)
	}
	return out
}

// checkLayout lists the check digits of format f as mrz.Parse reads them,
// given the text (a long TD1 or TD2 document number moves its digit into
// the optional data).
func checkLayout(f mrz.Format, text [][]byte) []checkSpan {
	// docNumber handles the overflow of a long number: '<' in the check
	// position, the rest of the number and its digit in the optional data.
	docNumber := func(line, from, cd, optFrom, optTo int) checkSpan {
		if text[line][cd] == '<' {
			k := optFrom
			for k < optTo && text[line][k] != '<' {
				k++
			}
			if k-optFrom >= 2 {
				return checkSpan{field: "document_number", data: join(span(line, from, cd), span(line, optFrom, k-1)), digit: pos{line, k - 1}}
			}
		}
		return checkSpan{field: "document_number", data: span(line, from, cd), digit: pos{line, cd}}
	}
	switch f {
	case mrz.TD1:
		return []checkSpan{
			docNumber(0, 5, 14, 15, 30),
			{field: "birth_date", data: span(1, 0, 6), digit: pos{1, 6}},
			{field: "expiry_date", data: span(1, 8, 14), digit: pos{1, 14}},
			{field: "composite", data: join(span(0, 5, 30), span(1, 0, 7), span(1, 8, 15), span(1, 18, 29)), digit: pos{1, 29}},
		}
	case mrz.FRID:
		return []checkSpan{
			{field: "document_number", data: span(1, 0, 12), digit: pos{1, 12}},
			{field: "birth_date", data: span(1, 27, 33), digit: pos{1, 33}},
			{field: "composite", data: join(span(0, 0, 36), span(1, 0, 35)), digit: pos{1, 35}},
		}
	}
	cs := []checkSpan{
		{field: "document_number", data: span(1, 0, 9), digit: pos{1, 9}},
		{field: "birth_date", data: span(1, 13, 19), digit: pos{1, 19}},
		{field: "expiry_date", data: span(1, 21, 27), digit: pos{1, 27}},
	}
	switch f {
	case mrz.TD3:
		cs = append(cs,
			checkSpan{field: "personal_number", data: span(1, 28, 42), digit: pos{1, 42}, emptyOK: true},
			checkSpan{field: "composite", data: join(span(1, 0, 10), span(1, 13, 20), span(1, 21, 43)), digit: pos{1, 43}})
	case mrz.TD2:
		cs[0] = docNumber(1, 0, 9, 28, 35)
		cs = append(cs, checkSpan{field: "composite", data: join(span(1, 0, 10), span(1, 13, 20), span(1, 21, 35)), digit: pos{1, 35}})
	}
	return cs
}

// stateFields are the first cells of a format's 3-letter state codes.
func stateFields(f mrz.Format) []pos {
	switch f {
	case mrz.TD1:
		return []pos{{0, 2}, {1, 15}}
	case mrz.FRID:
		return []pos{{0, 2}}
	}
	return []pos{{0, 2}, {1, 10}}
}

// stateCodes are the codes a state field may hold (see mrz.StateCodes).
var stateCodes = mrz.StateCodes()

// resolveState reads the state code at st. The classifier's own reading
// stands when it is sure of it and it is a known code, or when it is
// certain of every character (specimens use codes of their own). Else the
// known code the classifier finds likeliest is taken, if it is much likelier
// than every other known code and not much less likely than the reading
// itself. It reports whether the field is vouched for.
func resolveState(dists [][]cellDist, text [][]byte, st pos) bool {
	raw := string(text[st.line][st.col : st.col+3])
	q := func(k int, c byte) float64 { return dists[st.line][st.col+k].q[indexOf(c)] }
	rawSure, rawStrict := true, true
	var rawLL float64
	for k := range 3 {
		v := q(k, raw[k])
		rawSure = rawSure && v >= sureProb
		rawStrict = rawStrict && v >= strictProb
		rawLL += math.Log(max(v, 1e-12))
	}
	known := false
	best, second := math.Inf(-1), math.Inf(-1)
	bestCode := ""
	for _, code := range stateCodes {
		known = known || code == raw
		var ll float64
		plausible := true
		for k := range 3 {
			v := q(k, code[k])
			plausible = plausible && v >= altProb
			ll += math.Log(max(v, 1e-12))
		}
		switch {
		case ll > best:
			second = best
			if plausible {
				best, bestCode = ll, code
			} else {
				best, bestCode = ll, ""
			}
		case ll > second:
			second = ll
		}
	}
	if rawStrict || (known && rawSure) {
		return true
	}
	if bestCode == "" || best-second < math.Log(dominance) || best < rawLL-math.Log(maxRepair) {
		return false
	}
	copy(text[st.line][st.col:], bestCode)
	return true
}

// fieldSure tells whether the reading of a field whose check digit holds
// is the only plausible one that does: every other combination of its
// cells' alternatives that also holds is at least dominance times less
// likely.
func fieldSure(ch *checkSpan, dists [][]cellDist, text [][]byte) bool {
	var amb []pos
	for _, p := range append(append([]pos(nil), ch.data...), ch.digit) {
		if len(dists[p.line][p.col].alts) > 1 {
			amb = append(amb, p)
		}
	}
	cur := 0.0
	orig := make([]byte, len(amb))
	for i, p := range amb {
		orig[i] = text[p.line][p.col]
		cur += math.Log(dists[p.line][p.col].q[indexOf(orig[i])])
	}
	sure := true
	n := 0
	enumerate(amb, dists, text, func(ll float64, chars []byte) {
		n++
		same := true
		for i := range amb {
			same = same && chars[i] == orig[i]
		}
		if !same && ch.holds(text) && ll > cur-math.Log(dominance) {
			sure = false
		}
	})
	return sure && n < maxEnum
}

// nameField is where a format prints a name: line, first and end column.
type nameField struct{ line, from, to int }

// nameFields are the name fields of each format (the French card's
// surname and given names apart).
func nameFields(f mrz.Format) []nameField {
	switch f {
	case mrz.TD1:
		return []nameField{{2, 0, 30}}
	case mrz.TD2, mrz.MRVB:
		return []nameField{{0, 5, 36}}
	case mrz.TD3, mrz.MRVA:
		return []nameField{{0, 5, 44}}
	case mrz.FRID:
		return []nameField{{0, 5, 30}, {1, 13, 27}}
	}
	return nil
}

// nameEndRun: the fillers in a row that end a name. ICAO 9303 separates
// the primary and secondary identifiers with two fillers and the parts of
// each with one; three in a row can only be the fill after the name.
const nameEndRun = 3

// fillNameEnds applies that rule: past nameEndRun fillers the classifier
// is sure of (each at least 0.9), a name field holds only fillers, so a
// letter there is weighted as a symbol outside its class (offClass): a
// clear letter is still read as printed (and the zone then fails the
// grammar), while a cell the classifier finds hesitant between a filler
// and a look-alike (C, K, a filler cut by the cell's edge) reads as the
// filler it must be.
func fillNameEnds(f mrz.Format, dists [][]cellDist, text [][]byte) {
	lt := indexOf('<')
	for _, nf := range nameFields(f) {
		run := 0
		for c := nf.from; c < nf.to; c++ {
			d := &dists[nf.line][c]
			if run >= nameEndRun {
				var sum float64
				for k := range d.q {
					if k != lt {
						d.q[k] *= offClass
					}
					sum += d.q[k]
				}
				for k := range d.q {
					d.q[k] /= max(sum, 1e-30)
				}
				d.alts = altsOf(&d.q)
				text[nf.line][c] = Alphabet[d.alts[0]]
				continue
			}
			if d.q[lt] >= 0.9 {
				run++
			} else {
				run = 0
			}
		}
	}
}

// failsSurely tells whether a field whose check digit fails as read
// fails in every plausible reading of its cells (every combination of
// their alternatives, all of them enumerated).
func failsSurely(ch *checkSpan, dists [][]cellDist, text [][]byte) bool {
	var amb []pos
	for _, p := range append(append([]pos(nil), ch.data...), ch.digit) {
		if len(dists[p.line][p.col].alts) > 1 {
			amb = append(amb, p)
		}
	}
	holds, n := false, 0
	enumerate(amb, dists, text, func(float64, []byte) {
		n++
		holds = holds || ch.holds(text)
	})
	return !holds && n < maxEnum
}

// firstLetter applies ICAO 9303's document codes to the zone's first
// cell: A, C or I on identity cards (TD1, TD2, the French card), P on
// passports (TD3), V on visas (MRV-A, MRV-B). Another letter is weighted
// as a symbol outside its class (offClass): still read when the
// classifier has no doubt, but a cell torn between I and a look-alike (1,
// L, T) reads as the letter a document can start with.
func firstLetter(f mrz.Format, d *cellDist, text [][]byte) {
	codes := "ACI"
	switch f {
	case mrz.TD3:
		codes = "P"
	case mrz.MRVA, mrz.MRVB:
		codes = "V"
	}
	var sum float64
	for k := range d.q {
		if !strings.ContainsRune(codes, rune(Alphabet[k])) {
			d.q[k] *= offClass
		}
		sum += d.q[k]
	}
	for k := range d.q {
		d.q[k] /= max(sum, 1e-30)
	}
	d.alts = altsOf(&d.q)
	text[0][0] = Alphabet[d.alts[0]]
}
