package mrz

import (
	"strings"
	"time"
)

// reader fills a Document from lines that passed their grammar, so every
// position holds a character of its class. The first date error stops it.
type reader struct {
	ref time.Time
	d   *Document
	err error
}

// td1 reads the TD1 layout of ICAO 9303-5: 3 lines of 30.
func (r *reader) td1() {
	l1, l2, l3 := r.d.Lines[0], r.d.Lines[1], r.d.Lines[2]
	r.head(l1)
	r.document(l1[5:14], l1[14], l1[15:30], true)
	r.d.OptionalData1 = trim(l1[15:30])
	r.d.BirthDate = r.birth(l2[0:6], 2, 1)
	r.check("birth_date", l2[0:6], l2[6])
	r.d.Sex = sexOf(l2[7])
	r.d.ExpiryDate = r.expiry(l2[8:14], 2, 9)
	r.check("expiry_date", l2[8:14], l2[14])
	r.d.Nationality = trim(l2[15:18])
	r.d.OptionalData2 = trim(l2[18:29])
	r.check("composite", l1[5:30]+l2[0:7]+l2[8:15]+l2[18:29], l2[29])
	r.d.Surname, r.d.GivenNames = names(l3)
}

// twoLine reads TD2 (ICAO 9303-6), TD3 (9303-4), MRV-A and MRV-B
// (9303-7), whose second lines share their first 28 positions.
func (r *reader) twoLine() {
	l1, l2 := r.d.Lines[0], r.d.Lines[1]
	r.head(l1)
	r.d.Surname, r.d.GivenNames = names(l1[5:])
	end := len(l2) // end of the optional data
	switch r.d.Format {
	case TD2:
		end = 35
	case TD3:
		end = 42
	}
	// Only TD2 lets a long document number overflow into optional data;
	// passport and visa numbers have at most 9 characters.
	r.document(l2[0:9], l2[9], l2[28:end], r.d.Format == TD2)
	r.d.Nationality = trim(l2[10:13])
	r.d.BirthDate = r.birth(l2[13:19], 2, 14)
	r.check("birth_date", l2[13:19], l2[19])
	r.d.Sex = sexOf(l2[20])
	r.d.ExpiryDate = r.expiry(l2[21:27], 2, 22)
	r.check("expiry_date", l2[21:27], l2[27])
	r.d.OptionalData1 = trim(l2[28:end])
	switch r.d.Format {
	case TD3:
		r.check("personal_number", l2[28:42], l2[42])
		r.check("composite", l2[0:10]+l2[13:20]+l2[21:43], l2[43])
	case TD2:
		r.check("composite", l2[0:10]+l2[13:20]+l2[21:35], l2[35])
	}
}

// frid reads the French identity card of 1994 (see FRID).
func (r *reader) frid() {
	l1, l2 := r.d.Lines[0], r.d.Lines[1]
	r.head(l1)
	r.d.Surname = spaced(l1[5:30])
	r.d.OptionalData1 = trim(l1[30:36])
	r.d.Nationality = "FRA"
	r.d.DocumentNumber = trim(l2[0:12])
	r.check("document_number", l2[0:12], l2[12])
	r.d.GivenNames = spaced(l2[13:27])
	r.d.BirthDate = r.birth(l2[27:33], 2, 28)
	r.check("birth_date", l2[27:33], l2[33])
	r.d.Sex = sexOf(l2[34])
	r.check("composite", l1+l2[0:35], l2[35])
}

// head reads the document code and issuing state of the first line.
func (r *reader) head(l1 string) {
	r.d.DocumentCode = trim(l1[0:2])
	r.d.IssuingState = trim(l1[2:5])
}

// document reads the document number and its check digit. When a TD1 or
// TD2 number is longer than 9 characters, its check-digit position holds
// '<', and the rest of the number follows at the start of the optional
// data, then its check digit, then a filler.
func (r *reader) document(num string, cd byte, opt string, canOverflow bool) {
	tail, _, _ := strings.Cut(opt, "<")
	if !canOverflow || cd != '<' || tail == "" {
		r.d.DocumentNumber = trim(num)
		r.check("document_number", num, cd)
		return
	}
	tail, cd = tail[:len(tail)-1], tail[len(tail)-1]
	r.d.DocumentNumber = trim(num) + tail
	data := num + tail
	// Some Belgian cards (PRADO BEL-BO-03003) compute this digit over the
	// number with the '<' of position 15 kept. ICAO omits it; accept the
	// Belgian reading for Belgian cards only, where it is known. The
	// composite digit still covers every character either way.
	if r.d.IssuingState == "BEL" && CheckDigit(data) != cd && CheckDigit(num+"<"+tail) == cd {
		data = num + "<" + tail
	}
	r.check("document_number", data, cd)
}

// check records the check digit found for data. ICAO 9303-4 lets a
// personal number that is all fillers have '<' as its digit, beside the
// '0' that the computation gives.
func (r *reader) check(field, data string, found byte) {
	want := CheckDigit(data)
	ok := want == found || (field == "personal_number" && found == '<' && trim(data) == "")
	r.d.Checks = append(r.d.Checks, Check{Field: field, Data: data, Expected: want, Found: found, OK: ok})
}

// names splits a name field into primary and secondary identifiers at the
// first "<<".
func names(field string) (surname, given string) {
	s, g, _ := strings.Cut(strings.TrimRight(field, "<"), "<<")
	return spaced(s), spaced(g)
}

// spaced reads each run of fillers as one space.
func spaced(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '<' }), " ")
}

// trim drops the fillers around a field.
func trim(s string) string { return strings.Trim(s, "<") }

func sexOf(c byte) string {
	if c == '<' {
		return "X"
	}
	return string(c)
}
