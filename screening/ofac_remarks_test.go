package screening

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseOFACRemarks(t *testing.T) {
	for _, tt := range []struct {
		name    string
		remarks string
		want    ofacRemarks
	}{
		{"empty", "", ofacRemarks{}},
		{"full date", "DOB 12 Jan 1960.", ofacRemarks{DOBs: []string{"1960-01-12"}}},
		{"one-digit day", "DOB 2 Jan 1960", ofacRemarks{DOBs: []string{"1960-01-02"}}},
		{"month", "DOB Jan 1960", ofacRemarks{DOBs: []string{"1960-01"}}},
		{"year", "DOB 1960", ofacRemarks{DOBs: []string{"1960"}}},
		{"circa", "DOB circa 1960", ofacRemarks{DOBs: []string{"1959", "1960", "1961"}}},
		{"circa date", "DOB circa 01 Jan 1960", ofacRemarks{DOBs: []string{"1959", "1960", "1961"}}},
		{"circa range", "DOB circa 1979-1981", ofacRemarks{DOBs: []string{"1978", "1979", "1980", "1981", "1982"}}},
		{"year range", "DOB 1958 to 1962", ofacRemarks{DOBs: []string{"1958", "1959", "1960", "1961", "1962"}}},
		{"whole year range", "DOB 01 Jan 1934 to 31 Dec 1934", ofacRemarks{DOBs: []string{"1934"}}},
		{"month range", "DOB 01 Feb 1958 to 28 Feb 1958", ofacRemarks{DOBs: []string{"1958-02"}}},
		{"date range over years", "DOB 08 Nov 1985 to 07 Nov 1986", ofacRemarks{DOBs: []string{"1985", "1986"}}},
		{"month to month", "DOB Mar 1961 to Mar 1962", ofacRemarks{DOBs: []string{"1961", "1962"}}},
		{"same date range", "DOB 01 Jan 1960 to 01 Jan 1960", ofacRemarks{DOBs: []string{"1960-01-01"}}},
		{"too wide a range", "DOB 1900 to 1990", ofacRemarks{}},
		{"inverted range", "DOB 1962 to 1958", ofacRemarks{}},
		{"alt DOBs", "DOB 1938; alt. DOB 1936", ofacRemarks{DOBs: []string{"1938", "1936"}}},
		{"unreadable DOB", "DOB 31 Feb 1960; DOB 1960s; DOB 0960", ofacRemarks{}},
		{"POB", "POB Baghdad, Iraq", ofacRemarks{Countries: []string{"IQ"}}},
		{"POB comma country", "POB Goma, North Kivu, Congo, Democratic Republic of the", ofacRemarks{Countries: []string{"CD"}}},
		{"POB without comma", "POB Khartoum Sudan", ofacRemarks{Countries: []string{"SD"}}},
		{"POB US state", "POB Las Cruces, New Mexico", ofacRemarks{}},
		{"POB city only", "POB Shati.", ofacRemarks{}},
		{"POB note", "POB West Bank (Palestinian Authority)", ofacRemarks{Countries: []string{"PS"}}},
		{"nationality", "nationality Iran; alt. nationality Korea, North", ofacRemarks{Countries: []string{"IR", "KP"}}},
		{"citizen", "citizen Syria; alt. citizen United Kingdom.", ofacRemarks{Countries: []string{"SY", "GB"}}},
		{"region nationality", "nationality Region: Gaza", ofacRemarks{}},
		{"registration nationality", "Nationality of Registration Russia.", ofacRemarks{Countries: []string{"RU"}}},
		{"passport", "Passport A1234 (Iran)", ofacRemarks{Documents: []ofacDocument{{"Passport", "A1234"}}}},
		{"passport dates", "alt. Passport U24492445 (Turkey) expires 31 May 2031",
			ofacRemarks{Documents: []ofacDocument{{"Passport", "U24492445"}}}},
		{"diplomatic passport", "Diplomatic Passport 008827 (Iran) issued 1999",
			ofacRemarks{Documents: []ofacDocument{{"Diplomatic Passport", "008827"}}}},
		{"national id", "National ID No. 17107188340 (Turkey).",
			ofacRemarks{Documents: []ofacDocument{{"National ID No.", "17107188340"}}}},
		{"cedula with dots", "Cedula No. 2.194.575 (Colombia)",
			ofacRemarks{Documents: []ofacDocument{{"Cedula No.", "2.194.575"}}}},
		{"number with spaces", "Passport RL 1794375 (Lebanon).",
			ofacRemarks{Documents: []ofacDocument{{"Passport", "RL 1794375"}}}},
		{"no number", "Passport (Iran); Registration Number pending", ofacRemarks{}},
		{"not a document", "Phone Number 982188526300; SWIFT/BIC HAVIGB2L", ofacRemarks{}},
		{"aka", "a.k.a. 'BNC'.", ofacRemarks{Names: []Name{{"BNC", Weak}}}},
		{"aka with apostrophes", "a.k.a. 'ABU 'ABD'; a.k.a. 'CHAPPORI, Petit'",
			ofacRemarks{Names: []Name{{"ABU 'ABD", Weak}, {"CHAPPORI, Petit", Weak}}}},
		{"fka and nka", "f.k.a. 'OLD NAME LTD.'; n.k.a. 'NEW NAME'",
			ofacRemarks{Names: []Name{{"OLD NAME LTD.", Formerly}, {"NEW NAME", Alias}}}},
		{"empty aka", "a.k.a. ''", ofacRemarks{}},
		{"linked to is not a name", "Linked To: HIZBALLAH.", ofacRemarks{}},
		{"everything", "DOB 31 Aug 1960; alt. DOB circa 1953; POB Al Basuriyah, Lebanon; nationality Lebanon; " +
			"Gender Male; Passport 042833 (Lebanon); a.k.a. 'ABU HADI'; Linked To: HIZBALLAH.",
			ofacRemarks{
				DOBs:      []string{"1960-08-31", "1952", "1953", "1954"},
				Countries: []string{"LB", "LB"},
				Documents: []ofacDocument{{"Passport", "042833"}},
				Names:     []Name{{"ABU HADI", Weak}},
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseOFACRemarks(tt.remarks); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("parseOFACRemarks(%q)\n got %+v\nwant %+v", tt.remarks, got, tt.want)
			}
		})
	}
}

