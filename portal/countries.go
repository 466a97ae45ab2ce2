package portal

import (
	"slices"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"kycd/kyc"
	"kycd/locale"
)

// country is one choice of the issuing-country select.
type country struct {
	Code, Name string
}

// countryLists holds the issuing-country select of each language, built
// on first use.
type countryLists struct {
	mu    sync.Mutex
	lists map[string][]country
}

// of returns every code kyc.ValidCountry accepts with its name in c's
// language, in that language's alphabetical order (collation: "Österreich"
// with the Os in German, pinyin order in Chinese).
// kyc keeps its list private, so the codes are found by asking it about
// every pair of letters: 676 map lookups per language, once, and the
// select can never offer a code the service would refuse.
func (l *countryLists) of(c *locale.Catalog) []country {
	l.mu.Lock()
	defer l.mu.Unlock()
	if list, ok := l.lists[c.Tag()]; ok {
		return list
	}
	tag := language.Make(c.Tag())
	names := display.Regions(tag)
	var out []country
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			code := string([]rune{a, b})
			if !kyc.ValidCountry(code) {
				continue
			}
			name := code // a code x/text cannot name keeps the code as its label
			if r, err := language.ParseRegion(code); err == nil && names != nil {
				if n := names.Name(r); n != "" {
					name = n
				}
			}
			out = append(out, country{Code: code, Name: name})
		}
	}
	coll := collate.New(tag)
	slices.SortFunc(out, func(x, y country) int { return coll.CompareString(x.Name, y.Name) })
	if l.lists == nil {
		l.lists = map[string][]country{}
	}
	l.lists[c.Tag()] = out
	return out
}
