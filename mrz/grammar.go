package mrz

import (
	"fmt"
	"strings"
)

// Character classes of an MRZ position, as ICAO 9303-3 (common
// specifications) and the data-structure table of each format define them.
const (
	letter  = 'L' // a letter: the first character of the document code
	alpha   = 'a' // a letter or '<': codes, states, names
	numeric = 'n' // a digit or '<': dates and check digits
	alnum   = 'x' // a letter, a digit or '<': numbers and optional data
	sex     = 's' // 'M', 'F', 'X' or '<'
)

// grammars give the class of every position of every line, per format.
// Every line 1 starts "Lx": ICAO wants letters in the document code, but
// the United States print a digit second on their TD1 cards ("C1" on the
// permanent resident card, "A3" on the border crossing card), and no
// check digit covers the code, so it is taken as printed.
var grammars = map[Format][]string{
	TD1: {
		"Lx" + rep(alpha, 3) + rep(alnum, 9) + "n" + rep(alnum, 15),
		rep(numeric, 7) + "s" + rep(numeric, 7) + rep(alpha, 3) + rep(alnum, 11) + "n",
		rep(alpha, 30),
	},
	TD2:  {"Lx" + rep(alpha, 34), line2(7) + "n"},
	MRVB: {"Lx" + rep(alpha, 34), line2(8)},
	TD3:  {"Lx" + rep(alpha, 42), line2(14) + "nn"},
	MRVA: {"Lx" + rep(alpha, 42), line2(16)},
	FRID: {
		"Lx" + rep(alpha, 28) + rep(alnum, 6),
		// Issue year and month, office (department and office code),
		// sequence number, check digit, given names, birth date, check
		// digit, sex, composite check digit.
		rep(numeric, 4) + rep(alnum, 8) + "n" + rep(alpha, 14) + rep(numeric, 7) + "sn",
	},
}

// line2 is the second line of TD2, TD3 and the visas up to the end of
// the optional data, which is opt characters long. (TestGrammarWidths
// checks that every grammar line has the width of its format.)
func line2(opt int) string {
	return rep(alnum, 9) + "n" + rep(alpha, 3) + rep(numeric, 7) + "s" + rep(numeric, 7) + rep(alnum, opt)
}

func rep(class byte, n int) string { return strings.Repeat(string(class), n) }

// Common OCR and typing confusions, used only where the grammar leaves no
// doubt which of the two was meant: a digit where only letters may stand,
// a letter where only digits may. Check digits are read this way too: an
// 'O' in a check-digit position is a 0 (a glyph read back), not a digit
// changed to make the check pass.
var (
	asLetter = map[rune]rune{'0': 'O', '1': 'I', '2': 'Z', '5': 'S', '6': 'G', '8': 'B'}
	asDigit  = map[rune]rune{'O': '0', 'Q': '0', 'D': '0', 'I': '1', 'Z': '2', 'S': '5', 'G': '6', 'B': '8'}
)

// applyGrammar maps confusions in place and rejects every character its
// position does not allow.
func applyGrammar(lines [][]rune, g []string) error {
	for i, l := range lines {
		for j, r := range l {
			class := g[i][j]
			isLetter, isDigit := r >= 'A' && r <= 'Z', r >= '0' && r <= '9'
			ok := false
			switch class {
			case letter, alpha:
				if m, found := asLetter[r]; found {
					r, isLetter = m, true
				}
				ok = isLetter || (class == alpha && r == '<')
			case numeric:
				if m, found := asDigit[r]; found {
					r, isDigit = m, true
				}
				ok = isDigit || r == '<'
			case alnum:
				ok = isLetter || isDigit || r == '<'
			case sex:
				ok = r == 'M' || r == 'F' || r == 'X' || r == '<'
			}
			if !ok {
				return &Error{Code: ECharacter, Line: i + 1, Column: j + 1, Message: fmt.Sprintf(
					"Line %d, character %d: %q cannot stand here; this position holds %s.", i+1, j+1, r, classNames[class])}
			}
			l[j] = r
		}
	}
	return nil
}

var classNames = map[byte]string{
	letter:  "a letter",
	alpha:   "a letter or <",
	numeric: "a digit (or <)",
	alnum:   "a letter, a digit or <",
	sex:     "M, F, X or <",
}

// Position classes as Classes reports them.
const (
	ClassLetter  = letter  // a letter
	ClassAlpha   = alpha   // a letter or '<'
	ClassNumeric = numeric // a digit or '<'
	ClassAlnum   = alnum   // a letter, a digit or '<'
	ClassSex     = sex     // 'M', 'F', 'X' or '<'
)

// Classes returns, for each line of format f, the class of each position
// (one of the Class constants), as Parse enforces them. An OCR engine uses
// them to prefer the symbols a position can hold.
func Classes(f Format) []string { return grammars[f] }
