package mrz

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// ref is the reference date of the tests: birth dates resolve to the
// latest century not after it, expiry dates to 1976…2075.
var ref = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// The ICAO 9303 specimens ("Utopia") and the German identity card.
const (
	td3Utopia  = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"
	td1Utopia  = "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<6\nERIKSSON<<ANNA<MARIA<<<<<<<<<<"
	td2Utopia  = "I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nD231458907UTO7408122F1204159<<<<<<<6"
	mrvaUtopia = "V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL8988901C4XXX4009078F96121096ZE184226B<<<<<<"
	mrvbUtopia = "V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<\nL8988901C4XXX4009078F9612109<<<<<<<<"
	td1Germany = "IDD<<T220001293<<<<<<<<<<<<<<<\n6408125<2010315D<<<<<<<<<<<<<4\nMUSTERMANN<<ERIKA<<<<<<<<<<<<<"
)

// fields is a Document without Lines and Checks, which the cases check
// on their own.
func fields(d *Document) Document {
	c := *d
	c.Lines, c.Checks = nil, nil
	return c
}

// failing lists the fields whose check digit fails.
func failing(d *Document) []string {
	var f []string
	for _, c := range d.Checks {
		if !c.OK {
			f = append(f, c.Field)
		}
	}
	return f
}

func TestParse(t *testing.T) {
	utopia := Document{Format: TD3, DocumentCode: "P", IssuingState: "UTO", Surname: "ERIKSSON", GivenNames: "ANNA MARIA",
		DocumentNumber: "L898902C3", Nationality: "UTO", BirthDate: "1974-08-12", Sex: "F", ExpiryDate: "2012-04-15",
		OptionalData1: "ZE184226B", Valid: true}
	tests := []struct {
		name    string
		text    string
		want    Document
		checks  []string // fields of the check digits, in order
		failing []string
	}{
		{"TD3 ICAO specimen", td3Utopia, utopia,
			[]string{"document_number", "birth_date", "expiry_date", "personal_number", "composite"}, nil},
		{"TD1 ICAO specimen", td1Utopia, Document{Format: TD1, DocumentCode: "I", IssuingState: "UTO", Surname: "ERIKSSON",
			GivenNames: "ANNA MARIA", DocumentNumber: "D23145890", Nationality: "UTO", BirthDate: "1974-08-12", Sex: "F",
			ExpiryDate: "2012-04-15", Valid: true},
			[]string{"document_number", "birth_date", "expiry_date", "composite"}, nil},
		{"TD2 ICAO specimen", td2Utopia, Document{Format: TD2, DocumentCode: "I", IssuingState: "UTO", Surname: "ERIKSSON",
			GivenNames: "ANNA MARIA", DocumentNumber: "D23145890", Nationality: "UTO", BirthDate: "1974-08-12", Sex: "F",
			ExpiryDate: "2012-04-15", Valid: true},
			[]string{"document_number", "birth_date", "expiry_date", "composite"}, nil},
		{"MRV-A ICAO specimen, no composite", mrvaUtopia, Document{Format: MRVA, DocumentCode: "V", IssuingState: "UTO",
			Surname: "ERIKSSON", GivenNames: "ANNA MARIA", DocumentNumber: "L8988901C", Nationality: "XXX",
			BirthDate: "1940-09-07", Sex: "F", ExpiryDate: "1996-12-10", OptionalData1: "6ZE184226B", Valid: true},
			[]string{"document_number", "birth_date", "expiry_date"}, nil},
		{"MRV-B ICAO specimen, no composite", mrvbUtopia, Document{Format: MRVB, DocumentCode: "V", IssuingState: "UTO",
			Surname: "ERIKSSON", GivenNames: "ANNA MARIA", DocumentNumber: "L8988901C", Nationality: "XXX",
			BirthDate: "1940-09-07", Sex: "F", ExpiryDate: "1996-12-10", Valid: true},
			[]string{"document_number", "birth_date", "expiry_date"}, nil},
		{"German identity card: D<<, sex <", td1Germany, Document{Format: TD1, DocumentCode: "ID", IssuingState: "D",
			Surname: "MUSTERMANN", GivenNames: "ERIKA", DocumentNumber: "T22000129", Nationality: "D", BirthDate: "1964-08-12",
			Sex: "X", ExpiryDate: "2020-10-31", Valid: true},
			[]string{"document_number", "birth_date", "expiry_date", "composite"}, nil},
		{"document code with a digit (US cards)", "C1" + td1Utopia[2:], Document{Format: TD1, DocumentCode: "C1",
			IssuingState: "UTO", Surname: "ERIKSSON", GivenNames: "ANNA MARIA", DocumentNumber: "D23145890", Nationality: "UTO",
			BirthDate: "1974-08-12", Sex: "F", ExpiryDate: "2012-04-15", Valid: true},
			[]string{"document_number", "birth_date", "expiry_date", "composite"}, nil},
		{"German passport: empty personal number, check digit <",
			"P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<\nC01X0006H1D<<6408125F1710319<<<<<<<<<<<<<<<0",
			Document{Format: TD3, DocumentCode: "P", IssuingState: "D", Surname: "MUSTERMANN", GivenNames: "ERIKA",
				DocumentNumber: "C01X0006H", Nationality: "D", BirthDate: "1964-08-12", Sex: "F", ExpiryDate: "2017-10-31", Valid: true},
			[]string{"document_number", "birth_date", "expiry_date", "personal_number", "composite"}, nil},
		{"TD1 long document number (ICAO 9303-11 D.2)",
			"I<UTOD23145890<7349<<<<<<<<<<<\n3407127M9507122UTO<<<<<<<<<<<2\nSTEVENSON<<PETER<JOHN<<<<<<<<<",
			Document{Format: TD1, DocumentCode: "I", IssuingState: "UTO", Surname: "STEVENSON", GivenNames: "PETER JOHN",
				DocumentNumber: "D23145890734", Nationality: "UTO", BirthDate: "1934-07-12", Sex: "M", ExpiryDate: "1995-07-12",
				OptionalData1: "7349", Valid: true},
			[]string{"document_number", "birth_date", "expiry_date", "composite"}, nil},
		{"TD2 long document number",
			"I<UTOSTEVENSON<<PETER<JOHN<<<<<<<<<<\nD23145890<UTO3407127M95071227349<<<8",
			Document{Format: TD2, DocumentCode: "I", IssuingState: "UTO", Surname: "STEVENSON", GivenNames: "PETER JOHN",
				DocumentNumber: "D23145890734", Nationality: "UTO", BirthDate: "1934-07-12", Sex: "M", ExpiryDate: "1995-07-12",
				OptionalData1: "7349", Valid: true},
			[]string{"document_number", "birth_date", "expiry_date", "composite"}, nil},
		{"TD1 long number without its check digit",
			"IDAUT000009993<<<<<<<<<<<<<<<<\n7109094F1112315AUT<<<<<<<<<<<0\nMUSTERFRAU<<ISOLDE<<<<<<<<<<<<",
			Document{Format: TD1, DocumentCode: "ID", IssuingState: "AUT", Surname: "MUSTERFRAU", GivenNames: "ISOLDE",
				DocumentNumber: "000009993", Nationality: "AUT", BirthDate: "1971-09-09", Sex: "F", ExpiryDate: "2011-12-31"},
			[]string{"document_number", "birth_date", "expiry_date", "composite"}, []string{"document_number", "composite"}},
		{"Belgian card: number check digit over the number with its <",
			"IDBEL000590240<6013<<<<<<<<<<<\n8512017F1311048BEL851201002007\nREINARTZ<<ULRIKE<KATIA<E<<<<<<",
			Document{Format: TD1, DocumentCode: "ID", IssuingState: "BEL", Surname: "REINARTZ", GivenNames: "ULRIKE KATIA E",
				DocumentNumber: "000590240601", Nationality: "BEL", BirthDate: "1985-12-01", Sex: "F", ExpiryDate: "2013-11-04",
				OptionalData1: "6013", OptionalData2: "85120100200", Valid: true},
			[]string{"document_number", "birth_date", "expiry_date", "composite"}, nil},
		{"the Belgian reading is for Belgian cards only",
			"IDNLD000590240<6013<<<<<<<<<<<\n8512017F1311048NLD851201002007\nREINARTZ<<ULRIKE<KATIA<E<<<<<<",
			Document{Format: TD1, DocumentCode: "ID", IssuingState: "NLD", Surname: "REINARTZ", GivenNames: "ULRIKE KATIA E",
				DocumentNumber: "000590240601", Nationality: "NLD", BirthDate: "1985-12-01", Sex: "F", ExpiryDate: "2013-11-04",
				OptionalData1: "6013", OptionalData2: "85120100200"},
			[]string{"document_number", "birth_date", "expiry_date", "composite"}, []string{"document_number"}},
		{"French identity card 1994",
			"IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<\n9409923102854CORINNE<<<<<<<6512068F4",
			Document{Format: FRID, DocumentCode: "ID", IssuingState: "FRA", Surname: "BERTHIER", GivenNames: "CORINNE",
				DocumentNumber: "940992310285", Nationality: "FRA", BirthDate: "1965-12-06", Sex: "F", Valid: true},
			[]string{"document_number", "birth_date", "composite"}, nil},
		{"no surname", "P<IND<<FIRST<NAME<<<<<<<<<<<<<<<<<<<<<<<<<<<\nC01X0006H1D<<6408125F1710319<<<<<<<<<<<<<<<0",
			Document{Format: TD3, DocumentCode: "P", IssuingState: "IND", GivenNames: "FIRST NAME", DocumentNumber: "C01X0006H",
				Nationality: "D", BirthDate: "1964-08-12", Sex: "F", ExpiryDate: "2017-10-31", Valid: true},
			[]string{"document_number", "birth_date", "expiry_date", "personal_number", "composite"}, nil},
		{"document number check digit altered", strings.Replace(td3Utopia, "C36", "C35", 1),
			func() Document { d := utopia; d.Valid = false; return d }(),
			[]string{"document_number", "birth_date", "expiry_date", "personal_number", "composite"},
			[]string{"document_number", "composite"}},
		{"personal number present, check digit <", strings.Replace(td3Utopia, "B<<<<<10", "B<<<<<<0", 1),
			func() Document { d := utopia; d.Valid = false; return d }(),
			[]string{"document_number", "birth_date", "expiry_date", "personal_number", "composite"},
			[]string{"personal_number", "composite"}},
		{"unknown day and month of birth",
			"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO74<<<<1F1204159ZE184226B<<<<<18",
			func() Document { d := utopia; d.BirthDate = "1974"; return d }(),
			[]string{"document_number", "birth_date", "expiry_date", "personal_number", "composite"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse(tt.text, ref)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := fields(d); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			var checks []string
			for _, c := range d.Checks {
				checks = append(checks, c.Field)
			}
			if !slices.Equal(checks, tt.checks) {
				t.Errorf("checks %v, want %v", checks, tt.checks)
			}
			if got := failing(d); !slices.Equal(got, tt.failing) {
				t.Errorf("failing %v, want %v (%+v)", got, tt.failing, d.Checks)
			}
		})
	}
}

