package screening

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A person's two names written together keep the capital of the second
// (HelmutGrabowski, FridaKahlo typed without the space): the word is split
// there, even when a typo keeps either half from being a part the list
// knows (splitJoined splits only into known parts). Company names are left
// whole: internal capitals are a brand's way of writing one word
// (PetroChina, PayPal), not a join of two names.

// splitCamel splits each word of a person's name at a capital that follows
// a small letter, when what comes before is a whole name (see camelJoin).
func splitCamel(words []string) []string {
	var out []string
	for i, w := range words {
		parts := camelParts(w)
		if len(parts) == 1 && out == nil {
			continue
		}
		if out == nil {
			out = append([]string(nil), words[:i]...)
		}
		out = append(out, parts...)
	}
	if out == nil {
		return words
	}
	return out
}

// camelParts splits w where a name written with a capital and small
// letters is followed by another (Helmut|Grabowski). A small letter inside
// capitals (HAMDULeAH, a typo in a name written in capitals) is no join.
func camelParts(w string) []string {
	var parts []string
	start := 0
	rs := []rune(w)
	at := 0 // byte offset of rs[k]
	for k, r := range rs {
		if k > 0 && k+1 < len(rs) && unicode.IsUpper(r) && unicode.IsLower(rs[k-1]) && unicode.IsLower(rs[k+1]) &&
			sameScript(rs[k-1], r, rs[k+1]) && camelJoin(w[start:at]) {
			parts = append(parts, w[start:at])
			start = at
		}
		at += utf8.RuneLen(r)
	}
	return append(parts, w[start:])
}

// sameScript: the capital and the small letters around it are of one
// cased script. A capital of another script inside a word (NasralΙah with
// a Greek Iota for l) is a look-alike, folded later, not a second name.
func sameScript(rs ...rune) bool {
	for _, sc := range casedScripts {
		all := true
		for _, r := range rs {
			all = all && unicode.Is(sc, r)
		}
		if all {
			return true
		}
	}
	return false
}

var casedScripts = []*unicode.RangeTable{unicode.Latin, unicode.Cyrillic, unicode.Greek, unicode.Armenian, unicode.Georgian}

// camelJoin reports whether the letters before an inner capital are a
// whole name: a capital and two small letters or more, and not a prefix
// written with a capital inside one family name (MacArthur, VanDyke,
// FitzGerald; McDonald and DeLuca are under three letters).
func camelJoin(before string) bool {
	rs := []rune(before)
	if len(rs) < 3 || !unicode.IsUpper(rs[0]) {
		return false
	}
	for _, r := range rs[1:] {
		if !unicode.IsLower(r) {
			return false
		}
	}
	low := strings.ToLower(before)
	return !particles[low] && !nameMakers[low]
}

// nameMakers are prefixes of one family name that are not particles of
// their own: Fitz (son of), Irish Nic and Mhic (daughter of).
var nameMakers = setOf("fitz", "nic", "mhic")

// queryWords splits the query's name into words, a person's at inner
// capitals too.
func queryWords(q Query) []string {
	words := splitWords(readingOrder(q.Name))
	if personQuery(q.Schemas) {
		words = splitCamel(words)
	}
	return words
}

// personQuery reports whether a query may be a person's name: the
// schemas it searches include people (no schemas: people and entities of
// unknown kind, what KYC screens).
func personQuery(schemas []Schema) bool {
	if len(schemas) == 0 {
		return true
	}
	for _, s := range schemas {
		if s == Person || s == Unknown || s == "" {
			return true
		}
	}
	return false
}
