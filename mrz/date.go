package mrz

import (
	"fmt"
	"time"
)

// birth reads the YYMMDD birth date s, printed at line and column col
// (1-based), into Document.BirthDate's form. Dates are in the past, so
// the century is the latest that does not put the date after r.ref.
func (r *reader) birth(s string, line, col int) string {
	if r.err != nil {
		return ""
	}
	if s == "<<<<<<" {
		return ""
	}
	yy, ok := twoDigits(s[0:2])
	// ICAO 9303-3 lets an unknown day, or day and month, be filled with
	// '<'; some issuers print "00" instead.
	unknown := func(p string) bool { return p == "<<" || p == "00" }
	mm, dd := 0, 0
	if ok && !unknown(s[2:4]) {
		mm, ok = twoDigits(s[2:4])
		ok = ok && mm >= 1 && mm <= 12
	}
	if ok && !unknown(s[4:6]) {
		dd, ok = twoDigits(s[4:6])
		ok = ok && mm != 0 && dd >= 1
	}
	if !ok {
		r.err = dateError(s, line, col)
		return ""
	}
	y := r.ref.Year() - r.ref.Year()%100 + yy
	refDay := r.ref.Year()*10000 + int(r.ref.Month())*100 + r.ref.Day()
	if y*10000+max(mm, 1)*100+max(dd, 1) > refDay {
		y -= 100
	}
	switch {
	case mm == 0:
		return fmt.Sprintf("%04d", y)
	case dd == 0:
		return fmt.Sprintf("%04d-%02d", y, mm)
	case dd > daysIn(y, mm):
		r.err = dateError(s, line, col)
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, mm, dd)
}

// expiry reads the YYMMDD expiry date s, which must be a whole date. The
// century puts the year within 50 years before and 49 after r.ref: a
// document is valid for 10 years at most, and an expired one may be shown
// decades later, but not a century later.
func (r *reader) expiry(s string, line, col int) string {
	if r.err != nil {
		return ""
	}
	yy, ok1 := twoDigits(s[0:2])
	mm, ok2 := twoDigits(s[2:4])
	dd, ok3 := twoDigits(s[4:6])
	y := r.ref.Year() - r.ref.Year()%100 + yy
	switch {
	case y > r.ref.Year()+49:
		y -= 100
	case y < r.ref.Year()-50:
		y += 100
	}
	if !ok1 || !ok2 || !ok3 || mm < 1 || mm > 12 || dd < 1 || dd > daysIn(y, mm) {
		r.err = dateError(s, line, col)
		return ""
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, mm, dd)
}

func twoDigits(s string) (int, bool) {
	if s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return 0, false
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), true
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func dateError(s string, line, col int) *Error {
	return &Error{Code: EDate, Line: line, Column: col, Message: fmt.Sprintf(
		"Line %d, characters %d to %d: %q is not a date (year, month and day, 2 digits each).", line, col, col+5, s)}
}