// TestParseCleanUp: the ways an applicant or an OCR engine garbles the TD3
// specimen that Parse undoes, each giving the specimen's own Document.
func TestParseCleanUp(t *testing.T) {
	want, err := Parse(td3Utopia, ref)
	if err != nil {
		t.Fatal(err)
	}
	l1, l2, _ := strings.Cut(td3Utopia, "\n")
	tests := []struct{ name, text string }{
		{"lower case", strings.ToLower(td3Utopia)},
		{"CRLF, blank lines and indentation", "\r\n\n   " + l1 + "  \r\n\t" + l2 + "\r\n\r\n"},
		{"« for <<", "P<UTOERIKSSON«ANNA<MARIA«««««««««<\n" + l2},
		{"‹ and full-width <", strings.ReplaceAll(l1, "<", "‹") + "\n" + strings.ReplaceAll(l2, "<", "＜")},
		{"full-width letters and digits", "Ｐ<ＵＴＯＥＲＩＫＳＳＯＮ<<ＡＮＮＡ<ＭＡＲＩＡ<<<<<<<<<<<<<<<<<<<\n" + l2},
		{"spaces from OCR", "P<UTO ERIKSSON<<ANNA<MARIA <<<<<<<<<<<<<<<<<<<\nL898902C3 6 UTO 740812 2 F 120415 9 ZE184226B<<<<<10"},
		{"spaces typed for fillers", "P<UTOERIKSSON  ANNA MARIA<<<<<<<<<<<<<<<<<<<\n" + l2},
		{"zero-width characters", "\ufeffP<UTOERIKSSON<<ANNA\u200b<MARIA<<<<<<<<<<<<<<<<<<<\n" + l2},
		{"one line, breaks lost", l1 + l2},
		{"one line, breaks turned to a space", l1 + " " + l2},
		{"OCR noise above and below", "PASSPORT  PASSEPORT  UTOPIA\n" + l1 + "\n" + l2 + "\nSignature"},
		{"OCR confusions where the grammar is sure (vector TD3-14)",
			"P<UT0ERIK55ON<<ANNA<MAR1A<<<<<<<<<<<<<<<<<<<\nL898902C36UTO740BIZZF12041S9ZE184226B<<<<<1O"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.text, ref)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
	t.Run("ParseLines", func(t *testing.T) {
		got, err := ParseLines([]string{" " + l1, strings.ToLower(l2)}, ref)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseLines = %+v, %v; want %+v", got, err, want)
		}
	})
}

