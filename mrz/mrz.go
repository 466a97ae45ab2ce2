// Package mrz reads the machine-readable zone (MRZ) of passports, identity
// cards and visas, as ICAO Doc 9303 (8th edition, 2021) defines it, and
// verifies its check digits.
//
// The text is untrusted: the applicant types or pastes it in the portal, or
// an OCR engine reads it from a photo. So Parse is lenient about how the
// text is presented and strict about what it says. It accepts lower case,
// stray spaces, blank or noise lines around the zone, the look-alikes of
// '<' that keyboards and OCR produce, and the usual letter/digit confusions
// (O/0, I/1, S/5, B/8, Z/2, G/6), but only in positions whose grammar
// allows letters alone or digits alone, where the intended character is not
// in doubt. It never changes a check digit to make it verify: a digit that
// does not match its field is reported in Document.Checks and makes
// Document.Valid false.
package mrz

import (
	"strings"
	"time"
)

// Format is the layout of an MRZ.
type Format string

// The layouts Parse reads. TD2 and MRVB, and TD3 and MRVA, have the same
// size; a visa is told apart by its document code 'V'.
const (
	TD1  Format = "TD1"  // 3 lines of 30: identity cards, residence permits (ICAO 9303-5)
	TD2  Format = "TD2"  // 2 lines of 36: older identity cards (ICAO 9303-6)
	TD3  Format = "TD3"  // 2 lines of 44: passports (ICAO 9303-4)
	MRVA Format = "MRVA" // 2 lines of 44: visa, format A (ICAO 9303-7); no composite check digit
	MRVB Format = "MRVB" // 2 lines of 36: visa, format B (ICAO 9303-7); no composite check digit
	// FRID is the French national identity card of 1994–2021 ("IDFRA…",
	// 2 lines of 36 in a national, non-ICAO layout). France issued it until
	// 2021 with a validity of up to 15 years, so applicants still hold it.
	// Its MRZ carries no nationality (the card is issued to French citizens
	// only, so Nationality is "FRA") and no expiry date.
	FRID Format = "FRID"
)

// Document is what an MRZ says. Text fields hold the printed characters
// with the filler '<' trimmed from their ends.
type Document struct {
	Format       Format
	DocumentCode string // "P", "PT", "I", "ID", "AC", "IR", "V", "VN"…
	// IssuingState and Nationality are the ICAO codes as printed: mostly
	// ISO 3166-1 alpha-3, but also "D" (Germany), "UTO" (the ICAO test
	// state), "XXA" (stateless)… Alpha2 maps them to ISO alpha-2.
	IssuingState string
	// Surname and GivenNames are the primary and secondary identifiers,
	// split at the first "<<", with each run of '<' read as one space.
	// Either may be empty, and issuers truncate long names without a mark.
	Surname, GivenNames string
	// DocumentNumber joins the overflow when a TD1 or TD2 number is longer
	// than 9 characters (the note on long document numbers in ICAO 9303-5
	// §4.2.2, and its TD2 counterpart in 9303-6).
	DocumentNumber string
	Nationality    string
	// BirthDate is "YYYY-MM-DD", with the century chosen so that the date
	// is not after the reference date given to Parse. ICAO lets an issuer
	// leave the day or the month unknown ("<<"; some print "00"): then it
	// is "YYYY-MM" or "YYYY", and "" when the whole date is unknown.
	BirthDate string
	Sex       string // "M", "F", or "X" for unspecified (printed 'X' or '<')
	// ExpiryDate is "YYYY-MM-DD", with the century chosen so that the year
	// lies within 50 years before and 49 years after the reference date:
	// documents are valid for at most 10 years, and expired ones are read
	// back decades later. It is "" for FRID, whose MRZ has no expiry date.
	ExpiryDate string
	// OptionalData1 is the optional-data field: on TD3 the personal number;
	// on TD1 the field of line 1 and on TD2 that of line 2, either of which
	// begins with the overflow and check digit of a long document number;
	// on visas the field at the end of line 2; on FRID the administrative
	// code. OptionalData2 is the optional field of line 2 of TD1. Fillers
	// inside are kept: issuers use them as separators.
	OptionalData1, OptionalData2 string
	// Lines are the MRZ lines the fields were read from, after clean-up
	// and confusion mapping, to store or to show back to the applicant.
	Lines  []string
	Checks []Check // every check digit, in the order printed
	Valid  bool    // every check in Checks is OK
}

// Check is one check digit and the field it covers. Field is
// "document_number", "birth_date", "expiry_date", "personal_number" (TD3)
// or "composite".
type Check struct {
	Field    string
	Data     string // the characters the digit covers, fillers included
	Expected byte   // CheckDigit(Data)
	Found    byte   // the printed digit; '<' where the issuer left it empty
	OK       bool
}

// maxInput bounds the text Parse looks at. An MRZ is at most 90
// characters; OCR of a whole document page stays well below this.
const maxInput = 8 << 10

// Parse reads the MRZ in text, one line per line of text, and verifies its
// check digits. ref resolves two-digit years (usually the current date;
// it must not be zero).
//
// It returns an *Error, and no Document, only when text is not an MRZ at
// all: code ELayout when no block of lines has the size of an MRZ (or
// several do), ECharacter for a character the MRZ grammar does not allow in
// its position, EDate for a date that is not in the calendar. Failing check
// digits are not errors: see Document.Valid.
func Parse(text string, ref time.Time) (*Document, error) {
	if len(text) > maxInput {
		return nil, &Error{Code: ELayout, Message: "The text is far longer than a machine-readable zone. Enter only its 2 or 3 lines."}
	}
	lines, err := findZone(text)
	if err != nil {
		return nil, err
	}
	f := detect(lines)
	if err := applyGrammar(lines, grammars[f]); err != nil {
		return nil, err
	}
	r := &reader{ref: ref, d: &Document{Format: f}}
	for _, l := range lines {
		r.d.Lines = append(r.d.Lines, string(l))
	}
	switch f {
	case TD1:
		r.td1()
	case FRID:
		r.frid()
	default:
		r.twoLine()
	}
	if r.err != nil {
		return nil, r.err
	}
	r.d.Valid = true
	for _, c := range r.d.Checks {
		r.d.Valid = r.d.Valid && c.OK
	}
	return r.d, nil
}

// ParseLines is Parse for lines that come as a slice (one form field per
// line, say).
func ParseLines(lines []string, ref time.Time) (*Document, error) {
	return Parse(strings.Join(lines, "\n"), ref)
}

// detect tells the format from the size of the zone and its document code.
func detect(lines [][]rune) Format {
	switch len(lines[0]) {
	case 30:
		return TD1
	case 36:
		switch {
		case lines[0][0] == 'V':
			return MRVB
		case string(lines[0][:5]) == "IDFRA":
			// France issued no ICAO TD2 card: a 2×36 "IDFRA" zone is the
			// national 1994 layout.
			return FRID
		}
		return TD2
	}
	if lines[0][0] == 'V' {
		return MRVA
	}
	return TD3
}
