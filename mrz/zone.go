package mrz

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// shapes are the sizes an MRZ comes in: lines × characters.
var shapes = []struct{ lines, width int }{{3, 30}, {2, 36}, {2, 44}}

// findZone cleans text up and returns the one block of lines that has the
// size of an MRZ. Blank lines are dropped, and so are other lines around
// the block (an OCR engine reads the print above the zone too), but only
// when exactly one block fits.
func findZone(text string) ([][]rune, error) {
	var lines [][]rune
	for _, raw := range strings.FieldsFunc(text, isBreak) {
		if l := cleanLine(raw); len(l) > 0 {
			lines = append(lines, l)
		}
	}
	// A zone pasted from a form that drops line breaks arrives as one line.
	if len(lines) == 1 {
		for _, s := range shapes {
			if len(lines[0]) == s.lines*s.width {
				one := lines[0]
				lines = nil
				for i := range s.lines {
					lines = append(lines, one[i*s.width:(i+1)*s.width])
				}
				break
			}
		}
	}
	var found [][][]rune
	for _, s := range shapes {
		for i := 0; i+s.lines <= len(lines); i++ {
			block := lines[i : i+s.lines]
			if !slices.ContainsFunc(block, func(l []rune) bool { return len(l) != s.width }) {
				found = append(found, block)
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, &Error{Code: ELayout, Message: layoutMessage(lines)}
	}
	return nil, &Error{Code: ELayout, Message: "The text holds more than one block of lines the size of a machine-readable zone. Enter only the 2 or 3 lines of the zone."}
}

func layoutMessage(lines [][]rune) string {
	const want = "A machine-readable zone has 3 lines of 30 characters (identity cards), 2 lines of 36, or 2 lines of 44 (passports)."
	switch {
	case len(lines) == 0:
		return "The text is empty. " + want
	case len(lines) > 6:
		return fmt.Sprintf("Found %d lines. %s", len(lines), want)
	}
	n := make([]string, len(lines))
	for i, l := range lines {
		n[i] = fmt.Sprint(len(l))
	}
	return fmt.Sprintf("Found %d line(s) of %s characters. %s Count the '<' characters too.", len(lines), strings.Join(n, ", "), want)
}

func isBreak(r rune) bool { return r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' }

// cleanLine upper-cases a line, turns look-alikes of '<' into '<', and
// deals with spaces, which an MRZ never contains. OCR engines insert them
// between characters, so they are dropped; but when dropping them leaves a
// line of no MRZ width while reading each as a filler gives one, the
// applicant typed spaces for the fillers (in a name, say).
//
// Characters the MRZ alphabet lacks are kept: the grammar check reports
// them, with their position, if they are inside the zone.
func cleanLine(raw string) []rune {
	var l []rune
	for _, r := range raw {
		// Full-width forms (from East Asian input methods) to ASCII.
		if r >= '！' && r <= '～' {
			r -= '！' - '!'
		}
		switch {
		case r >= 'a' && r <= 'z':
			l = append(l, r-'a'+'A')
		case r == '«':
			// Smart-typography autocorrect turns a typed "<<" into '«'.
			l = append(l, '<', '<')
		case r == '‹' || r == '〈' || r == '⟨' || r == '˂':
			l = append(l, '<')
		case r == '\u200b' || r == '\u200c' || r == '\u200d' || r == '\ufeff':
			// Zero-width characters and byte-order marks ride along with
			// copied text and are invisible to the applicant.
		case unicode.IsSpace(r):
			l = append(l, ' ')
		default:
			l = append(l, r)
		}
	}
	l = []rune(strings.TrimSpace(string(l)))
	if !slices.Contains(l, ' ') {
		return l
	}
	dropped := slices.DeleteFunc(slices.Clone(l), func(r rune) bool { return r == ' ' })
	if !isWidth(len(dropped)) {
		filled := slices.Clone(l)
		for i, r := range filled {
			if r == ' ' {
				filled[i] = '<'
			}
		}
		if isWidth(len(filled)) {
			return filled
		}
	}
	return dropped
}

func isWidth(n int) bool {
	return slices.ContainsFunc(shapes, func(s struct{ lines, width int }) bool { return s.width == n })
}
