package ocr

import (
	"cmp"
	"math"
	"slices"
	"sort"

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
			// In reading order, not the map's.
			slices.SortFunc(d.unsure, func(a, b pos) int {
				return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col))
			})
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