// FuzzOFACRemarks checks that any remarks text parses without panicking
// into well-formed facts.
func FuzzOFACRemarks(f *testing.F) {
	for _, s := range []string{
		"DOB 12 Jan 1960; alt. DOB circa 1962; POB Baghdad, Iraq; nationality Iran; Passport A1234 (Iran); a.k.a. 'X'",
		"DOB 1958 to 1962; DOB circa 1979-1981; DOB 01 Feb 1958 to 28 Feb 1958",
		"POB Goma, Congo, Democratic Republic of the; citizen Korea, North; f.k.a. 'A 'B'.",
		"a.k.a. '; a.k.a. ''; DOB ; POB ,,; Passport (",
		"alt. ; alt. alt. DOB 9999; DOB circa 0001; DOB 1 Jan 1800 to 31 Dec 2199",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := parseOFACRemarks(s)
		for _, d := range r.DOBs {
			if !validDOB(d) {
				t.Fatalf("DOB %q from %q", d, s)
			}
		}
		if len(r.DOBs) > 2*(maxDOBSpan+1)*(strings.Count(s, ";")+1) {
			t.Fatalf("%d DOBs from %q", len(r.DOBs), s)
		}
		for _, c := range r.Countries {
			if !ValidCountryCode(c) {
				t.Fatalf("country %q from %q", c, s)
			}
		}
		for _, d := range r.Documents {
			if d.Type == "" || strings.TrimSpace(d.Number) == "" {
				t.Fatalf("document %+v from %q", d, s)
			}
		}
		for _, n := range r.Names {
			if strings.TrimSpace(n.Full) == "" {
				t.Fatalf("empty name from %q", s)
			}
		}
	})
}
