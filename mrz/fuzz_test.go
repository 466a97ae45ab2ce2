package mrz

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var (
	mrzLine = regexp.MustCompile(`^[A-Z0-9<]+$`)
	date    = regexp.MustCompile(`^(\d{4}(-\d\d(-\d\d)?)?)?$`)
)

// FuzzParse: no text makes Parse panic or return anything but a Document
// or an *Error; a Document's check digits are those of the data they name,
// its Valid agrees with them, and parsing its own Lines gives it back.
func FuzzParse(f *testing.F) {
	for _, s := range []string{td3Utopia, td1Utopia, td2Utopia, mrvaUtopia, mrvbUtopia, td1Germany,
		"I<UTOD23145890<7349<<<<<<<<<<<\n3407127M9507122UTO<<<<<<<<<<<2\nSTEVENSON<<PETER<JOHN<<<<<<<<<",
		"I<UTOSTEVENSON<<PETER<JOHN<<<<<<<<<<\nD23145890<UTO3407127M95071227349<<<8",
		"IDBEL000590240<6013<<<<<<<<<<<\n8512017F1311048BEL851201002007\nREINARTZ<<ULRIKE<KATIA<E<<<<<<",
		"IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<\n9409923102854CORINNE<<<<<<<6512068F4",
		"P<UT0ERIK55ON<<ANNA<MAR1A<<<<<<<<<<<<<<<<<<<\nL898902C36UTO740BIZZF12041S9ZE184226B<<<<<1O",
		"p<utoeriksson«anna<maria«««««««««<\nl898902c36uto7408122f1204159ze184226b<<<<<10",
		"", "\n\n", "my passport", strings.Repeat("<", 90),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		d, err := Parse(text, ref)
		if err != nil {
			if d != nil {
				t.Fatalf("both a Document and an error: %v", err)
			}
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if (e.Code != ELayout && e.Code != ECharacter && e.Code != EDate) || e.Message == "" {
				t.Fatalf("error %+v", e)
			}
			return
		}
		width := map[Format]int{TD1: 30, TD2: 36, TD3: 44, MRVA: 44, MRVB: 36, FRID: 36}[d.Format]
		if width == 0 || len(d.Lines) != len(grammars[d.Format]) {
			t.Fatalf("Format %q with %d lines", d.Format, len(d.Lines))
		}
		for _, l := range d.Lines {
			if len(l) != width || !mrzLine.MatchString(l) {
				t.Fatalf("line %q in a %s", l, d.Format)
			}
		}
		valid := true
		for _, c := range d.Checks {
			if c.Expected != CheckDigit(c.Data) {
				t.Fatalf("check %+v: Expected is not CheckDigit(Data) = %c", c, CheckDigit(c.Data))
			}
			empty := c.Field == "personal_number" && c.Found == '<' && strings.Trim(c.Data, "<") == ""
			if c.OK != (c.Expected == c.Found || empty) {
				t.Fatalf("check %+v: OK is wrong", c)
			}
			valid = valid && c.OK
		}
		if d.Valid != valid || len(d.Checks) < 3 {
			t.Fatalf("Valid = %v with checks %+v", d.Valid, d.Checks)
		}
		if !date.MatchString(d.BirthDate) || !date.MatchString(d.ExpiryDate) || len(d.ExpiryDate) != 10 && d.Format != FRID {
			t.Fatalf("dates %q, %q", d.BirthDate, d.ExpiryDate)
		}
		if d.Sex != "M" && d.Sex != "F" && d.Sex != "X" {
			t.Fatalf("Sex %q", d.Sex)
		}
		again, err := ParseLines(d.Lines, ref)
		if err != nil || !reflect.DeepEqual(again, d) {
			t.Fatalf("Parse of its own Lines = %+v, %v\nwant %+v", again, err, d)
		}
	})
}
