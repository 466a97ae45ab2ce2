package ocr

import (
	"slices"
	"testing"

	"kycd/mrz"
)

// cellsOf makes sure cell distributions for a TD1 zone's lines, then
// applies the overrides (cell → symbol → probability, the rest of the
// mass to the printed symbol).
func cellsOf(lines []string, over map[[2]int]map[byte]float32) ([][]cellDist, [][]byte) {
	classes := mrz.Classes(mrz.TD1)
	probs := zoneProbs(lines, over)
	dists := make([][]cellDist, len(lines))
	text := make([][]byte, len(lines))
	for l := range probs {
		for c := range probs[l] {
			d := distOf(probs[l][c], classes[l][c])
			dists[l] = append(dists[l], d)
			text[l] = append(text[l], Alphabet[d.alts[0]])
		}
	}
	return dists, text
}

// TestSettleZeroes: a 0-or-O cell of optional data between two sure
// digits is the digit 0 when the classifier prefers it; anything else is
// left to the classifier and the check digits.
func TestSettleZeroes(t *testing.T) {
	// The Slovenian card's first line: optional data "180706966505468"
	// from column 15.
	lines := []string{
		"I<SI<09999100180706966505468<<",
		"6606079F0807276SI<<<<<<<<<<<<0",
		"VZOREC<<TINA<<<<<<<<<<<<<<<<<<",
	}
	zero, oh := indexOf('0'), indexOf('O')
	tests := []struct {
		name    string
		lines   []string
		over    map[[2]int]map[byte]float32
		cell    [2]int
		settled bool
	}{
		{name: "between sure digits", over: map[[2]int]map[byte]float32{{0, 15}: {'O': 0.46}}, cell: [2]int{0, 15}, settled: true},
		{name: "classifier prefers O", over: map[[2]int]map[byte]float32{{0, 15}: {'O': 0.6}}, cell: [2]int{0, 15}},
		{name: "a third look-alike", over: map[[2]int]map[byte]float32{{0, 15}: {'O': 0.3, 'D': 0.1}}, cell: [2]int{0, 15}},
		{name: "neighbour unsure", over: map[[2]int]map[byte]float32{{0, 15}: {'O': 0.4}, {0, 16}: {'1': 0.2}}, cell: [2]int{0, 15}},
		{
			name:  "beside a letter",
			lines: []string{"I<SI<09999100180A06966505468<<", lines[1], lines[2]},
			over:  map[[2]int]map[byte]float32{{0, 17}: {'O': 0.4}}, cell: [2]int{0, 17},
		},
		{
			// A document number's cell (alphanumeric too) between digits.
			name: "document number", over: map[[2]int]map[byte]float32{{0, 11}: {'O': 0.3}}, cell: [2]int{0, 11}, settled: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ls := tc.lines
			if ls == nil {
				ls = lines
			}
			dists, text := cellsOf(ls, tc.over)
			before := dists[tc.cell[0]][tc.cell[1]].q
			settleZeroes(mrz.TD1, dists, text)
			after := dists[tc.cell[0]][tc.cell[1]].q
			if tc.settled {
				if after[oh] != 0 || after[zero] < sureProb {
					t.Fatalf("not settled: 0 %.3f O %.3f", after[zero], after[oh])
				}
				return
			}
			if after != before {
				t.Fatalf("changed: 0 %.3f→%.3f O %.3f→%.3f", before[zero], after[zero], before[oh], after[oh])
			}
		})
	}
}

// TestSettleZeroesDecides: two O's in optional data whose check-digit
// weights add up to 10 (3 and 7) leave the composite unchanged, so the
// check digits cannot tell 00 from OO (the Slovenian card): the run of
// digits does. A name's O that the network sees as 0 is an O.
func TestSettleZeroesDecides(t *testing.T) {
	svn := []string{
		"I<SI<09999100180706966505468<<",
		"6606079F0807276SI<<<<<<<<<<<<0",
		"VZOREC<<TINA<<<<<<<<<<<<<<<<<<",
	}
	d := decode(zoneProbs(svn, map[[2]int]map[byte]float32{{0, 15}: {'O': 0.46}, {0, 17}: {'O': 0.12}}))
	if !d.sure || !d.valid || !slices.Equal(d.lines, svn) {
		t.Fatalf("optional data 0s: got %q sure %v valid %v unsure %v", d.lines, d.sure, d.valid, d.unsure)
	}
	// VZOREC's O seen as a 0 with a trace of Q.
	d = decode(zoneProbs(svn, map[[2]int]map[byte]float32{{2, 2}: {'0': 0.97, 'Q': 0.02}}))
	if !d.sure || !slices.Equal(d.lines, svn) {
		t.Fatalf("name O seen as 0: got %q sure %v unsure %v", d.lines, d.sure, d.unsure)
	}
	// Seen as a 0 but with a B in view (a washed-out ALBERTINE's B
	// looked so): the 0's share does not go to the O.
	d = decode(zoneProbs(svn, map[[2]int]map[byte]float32{{2, 2}: {'0': 0.9, 'B': 0.08}}))
	if d.sure {
		t.Fatalf("name O, 0 or B: sure of %q", d.lines)
	}
	// Seen as a Q just as much: no reading.
	d = decode(zoneProbs(svn, map[[2]int]map[byte]float32{{2, 2}: {'0': 0.5, 'Q': 0.45}}))
	if d.sure {
		t.Fatalf("name O or Q: sure of %q", d.lines)
	}
}
