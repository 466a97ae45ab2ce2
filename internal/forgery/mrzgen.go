package forgery

import (
	"fmt"
	"strings"

	"kycd/mrz"
)

// Person is a made-up document holder.
type Person struct {
	Surname, Given string
	Number         string // document number, up to 9 characters
	State          string // issuing state and nationality, ICAO code
	Birth, Expiry  string // YYMMDD
	Sex            string // M, F or <
}

// field pads s with fillers to n characters.
func field(s string, n int) string {
	s = strings.ToUpper(strings.ReplaceAll(s, " ", "<"))
	if len(s) > n {
		return s[:n]
	}
	return s + strings.Repeat("<", n-len(s))
}

func cd(s string) string { return string(mrz.CheckDigit(s)) }

// MRZ returns the lines of a valid machine-readable zone of format f
// (TD1, TD2 or TD3) for p, every check digit right.
func MRZ(f mrz.Format, p Person) []string {
	name := field(p.Surname+"<<"+p.Given, map[mrz.Format]int{mrz.TD1: 30, mrz.TD2: 31, mrz.TD3: 39}[f])
	num := field(p.Number, 9)
	switch f {
	case mrz.TD1:
		l1 := "I<" + p.State + num + cd(num) + field("", 15)
		l2 := p.Birth + cd(p.Birth) + p.Sex + p.Expiry + cd(p.Expiry) + p.State + field("", 11)
		comp := l1[5:30] + l2[0:7] + l2[8:15] + l2[18:29]
		return []string{l1, l2 + cd(comp), name}
	case mrz.TD2:
		l2 := num + cd(num) + p.State + p.Birth + cd(p.Birth) + p.Sex + p.Expiry + cd(p.Expiry) + field("", 7)
		comp := l2[0:10] + l2[13:20] + l2[21:35]
		return []string{"I<" + p.State + name, l2 + cd(comp)}
	default:
		pn := field("", 14)
		l2 := num + cd(num) + p.State + p.Birth + cd(p.Birth) + p.Sex + p.Expiry + cd(p.Expiry) + pn + cd(pn)
		comp := l2[0:10] + l2[13:20] + l2[21:43]
		return []string{"P<" + p.State + name, l2 + cd(comp)}
	}
}

// Check parses lines and fails when a check digit is wrong: a forgery
// whose MRZ the reader would reject tests nothing.
func Check(lines []string) error {
	d, err := mrz.ParseLines(lines, refTime)
	if err != nil {
		return err
	}
	if !d.Valid {
		return fmt.Errorf("forgery: invalid MRZ %q", lines)
	}
	return nil
}
