package mrz

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// icaoTranslit are the transliterations of ICAO 9303-3 (Table A of §6.A)
// that are not simply "drop the accent": the recommended ones. Issuers may
// also print the accent dropped (Ä as A, Ø as O): NameForms gives both.
var icaoTranslit = map[rune]string{
	'Ä': "AE", 'Æ': "AE", 'Ǽ': "AE", 'Å': "AA", 'Ö': "OE", 'Ø': "OE", 'Œ': "OE", 'Ü': "UE",
	'ß': "SS", 'ẞ': "SS", 'Þ': "TH", 'Ð': "D", 'Đ': "D", 'Ħ': "H", 'Ĳ': "IJ", 'Ŀ': "L", 'Ł': "L",
	'Ŋ': "N", 'ŉ': "N", 'ĸ': "K", 'Ŧ': "T", 'ı': "I",
}

// accentDropped: the letters of icaoTranslit that issuers also print as
// the bare letter.
var accentDropped = map[rune]string{'Ä': "A", 'Å': "A", 'Ö': "O", 'Ø': "O", 'Ü': "U"}

// NameForms returns the ways an issuer may print a name in an MRZ, most
// recommended first: upper case, the ICAO transliterations (Ä → AE,
// Ø → OE, ß → SS, Þ → TH, Ñ → N) and, as ICAO allows, the plain form with
// the accents dropped (Ä → A, Ø → O); every other character that is not a
// letter (hyphen, apostrophe, space) is a filler, shown as a space. Names
// in other scripts come back as they are: the caller compares them with a
// matcher that knows their Latin forms.
func NameForms(name string) []string {
	up := strings.ToUpper(norm.NFC.String(name))
	var icao, plain strings.Builder
	for _, r := range up {
		if t, ok := icaoTranslit[r]; ok {
			icao.WriteString(t)
			if p, ok := accentDropped[r]; ok {
				plain.WriteString(p)
			} else {
				plain.WriteString(t)
			}
			continue
		}
		f := foldRune(r, "")
		icao.WriteString(f)
		plain.WriteString(f)
	}
	out := []string{spacedName(icao.String())}
	if p := spacedName(plain.String()); p != out[0] {
		out = append(out, p)
	}
	return out
}

// foldRune drops a letter's accents (Ñ → N, É → E); a letter with no
// decomposition takes def's first letter (Ø → O, Æ → A), and a non-letter
// becomes a space.
func foldRune(r rune, def string) string {
	if !unicode.IsLetter(r) {
		return " "
	}
	var b strings.Builder
	for _, d := range norm.NFD.String(string(r)) {
		if unicode.Is(unicode.Mn, d) {
			continue
		}
		b.WriteRune(d)
	}
	s := b.String()
	if s == string(r) && r > unicode.MaxASCII && def != "" {
		return def[:1]
	}
	return s
}

func spacedName(s string) string { return strings.Join(strings.Fields(s), " ") }

// TruncatedName tells whether the name field of a zone is full to its
// last position, so that the issuer may have cut the name short (ICAO
// 9303-3 §4.6: long names are truncated, the last position then holding a
// letter; a single '<' before it may also mean truncation).
func (d *Document) TruncatedName() bool {
	field := ""
	switch d.Format {
	case TD1:
		if len(d.Lines) == 3 {
			field = d.Lines[2]
		}
	case TD2, TD3, MRVA, MRVB:
		if len(d.Lines) >= 1 && len(d.Lines[0]) > 5 {
			field = d.Lines[0][5:]
		}
	case FRID:
		return false
	}
	return field != "" && field[len(field)-1] != '<'
}
