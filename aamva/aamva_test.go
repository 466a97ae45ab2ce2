package aamva

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kycd/aamva/aamvatest"
	"kycd/internal/realdata"
)

func TestSharedSamples(t *testing.T) {
	for _, f := range []string{"synth_aamva_v01_public_john_q.expected.txt", "synth_aamva_v10_sample_michael_john.expected.txt"} {
		p := realdata.Path(t, filepath.Join("barcodes", f))
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if c.DocumentNumber == "" || c.FamilyName == "" || c.Issuer.Code != "VA" {
			t.Fatalf("%s: %+v", f, c)
		}
	}
}

func TestEveryVersion(t *testing.T) {
	for v := 1; v <= 10; v++ {
		for _, canada := range []bool{false, true} {
			c, err := Parse([]byte(aamvatest.Record(v, canada)))
			if err != nil {
				t.Fatalf("v%02d canada=%v: %v", v, canada, err)
			}
			p, jur, country := aamvatest.Sample, "VA", "USA"
			if canada {
				p, jur, country = aamvatest.Canadian, "ON", "CAN"
			}
			got := []string{c.DocumentNumber, c.FamilyName, c.FirstName, c.MiddleName, day(c.DateOfBirth), day(c.Expiry), day(c.Issued), c.Issuer.Code, c.Country, c.City, c.Subfile}
			want := []string{p.DocumentNumber, p.Family, p.First, p.Middle, ymd(p.Birth), ymd(p.Expiry), ymd(p.Issue), jur, country, p.City, "DL"}
			if !slices.Equal(got, want) {
				t.Errorf("v%02d canada=%v:\n got %q\nwant %q", v, canada, got, want)
			}
			if c.Version != v || len(c.Quirks) != 0 {
				t.Errorf("v%02d: version %d, quirks %q", v, c.Version, c.Quirks)
			}
		}
	}
}

func ymd(d [3]int) string { return fmt.Sprintf("%04d-%02d-%02d", d[0], d[1], d[2]) }

// TestQuirks: the departures jurisdictions ship are read, and noted.
func TestQuirks(t *testing.T) {
	good := aamvatest.Record(8, false)
	for _, tc := range []struct {
		name, payload, quirk string
	}{
		{"CR separators", strings.Replace(strings.ReplaceAll(good, "\n", "\r"), "@\r", "@\n", 1), "CR element separators"},
		{"CRLF separators", strings.Replace(strings.ReplaceAll(good, "\n", "\r\n"), "@\r\n", "@\n", 1), "CRLF element separators"},
		{"wrong offset", strings.Replace(good, "DL0041", "DL0039", 1), "subfile offset 39"},
		{"offset past the end", strings.Replace(good, "DL0041", "DL9999", 1), "subfile offset 9999"},
		{"wrong length", good[:strings.Index(good, "DL0041")+6] + "0000" + good[strings.Index(good, "DL0041")+10:], "subfile length 0"},
		{"offset missing", strings.Replace(good, "DL0041", "DL0000", 1), "subfile offset 0"},
		{"subfile without its type", strings.Replace(good, "DLDAQ", "DAQ", 1), "subfile without its type"},
		{"no record separator", strings.Replace(good, "@\n\x1e\r", "@\n\r", 1), "no record separator"},
		{"other record separator", strings.Replace(good, "@\n\x1e\r", "@\n\x1c\r", 1), "record separator 0x1c"},
		{"AAMVA file type", strings.Replace(good, "ANSI ", "AAMVA", 1), `file type "AAMVA"`},
		{"CCYYMMDD on a US card", strings.Replace(good, "DBB06061986", "DBB19860606", 1), "DBB date order CCYYMMDD"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.payload))
			if err != nil {
				t.Fatalf("refused: %v\n%q", err, tc.payload)
			}
			if c.DocumentNumber != "T64235789" || c.FamilyName != "SAMPLE" || day(c.DateOfBirth) != "1986-06-06" {
				t.Fatalf("misread: %+v", c)
			}
			found := false
			for _, q := range c.Quirks {
				found = found || strings.HasPrefix(q, tc.quirk)
			}
			if !found {
				t.Fatalf("quirks %q, want %q", c.Quirks, tc.quirk)
			}
		})
	}
}

// TestRefuses: a payload whose header or mandatory fields do not
// validate is refused, never read.
func TestRefuses(t *testing.T) {
	good := aamvatest.Record(10, false)
	mod := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("%q not in the sample", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	for _, tc := range []struct{ name, payload string }{
		{"empty", ""},
		{"no compliance indicator", good[1:]},
		{"not ANSI", mod("ANSI ", "ANSX ")},
		{"unknown IIN", mod("636000", "636099")},
		{"IIN not digits", mod("636000", "63600O")},
		{"version 00", mod("6360001001", "6360000001")},
		{"version 11", mod("6360001001", "6360001101")},
		{"no entries", mod("100102DL", "100100DL")},
		{"truncated header", good[:25]},
		{"bad designator", mod("DL0041", "DL00x1")},
		{"no DL subfile", strings.ReplaceAll(mod("02DL0041", "02XX0041"), "\rDLDAQ", "\rXXDAQ")},
		{"no DAQ", mod("DAQT64235789\n", "")},
		{"DAQ without digits", mod("DAQT64235789", "DAQTABCDEFGH")},
		{"DAQ odd character", mod("DAQT64235789", "DAQT6423578#")},
		{"no family name", mod("DCSSAMPLE", "DCS")},
		{"family name digits", mod("DCSSAMPLE", "DCSSAMPL3")},
		{"no birth date", mod("DBB06061986\n", "")},
		{"no expiry", mod("DBA12102030\n", "")},
		{"month 13", mod("DBB06061986", "DBB13061986")},
		{"31 June", mod("DBB06061986", "DBB06311986")},
		{"short date", mod("DBB06061986", "DBB0606198")},
		{"letters in date", mod("DBB06061986", "DBB06O61986")},
		{"born after expiry", mod("DBB06061986", "DBB06062040")},
		{"issued before birth", mod("DBD06062019", "DBD06061980")},
		{"sex 3", mod("DBC1", "DBC3")},
		{"country mismatch", mod("DCGUSA", "DCGCAN")},
		{"country unknown", mod("DCGUSA", "DCGGBR")},
		{"postal code letters", mod("DAK232690000", "DAK2326A0000")},
		{"truncation Q", mod("DDEN", "DDEQ")},
		{"element id lower case", mod("DAYBRO", "DayBRO")},
		{"duplicate element", mod("DAYBRO", "DAYBRO\nDAYBLU")},
		{"control byte", mod("DAIRICHMOND", "DAIRICH\x01MOND")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse([]byte(tc.payload))
			if err == nil {
				t.Fatalf("accepted: %+v", c)
			}
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v is not ErrFormat", err)
			}
		})
	}
}

// FuzzParse: no input panics, and whatever is accepted holds its
// invariants (a document number, a family name, dates in order, a known
// issuer).
func FuzzParse(f *testing.F) {
	for v := 1; v <= 10; v++ {
		f.Add([]byte(aamvatest.Record(v, v%2 == 0)))
	}
	f.Add([]byte("@\n\x1e\rANSI 636000"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b)
		if err != nil {
			return
		}
		if c.DocumentNumber == "" || c.FamilyName == "" || !c.Expiry.After(c.DateOfBirth) || c.Issuer.Code == "" || c.Version < 1 || c.Version > 10 {
			t.Fatalf("accepted an invalid card: %+v", c)
		}
	})
}
