package screening

import (
	"encoding/csv"
	"encoding/xml"
	"errors"
	"io"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestCountryCode(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string // "" means not a country
	}{
		{"Iran", "IR"},
		{"Korea, North", "KP"},
		{"Korea, South", "KR"},
		{"Democratic People's Republic of Korea", "KP"},
		{"Iran (Islamic Republic of)", "IR"},
		{"Russian Federation", "RU"},
		{"Syrian Arab Republic", "SY"},
		{"Congo, Democratic Republic of the", "CD"},
		{"Democratic Republic of the Congo", "CD"},
		{"Congo, Republic of the", "CG"},
		{"Burma", "MM"},
		{"Myanmar", "MM"},
		{"Viet Nam", "VN"},
		{"Türkiye", "TR"},
		{"Turkiye", "TR"},
		{"Turkey", "TR"},
		{"United States of America", "US"},
		{"United Kingdom of Great Britain and Northern Ireland", "GB"},
		{"Palestinian", "PS"},
		{"Kosovo", "XK"},
		{"Bahamas, The", "BS"},
		{"The Gambia", "GM"},
		{"Man, Isle of", "IM"},
		{"Virgin Islands, British", "VG"},
		{"China, Hong Kong Special Administrative Region", "HK"},
		{"Macedonia, The Former Yugoslav Republic of", "MK"},
		{"North Macedonia, The Republic of", "MK"},
		{"Saint Kitts and Nevis", "KN"},
		{"St. Kitts & Nevis", "KN"},
		{"Sao Tome and Principe", "ST"},
		{"Cote d Ivoire", "CI"},
		{"Côte d'Ivoire", "CI"},
		{"Bosnia-Herzegovina", "BA"},
		{"  united   KINGDOM ", "GB"},
		{"Cabo Verde", "CV"},
		{"Czech Republic", "CZ"},
		{"ru", "RU"},
		{"Ru", "RU"},
		{"GB", "GB"},
		{"uk", "GB"},
		{"xk", "XK"},
		{"na", "NA"}, // a code; the UN's "na" placeholder is read with countryByName
		{"Region: Gaza", ""},
		{"undetermined", ""},
		{"former Soviet Union", ""},
		{"EU", ""},
		{"ZZ", ""},
		{"the", ""},
		{"", ""},
		{"Atlantis", ""},
	} {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := CountryCode(tt.in)
			if got != tt.want || ok != (tt.want != "") {
				t.Fatalf("CountryCode(%q) = %q, %v, want %q", tt.in, got, ok, tt.want)
			}
		})
	}
	if code, ok := countryByName("na"); ok {
		t.Fatalf(`countryByName("na") = %q, want no country`, code)
	}
}

func TestCountryCodes(t *testing.T) {
	codes := CountryCodes()
	t.Logf("%d country codes", len(codes))
	// ISO 3166-1 has 249 officially assigned codes; CLDR adds XK.
	if len(codes) < 249 || len(codes) > 251 {
		t.Fatalf("%d codes, want about 250", len(codes))
	}
	if !slices.IsSorted(codes) {
		t.Fatal("codes not sorted")
	}
	for _, c := range codes {
		if !ValidCountryCode(c) {
			t.Errorf("ValidCountryCode(%q) = false for a listed code", c)
		}
		if got, ok := CountryCode(c); !ok || got != c {
			t.Errorf("CountryCode(%q) = %q, %v", c, got, ok)
		}
	}
	for _, c := range []string{"XK", "US", "GB", "PS", "TW", "AQ"} {
		if !slices.Contains(codes, c) {
			t.Errorf("%s missing", c)
		}
	}
	for _, c := range []string{"EU", "UN", "ZZ", "UK", "BU", "SU", "YU", "AC", "QO", "us", "U", "USA", ""} {
		if ValidCountryCode(c) {
			t.Errorf("ValidCountryCode(%q) = true", c)
		}
	}
	for name, code := range countryAliases {
		if !ValidCountryCode(code) {
			t.Errorf("alias %q → invalid code %q", name, code)
		}
		if got, ok := countryByName(name); !ok || got != code {
			t.Errorf("alias %q: countryByName = %q, %v, want %q", name, got, ok, code)
		}
	}
}

