package ocr

import (
	"math"
	"sort"
	"strings"

	"kycd/mrz"
)

// Thresholds of the decoder. A character no check digit covers is taken
// only when the classifier is sure of it; one a check digit covers may be
// less sure if the check digits single it out among the readings the
// classifier finds plausible. All are set from the synthetic validation
// set of tools/mrztrain, never from the evaluation photos.
const (
	// sureProb: least probability of a character no check digit covers.
	sureProb = 0.97
	// strictProb: least probability of every character of a field whose
	// check digit fails, for the zone to be reported as printed with a
	// wrong check digit rather than as unreadable.
	strictProb = 0.995
	// maxNone: most probability of "no character here" in a cell taken.
	maxNone = 0.3
	// altProb: a symbol at least this probable is a reading to consider.
	altProb = 0.003
	// dominance: how many times likelier than every other valid reading
	// the chosen one must be: sureProb's odds, so that a character the
	// check digits vouch for is as sure as one taken on its own.
	dominance = sureProb / (1 - sureProb)
	// maxRepair: how many times less likely than the classifier's own
	// reading a valid reading may be.
	maxRepair = 200.0
	// offClass: weight of a symbol the position's class does not allow
	// (a letter among digits): kept, so that a clear digit in a letters
	// field (a state code some issuer prints as digits) is read as
	// printed, but only when the classifier has no doubt.
	offClass = 1e-3
)

type pos struct{ line, col int }

// cellDist is the classifier's view of one cell after the format's
// character classes are applied.
type cellDist struct {
	q    [len(Alphabet)]float64 // over the 37 symbols, sums to 1
	none float64                // probability of "no character here"
	alts []int                  // symbols with q ≥ altProb, most likely first
}

// decoded is a decoder's outcome for one zone.
type decoded struct {
	format mrz.Format
	lines  []string
	conf   [][]float64 // probability of each character read
	// valid: every check digit holds; sure: every character is taken
	// (sure, or singled out by the check digits).
	valid, sure bool
	// unsure lists the cells that made the reading unsure.
	unsure []pos
	// failing lists the check digits that do not hold (with sure is
	// true: as printed).
	failing []string
	// notZone: the first character is none a zone starts with.
	notZone bool
	// short: the zone's lines are shorter than its document code says
	// (see decode).
	short bool
}

// formatOf tells the layout from the zone's size and its first symbols.
func formatOf(probs [][][]float32) mrz.Format {
	first := func(col int) byte {
		best := 10
		for c := 10; c < 36; c++ {
			if probs[0][col][c] > probs[0][col][best] {
				best = c
			}
		}
		return Alphabet[best]
	}
	switch n := len(probs[0]); {
	case len(probs) == 3:
		return mrz.TD1
	case n == 36 && first(0) == 'V':
		return mrz.MRVB
	case n == 36 && string([]byte{first(0), first(1), first(2), first(3), first(4)}) == "IDFRA":
		return mrz.FRID
	case n == 36:
		return mrz.TD2
	case first(0) == 'V':
		return mrz.MRVA
	}
	return mrz.TD3
}

func allowed(class byte, c byte) bool {
	isL, isD := c >= 'A' && c <= 'Z', c >= '0' && c <= '9'
	switch class {
	case mrz.ClassLetter:
		return isL
	case mrz.ClassAlpha:
		return isL || c == '<'
	case mrz.ClassNumeric:
		return isD || c == '<'
	case mrz.ClassSex:
		return c == 'M' || c == 'F' || c == 'X' || c == '<'
	}
	return true
}

func distOf(p []float32, class byte) cellDist {
	var d cellDist
	var sum float64
	for c := range len(Alphabet) {
		v := float64(p[c])
		// The digit 0 and the letter O are one glyph to the classifier
		// at a small size (see settleZeroes): where the position's class
		// forbids one of them and the classifier is sure the cell is one
		// of the two (as sure as a character taken on its own needs), its
		// probability is the other's. A cell that may also be a B or a D
		// is left as it was: the 0's share must not push an O past them.
		if round := float64(p[indexOf('0')] + p[indexOf('O')]); round >= sureProb {
			switch {
			case Alphabet[c] == 'O' && twinOf0(class) == '0':
				v += float64(p[indexOf('0')])
			case Alphabet[c] == '0' && twinOf0(class) == 'O':
				v += float64(p[indexOf('O')])
			}
		}
		if !allowed(class, Alphabet[c]) {
			v *= offClass
		}
		d.q[c] = v
		sum += v
	}
	d.none = float64(p[None])
	for c := range d.q {
		d.q[c] /= max(sum, 1e-30)
	}
	d.alts = altsOf(&d.q)
	return d
}

// altsOf lists the symbols at least altProb likely, most likely first, at
// most 3 (the likeliest alone when none is).
func altsOf(q *[len(Alphabet)]float64) []int {
	var alts []int
	for c := range q {
		if q[c] >= altProb {
			alts = append(alts, c)
		}
	}
	sort.Slice(alts, func(i, j int) bool { return q[alts[i]] > q[alts[j]] })
	if len(alts) > 3 {
		alts = alts[:3]
	}
	if len(alts) == 0 {
		best := 0
		for c := range q {
			if q[c] > q[best] {
				best = c
			}
		}
		alts = []int{best}
	}
	return alts
}