func TestParseErrors(t *testing.T) {
	l1, l2, _ := strings.Cut(td3Utopia, "\n")
	tests := []struct {
		name      string
		text      string
		code      string
		line, col int
	}{
		{"empty", "", ELayout, 0, 0},
		{"blank lines", "\n \n\t\n", ELayout, 0, 0},
		{"prose", "my passport number is L898902C3", ELayout, 0, 0},
		{"a line short", l1 + "\n" + l2[:43], ELayout, 0, 0},
		{"a line long", l1 + "<\n" + l2, ELayout, 0, 0},
		{"one line only", l1, ELayout, 0, 0},
		{"two zones", td1Utopia + "\n" + td1Germany, ELayout, 0, 0},
		{"three lines of 44", td3Utopia + "\n" + l2, ELayout, 0, 0},
		{"far too long", strings.Repeat(td3Utopia+"\n", 200), ELayout, 0, 0},
		{"diacritic in a name", strings.Replace(td3Utopia, "ERIKSSON", "ERIKSSÖN", 1), ECharacter, 1, 12},
		{"digit in a name that is no look-alike", strings.Replace(td3Utopia, "ANNA", "AN4A", 1), ECharacter, 1, 18},
		{"punctuation", strings.Replace(td3Utopia, "ANNA<MARIA", "ANNA-MARIA", 1), ECharacter, 1, 20},
		{"letter in a date that is no look-alike", strings.Replace(td3Utopia, "740812", "74O8A2", 1), ECharacter, 2, 18},
		{"letter in a check digit that is no look-alike", strings.Replace(td3Utopia, "ZE184226B<<<<<10", "ZE184226B<<<<<1A", 1), ECharacter, 2, 44},
		{"sex not M, F, X or <", strings.Replace(td3Utopia, "2F12", "2W12", 1), ECharacter, 2, 21},
		{"document code starts with <", "<" + td3Utopia[1:], ECharacter, 1, 1},
		{"month 13", strings.Replace(td3Utopia, "740812", "741312", 1), EDate, 2, 14},
		{"30 February", strings.Replace(td3Utopia, "120415", "120230", 1), EDate, 2, 22},
		{"expiry unknown", strings.Replace(td3Utopia, "120415", "<<<<<<", 1), EDate, 2, 22},
		{"day known, month unknown", strings.Replace(td3Utopia, "740812", "74<<12", 1), EDate, 2, 14},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse(tt.text, ref)
			if err == nil {
				t.Fatalf("Parse = %+v, want a %s error", d, tt.code)
			}
			var e *Error
			if !errors.As(err, &e) || e.Code != tt.code || e.Line != tt.line || e.Column != tt.col {
				t.Fatalf("Parse: %v (%+v), want code %s at line %d column %d", err, e, tt.code, tt.line, tt.col)
			}
			if e.Message == "" || !strings.HasPrefix(err.Error(), "mrz: "+tt.code+": ") {
				t.Errorf("error text %q", err)
			}
		})
	}
}