// TestCountryCodeRealLists maps every distinct country string of the real
// OFAC and UN files with the lookup the importers use, logs what stays
// unmapped and fails when more than a handful of real country names do.
// Values that are not countries at all (regions, placeholders) are logged
// but not counted.
func TestCountryCodeRealLists(t *testing.T) {
	values := map[string]map[string]bool{} // value → where seen
	note := func(where, v string) {
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "."))
		if v == "" || v == "-0-" {
			return
		}
		if values[v] == nil {
			values[v] = map[string]bool{}
		}
		values[v][where] = true
	}
	for _, f := range []string{"ofac_add_2021-07.csv", "ofac_add_2025-12.csv", "ofac_cons_add_2025-12.csv"} {
		for _, rec := range readCSVRows(t, "lists/"+f) {
			note("OFAC add country", rec[4])
		}
	}
	nat := regexp.MustCompile(`(?:^|;)\s*(?:alt\. )?(nationality|citizen) ([^;]*)`)
	for _, f := range []string{"ofac_sdn_2021-07.csv", "ofac_sdn_2024-05-03.csv", "ofac_cons_prim_2025-12.csv"} {
		for _, rec := range readCSVRows(t, "lists/"+f) {
			for _, m := range nat.FindAllStringSubmatch(rec[11], -1) {
				note("OFAC "+m[1], m[2])
			}
			note("OFAC Vess_flag", rec[9])
		}
	}
	for where, v := range unCountryStrings(t) {
		for _, s := range v {
			note(where, s)
		}
	}

	notCountry := func(v string) bool {
		return strings.HasPrefix(v, "Region:") || slices.Contains([]string{"undetermined", "None Identified", "na"}, v)
	}
	var unmapped, regions []string
	for v, where := range values {
		if _, ok := countryByName(v); ok {
			continue
		}
		line := v + " (" + strings.Join(slices.Sorted(maps.Keys(where)), ", ") + ")"
		if notCountry(v) {
			regions = append(regions, line)
		} else {
			unmapped = append(unmapped, line)
		}
	}
	sort.Strings(unmapped)
	sort.Strings(regions)
	t.Logf("%d distinct country strings; not countries, left unmapped: %q", len(values), regions)
	t.Logf("country names left unmapped: %q", unmapped)
	if len(unmapped) > 5 {
		t.Fatalf("%d real country names unmapped; extend countryAliases", len(unmapped))
	}
}

// readCSVRows reads a legacy OFAC file with encoding/csv, independently
// of ParseOFAC, dropping the Ctrl-Z line at its end.
func readCSVRows(t testing.TB, rel string) [][]string {
	t.Helper()
	cr := csv.NewReader(openShared(t, rel))
	cr.FieldsPerRecord = -1
	var out [][]string
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if len(rec) > 1 {
			out = append(out, rec)
		}
	}
}

// unCountryStrings walks the UN XML token by token (not with ParseUN) and
// returns the text of NATIONALITY/VALUE and of COUNTRY in addresses and
// places of birth, by where it was found.
func unCountryStrings(t testing.TB) map[string][]string {
	t.Helper()
	dec := xml.NewDecoder(openShared(t, "lists/un_consolidated_2026-02-27.xml"))
	out := map[string][]string{}
	var stack []string
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			stack = append(stack, tok.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) < 2 {
				continue
			}
			parent, el := stack[len(stack)-2], stack[len(stack)-1]
			if (parent == "NATIONALITY" && el == "VALUE") || el == "COUNTRY" {
				out["UN "+parent+"/"+el] = append(out["UN "+parent+"/"+el], string(tok))
			}
		}
	}
}

// FuzzCountryCode checks that any input maps to a valid code or to none,
// without panicking.
func FuzzCountryCode(f *testing.F) {
	for _, s := range []string{"Korea, North", "Iran (Islamic Republic of)", "ru", "(", ")(", "a, b, c", "Türkiye", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, lookup := range []func(string) (string, bool){CountryCode, countryByName, placeCountry} {
			code, ok := lookup(s)
			if ok != (code != "") || (ok && !ValidCountryCode(code)) {
				t.Fatalf("%q → %q, %v", s, code, ok)
			}
		}
	})
}
