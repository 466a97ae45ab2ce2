package screening

import (
	"slices"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
	"golang.org/x/text/unicode/norm"
)

// CountryCode maps a country as watch lists spell it ("Korea, North",
// "Iran (Islamic Republic of)", "Türkiye", "ru") to its ISO 3166-1 alpha-2
// code, upper case. It accepts any valid alpha-2 code in any case, the
// English CLDR name of every country, and the spellings of countryAliases.
// Matching ignores case, accents, punctuation, extra spaces and the words
// "the", "and" and "of"; "X, Y" is also tried as "Y X", and a parenthesised
// part is tried both dropped and alone. It returns false for anything else,
// including regions ("Region: Gaza"), former states ("USSR") and
// placeholders ("undetermined").
//
// Fields that hold names only should use countryByName instead: the UN
// list writes "na" (not available) as a nationality, which as a code would
// be Namibia.
func CountryCode(name string) (string, bool) {
	s := strings.TrimSpace(name)
	if len(s) == 2 {
		if code := strings.ToUpper(s); ValidCountryCode(code) {
			return code, true
		}
	}
	return countryByName(s)
}

// CountryCodes returns the codes CountryCode can return, sorted: the ISO
// 3166-1 alpha-2 codes CLDR knows as current countries and territories,
// plus XK (Kosovo), which lists use although ISO has not assigned it.
func CountryCodes() []string {
	return slices.Clone(countryTable().codes)
}

// ValidCountryCode reports whether code is one of CountryCodes: two
// upper-case letters naming a current country or territory.
func ValidCountryCode(code string) bool {
	if len(code) != 2 || code[0] < 'A' || code[0] > 'Z' || code[1] < 'A' || code[1] > 'Z' {
		return false
	}
	_, ok := slices.BinarySearch(countryTable().codes, code)
	return ok
}

// countryByName maps a country name (never a bare code) to its code; see
// CountryCode for what it accepts.
func countryByName(name string) (string, bool) {
	t := countryTable()
	lookup := func(s string) (string, bool) {
		key := countryKey(s)
		code, ok := t.names[key]
		return code, ok && key != ""
	}
	if code, ok := lookup(name); ok {
		return code, true
	}
	// OFAC and US sources sort by the main word: "Korea, North",
	// "Congo, Democratic Republic of the", "Man, Isle of".
	if head, tail, ok := strings.Cut(name, ","); ok && !strings.Contains(tail, ",") {
		if code, ok := lookup(tail + " " + head); ok {
			return code, true
		}
	}
	// UN style "Iran (Islamic Republic of)" and place notes such as
	// "Tunisi (Tunisia)" or "West Bank (Palestinian Authority)".
	if open := strings.IndexByte(name, '('); open >= 0 {
		if n := strings.IndexByte(name[open:], ')'); n > 0 {
			if code, ok := lookup(name[:open] + " " + name[open+n+1:]); ok {
				return code, true
			}
			return lookup(name[open+1 : open+n])
		}
	}
	return "", false
}

