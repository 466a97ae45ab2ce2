package kyc

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NameProblem says what is wrong with a person's name (one part of it:
// a first or last name, a reviewer's name), or "" when nothing is. A name
// must have a visible character, at most MaxNameLen characters, and no
// control, invisible or text-direction characters: a name made of U+200B
// (zero-width space) or U+202E (right-to-left override) looks blank, or
// reads differently from what is stored, to the reviewer who sees it and
// the matcher that screens it.
//
// Invisible means Unicode's Default_Ignorable_Code_Point: format
// characters (Cf: zero-width space, bidirectional controls, the byte
// order mark, soft hyphen…), Hangul fillers, the combining grapheme
// joiner, variation selectors. Two of them are real spelling and pass:
// ZWNJ and ZWJ (U+200C, U+200D) between two letters or marks (Persian,
// Indic scripts), and a variation selector right after a letter (a
// registered ideograph variant in a Japanese name).
func NameProblem(s string) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "must not be empty"
	case utf8.RuneCountInString(s) > MaxNameLen:
		return fmt.Sprintf("must be at most %d characters", MaxNameLen)
	case !printable(s):
		return "must not contain control characters"
	}
	if r, bad := InvisibleRune(s); bad {
		return fmt.Sprintf("must not contain invisible or text-direction characters (found U+%04X)", r)
	}
	return ""
}

// InvisibleRune returns the first default-ignorable character of s that
// is not allowed in a name where it stands (see NameProblem).
func InvisibleRune(s string) (rune, bool) {
	runes := []rune(s)
	for i, r := range runes {
		if !defaultIgnorable(r) {
			continue
		}
		prev, next := rune(-1), rune(-1)
		if i > 0 {
			prev = runes[i-1]
		}
		if i+1 < len(runes) {
			next = runes[i+1]
		}
		switch {
		case (r == '\u200c' || r == '\u200d') && letterOrMark(prev) && letterOrMark(next):
			continue
		case unicode.Is(unicode.Variation_Selector, r) && prev >= 0 && unicode.IsLetter(prev):
			continue
		}
		return r, true
	}
	return 0, false
}

// defaultIgnorable approximates the derived Default_Ignorable_Code_Point
// property from the tables Go has: Other_Default_Ignorable_Code_Point, the
// format characters and the variation selectors, minus white space.
func defaultIgnorable(r rune) bool {
	if unicode.Is(unicode.White_Space, r) {
		return false
	}
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r)
}

func letterOrMark(r rune) bool { return r >= 0 && (unicode.IsLetter(r) || unicode.IsMark(r)) }
