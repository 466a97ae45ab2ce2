package portal

import (
	"slices"
	"strings"

	"github.com/gosimple/unidecode"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"kycd/kyc"
)

// country is one choice of the issuing-country select.
type country struct {
	Code, Name string
}

// countryList returns every code kyc.ValidCountry accepts with its English
// name, sorted as an English reader expects: "Åland Islands" under A. The
// names are compared in their ASCII transliteration, which is all 250
// English names need; x/text/collate would do it properly for ~1.5 MB of
// binary.
// kyc keeps its list private, so the codes are found by asking it about
// every pair of letters: 676 map lookups, once at start-up, and the select
// can never offer a code the service would refuse.
func countryList() []country {
	names := display.English.Regions()
	var out []country
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			code := string([]rune{a, b})
			if !kyc.ValidCountry(code) {
				continue
			}
			name := code // a code x/text cannot name keeps the code as its label
			if r, err := language.ParseRegion(code); err == nil {
				if n := names.Name(r); n != "" {
					name = n
				}
			}
			out = append(out, country{Code: code, Name: name})
		}
	}
	key := func(c country) string { return strings.ToLower(unidecode.Unidecode(c.Name)) }
	slices.SortFunc(out, func(x, y country) int { return strings.Compare(key(x), key(y)) })
	return out
}