// decode reads a zone from the classifier's outputs (lines × cells ×
// outputs), never returning as sure a reading that another plausible
// reading could replace.
func decode(probs [][][]float32) *decoded {
	f := formatOf(probs)
	classes := mrz.Classes(f)
	dists := make([][]cellDist, len(probs))
	text := make([][]byte, len(probs))
	for l := range probs {
		dists[l] = make([]cellDist, len(probs[l]))
		text[l] = make([]byte, len(probs[l]))
		for c := range probs[l] {
			dists[l][c] = distOf(probs[l][c], classes[l][c])
			text[l][c] = Alphabet[dists[l][c].alts[0]]
		}
	}
	fillNameEnds(f, dists, text)
	settleZeroes(f, dists, text)
	firstLetter(f, &dists[0][0], text)
	d := &decoded{format: f}
	// ICAO 9303 starts every zone with A, C or I (identity documents), P
	// (passports) or V (visas): a zone that starts otherwise is print that
	// only looks like one.
	first := 0.0
	for _, c := range "ACIPV" {
		first += float64(probs[0][0][indexOf(byte(c))])
	}
	d.notZone = first < 0.5
	// State codes: no check digit covers them, but they come from a list.
	vouched := map[pos]bool{}
	for _, st := range stateFields(f) {
		if resolveState(dists, text, st) {
			for k := range 3 {
				vouched[pos{st.line, st.col + k}] = true
			}
		}
	}
	checks := checkLayout(f, text)
	covered := map[pos]bool{}
	for _, ch := range checks {
		for _, p := range ch.data {
			covered[p] = true
		}
		covered[ch.digit] = true
	}
	// Among the plausible readings of the covered cells, find the two
	// likeliest that pass every check digit.
	sr := search(checks, dists, text)
	switch {
	case sr.found && sr.best >= sr.raw-math.Log(maxRepair):
		for p, c := range sr.choice {
			text[p.line][p.col] = c
		}
		d.valid = true
		d.sure = sr.best-sr.second >= math.Log(dominance)
		if !d.sure {
			for p := range sr.choice {
				if sr.choice[p] != sr.runnerUp[p] {
					d.unsure = append(d.unsure, p)
				}
			}
		}
	default:
		// A valid reading far less likely than the classifier's own is not
		// singled out by the check digits: it is made up to fit them (a
		// zone printed with a wrong digit has such readings too).
		d.sure = true
	}
	// A field whose own check digit holds vouches for its cells when no
	// other plausible reading of them holds too, even if another field
	// (or the composite) fails: a zone printed with one wrong digit is
	// then read as printed, the failing field alone needing certainty.
	for _, ch := range checkLayout(f, text) {
		if ch.field != "composite" && ch.holds(text) && fieldSure(&ch, dists, text) {
			for _, p := range ch.data {
				vouched[p] = true
			}
			vouched[ch.digit] = true
		}
	}
	// Checks as read, for the cells they cover.
	checks = checkLayout(f, text)
	// The cells of failing fields need strictProb: the failure must not be
	// the reader's doing. When some failing field fails in every
	// plausible reading of its cells (every cell's alternatives at least
	// altProb likely), no doubt of the classifier can make the zone
	// valid: the zone is printed wrong whatever those doubts, and the
	// failing fields' cells need only sureProb, as cells no check digit
	// covers do.
	failingCells := map[pos]bool{}
	failNeed := strictProb
	for _, ch := range checks {
		if ch.holds(text) {
			continue
		}
		d.failing = append(d.failing, ch.field)
		if failsSurely(&ch, dists, text) {
			failNeed = sureProb
		}
		for _, p := range ch.data {
			failingCells[p] = true
		}
		failingCells[ch.digit] = true
	}
	// A passport's zone is TD3 (ICAO 9303-4: 2 × 44); a 2 × 36 zone
	// starting with P is a passport's with its lines' ends outside what
	// was read (a page partly out of the frame or under a thumb, a line
	// found short). Its check digits may even hold over the cells read;
	// it is never a reading.
	if f == mrz.TD2 && text[0][0] == 'P' {
		d.short, d.sure = true, false
	}
	d.conf = make([][]float64, len(text))
	for l := range text {
		d.conf[l] = make([]float64, len(text[l]))
		for c := range text[l] {
			dist := &dists[l][c]
			q := dist.q[indexOf(text[l][c])]
			d.conf[l][c] = q
			p := pos{l, c}
			need := sureProb
			switch {
			case vouched[p]:
				need = 0 // its field's check digit or the list of states singles it out
			case failingCells[p]:
				need = failNeed
			case covered[p] && d.valid:
				need = 0 // the check digits single it out
			}
			if q < need || dist.none > maxNone {
				d.sure = false
				d.unsure = append(d.unsure, p)
			}
		}
		d.lines = append(d.lines, string(text[l]))
	}
	return d
}

func indexOf(c byte) int {
	for i := range len(Alphabet) {
		if Alphabet[i] == c {
			return i
		}
	}
	return 0
}

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