// TestDates: centuries and unknown parts of dates.
func TestDates(t *testing.T) {
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 23, 59, 0, 0, time.UTC) }
	tests := []struct {
		birth bool
		s     string
		ref   time.Time
		want  string // "!" for an error
	}{
		{true, "740812", day(2026, 3, 1), "1974-08-12"},
		{true, "260301", day(2026, 3, 1), "2026-03-01"}, // born on the reference day
		{true, "260302", day(2026, 3, 1), "1926-03-02"}, // a day later would be the future
		{true, "000229", day(2026, 3, 1), "2000-02-29"},
		{true, "000229", day(1999, 12, 31), "!"}, // 1900 was no leap year
		{true, "7408<<", day(2026, 3, 1), "1974-08"},
		{true, "740800", day(2026, 3, 1), "1974-08"},
		{true, "74<<<<", day(2026, 3, 1), "1974"},
		{true, "740000", day(2026, 3, 1), "1974"},
		{true, "26<<<<", day(2026, 3, 1), "2026"},
		{true, "<<<<<<", day(2026, 3, 1), ""},
		{true, "74<<12", day(2026, 3, 1), "!"},
		{true, "7<0812", day(2026, 3, 1), "!"},
		{true, "740132", day(2026, 3, 1), "!"},
		{false, "120415", day(2026, 3, 1), "2012-04-15"},
		{false, "750101", day(2026, 3, 1), "2075-01-01"}, // 49 years ahead
		{false, "751231", day(2026, 3, 1), "2075-12-31"},
		{false, "760101", day(2026, 3, 1), "1976-01-01"}, // 50 years back
		{false, "990101", day(2060, 1, 1), "2099-01-01"},
		{false, "100101", day(2060, 1, 1), "2010-01-01"},
		{false, "090101", day(2060, 1, 1), "2109-01-01"},
		{false, "000229", day(2026, 3, 1), "2000-02-29"},
		{false, "010229", day(2026, 3, 1), "!"},
		{false, "7408<<", day(2026, 3, 1), "!"},
		{false, "740800", day(2026, 3, 1), "!"},
	}
	for _, tt := range tests {
		r := &reader{ref: tt.ref}
		var got string
		if tt.birth {
			got = r.birth(tt.s, 2, 1)
		} else {
			got = r.expiry(tt.s, 2, 1)
		}
		if r.err != nil {
			got = "!"
			if ErrorCode(r.err) != EDate {
				t.Errorf("%q: error %v, want a date error", tt.s, r.err)
			}
		}
		if got != tt.want {
			t.Errorf("birth=%v %q at %s = %q, want %q", tt.birth, tt.s, tt.ref.Format(time.DateOnly), got, tt.want)
		}
	}
}

func TestCheckDigit(t *testing.T) {
	tests := []struct {
		s    string
		want byte
	}{
		{"", '0'},
		{"<<<<<<<<<", '0'},
		{"520727", '3'},    // ICAO 9303-3 Appendix A, example 1
		{"AB2134<<<", '5'}, // example 2
		{"HA672242<658022549601086<<<<<<<<<<<<<<0", '8'}, // example 3
		{"L898902C3", '6'},
		{"D23145890734", '9'},
		{"D23145890<734", '9'},
		{"Z", '5'}, // 35 × 7 = 245
	}
	for _, tt := range tests {
		if got := CheckDigit(tt.s); got != tt.want {
			t.Errorf("CheckDigit(%q) = %c, want %c", tt.s, got, tt.want)
		}
	}
}

// TestGrammarWidths: every grammar line is as wide as its format's lines.
func TestGrammarWidths(t *testing.T) {
	width := map[Format]int{TD1: 30, TD2: 36, TD3: 44, MRVA: 44, MRVB: 36, FRID: 36}
	for f, g := range grammars {
		for i, l := range g {
			if len(l) != width[f] {
				t.Errorf("%s line %d: grammar of %d positions, want %d", f, i+1, len(l), width[f])
			}
		}
	}
}
