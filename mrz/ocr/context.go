package ocr

import "kycd/mrz"

// The classifier's hardest pair in OCR-B is the digit 0 and the letter O:
// the same oval, the digit a little narrower. In a field that allows
// both (a document number, optional data) no class rule separates them,
// and a check digit does not always either: O counts 24, and two cells
// whose weights add up to 10 (3 and 7) can both flip without changing
// the digit. What a person reading the zone uses then is the run the cell
// stands in: issuers' numbers are runs of digits, and a cell between two
// digits read surely is part of such a run.
//
// settleZeroes takes a cell of such a field as the digit 0 when the
// classifier already prefers 0, the pair {0, O} holds at least sureProb
// of its probability (it is surely one of the two, not a B or a D), and
// the cells on either side are digits read with sureProb. It never
// overrules the classifier: a cell it prefers as O stays as it was, and
// so does one beside a letter, a filler or an unsure cell. The check
// digits are searched afterwards, so a 0 that breaks one is still found.
func settleZeroes(f mrz.Format, dists [][]cellDist, text [][]byte) {
	classes := mrz.Classes(f)
	zero, oh := indexOf('0'), indexOf('O')
	isSureDigit := func(l, c int) bool {
		ch := text[l][c]
		return ch >= '0' && ch <= '9' && dists[l][c].q[indexOf(ch)] >= sureProb
	}
	for l := range text {
		for c := 1; c+1 < len(text[l]); c++ {
			d := &dists[l][c]
			if classes[l][c] != mrz.ClassAlnum || text[l][c] != '0' {
				continue
			}
			if d.q[zero]+d.q[oh] < sureProb || d.q[zero] < d.q[oh] {
				continue
			}
			if !isSureDigit(l, c-1) || !isSureDigit(l, c+1) {
				continue
			}
			d.q[zero] += d.q[oh]
			d.q[oh] = 0
			d.alts = altsOf(&d.q)
		}
	}
}

// twinOf0 says, for a position's class, which of 0 and O it forbids
// while allowing the other: '0' for letters-only positions (O stands for
// a 0 seen there), 'O' for digits-only ones; 0 when both or neither are
// allowed.
func twinOf0(class byte) byte {
	switch class {
	case mrz.ClassLetter, mrz.ClassAlpha:
		return '0'
	case mrz.ClassNumeric:
		return 'O'
	}
	return 0
}