// countryAliases are the spellings the real lists use that CLDR's English
// names do not cover, gathered from OFAC sdn/add/alt and consolidated
// files, the UN consolidated XML and FtM exports (see TestCountryCodeRealLists,
// which fails when too many real spellings stay unmapped). Former states
// with several successors (USSR, Yugoslavia, Serbia and Montenegro,
// Netherlands Antilles) and disputed regions are deliberately absent:
// mapping them to one code would invent a nationality.
var countryAliases = map[string]string{
	// Official long forms used by the UN.
	"Democratic People's Republic of Korea":                "KP",
	"Democratic Republic of the Congo":                     "CD",
	"Russian Federation":                                   "RU",
	"Syrian Arab Republic":                                 "SY",
	"Viet Nam":                                             "VN",
	"United Republic of Tanzania":                          "TZ",
	"United States of America":                             "US",
	"United Kingdom of Great Britain and Northern Ireland": "GB",
	"Hong Kong Special Administrative Region China":        "HK", // "China, Hong Kong Special Administrative Region"
	"Macao Special Administrative Region China":            "MO",
	"State of Palestine":                                   "PS",
	"Republic of Korea":                                    "KR",
	"Republic of Moldova":                                  "MD",
	"Lao People's Democratic Republic":                     "LA",
	"Federated States of Micronesia":                       "FM",
	"Brunei Darussalam":                                    "BN",
	"Holy See":                                             "VA",
	// Names CLDR spells differently, or has changed between versions.
	"Türkiye":         "TR",
	"Turkey":          "TR",
	"Burma":           "MM",
	"Myanmar":         "MM",
	"Cabo Verde":      "CV",
	"Czech Republic":  "CZ",
	"Eswatini":        "SZ",
	"Swaziland":       "SZ",
	"North Macedonia": "MK",
	"Macedonia":       "MK",
	"The Former Yugoslav Republic of Macedonia": "MK",
	"Republic of North Macedonia":               "MK", // OFAC "North Macedonia, The Republic of"
	"Republic of the Congo":                     "CG", // OFAC "Congo, Republic of the"
	"Congo":                                     "CG", // UN: the Republic of the Congo
	"Hong Kong":                                 "HK",
	"Macau":                                     "MO",
	"Macao":                                     "MO",
	"Ivory Coast":                               "CI",
	"East Timor":                                "TL",
	"Vatican":                                   "VA",
	"Kyrgyz Republic":                           "KG",
	"Slovak Republic":                           "SK",
	"Kosovo":                                    "XK",
	// OFAC nationality and place-of-birth shorthand.
	"Palestinian":        "PS",
	"Palestine":          "PS",
	"West Bank":          "PS",
	"Gaza":               "PS",
	"Gaza Strip":         "PS",
	"DPRK":               "KP",
	"DRC":                "CD",
	"USA":                "US",
	"UK":                 "GB",
	"Great Britain":      "GB",
	"England":            "GB",
	"Scotland":           "GB",
	"Wales":              "GB",
	"Bosnia":             "BA",
	"Comoros Islands":    "KM",
	"Republic of Serbia": "RS",
	"Phillipines":        "PH", // sic, in OFAC POB remarks
}

// countryNames is the lookup table CountryCode uses.
type countryNames struct {
	codes []string          // sorted valid codes
	names map[string]string // countryKey(name) → code
}

// countryTable builds the table once, on first use, so importing the
// package costs nothing; it is never modified afterwards.
var countryTable = sync.OnceValue(func() *countryNames {
	t := &countryNames{names: map[string]string{}}
	english := display.English.Regions()
	for a := byte('A'); a <= 'Z'; a++ {
		for b := byte('A'); b <= 'Z'; b++ {
			code := string([]byte{a, b})
			r, err := language.ParseRegion(code)
			// CLDR also knows deprecated codes (BU, ZR, UK: Canonicalize
			// differs), groupings (EU, UN, EZ: no M49 number) and
			// exceptionally reserved codes (AC, DG, TA: no M49 number);
			// none of them is an ISO 3166-1 country.
			if err != nil || !r.IsCountry() || r.Canonicalize() != r || r.M49() == 0 {
				continue
			}
			name := english.Name(r)
			if name == "" {
				continue
			}
			t.codes = append(t.codes, code)
			t.names[countryKey(name)] = code
			// "Myanmar (Burma)", "Cocos (Keeling) Islands".
			if open := strings.IndexByte(name, '('); open > 0 {
				t.names[countryKey(name[:open])] = code
			}
		}
	}
	for name, code := range countryAliases {
		t.names[countryKey(name)] = code
	}
	slices.Sort(t.codes)
	return t
})

// countryKey folds a name for lookup: accents removed, lower case, every
// run of non-letters a single space, "saint" written "st" (CLDR says
// "St. Kitts & Nevis", OFAC "Saint Kitts and Nevis"), and the words
// "the", "and" and "of" dropped so "Bahamas, The", "Bosnia and
// Herzegovina" and "Bosnia & Herzegovina" agree.
func countryKey(s string) string {
	var words []string
	word := []rune(nil)
	flush := func() {
		switch w := string(word); w {
		case "", "the", "and", "of":
		case "saint":
			words = append(words, "st")
		default:
			words = append(words, w)
		}
		word = word[:0]
	}
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// a combining accent: "Türkiye" → "turkiye"
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			word = append(word, unicode.ToLower(r))
		default:
			flush()
		}
	}
	flush()
	return strings.Join(words, " ")
}
