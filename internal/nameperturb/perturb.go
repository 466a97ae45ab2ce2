// Package nameperturb makes the errors real customer records show in a
// listed name, by a seeded, documented rule (never by picking names), to
// measure screening recall: bench/screening-eval and the screening tests
// share it.
//
// The kinds, used in turn: an adjacent transposition, a doubled letter or
// a dropped letter inside a name part of 4+ letters (anywhere in it, first
// letters included), the name parts in another order (the last part moved
// to the front), or the middle name(s) left out (first and last part
// kept).
//
// Some queries the kinds make leave one name of the person by
// construction (see Ambiguous): the middle names left out of SHEIKH, Qari
// Muhammad Yaqoob give "Qari SHEIKH" (a title and the family name), of
// FELICIANO SEMBORIO DELOS REYES JR. "FELICIANO JR.", of MOHAMMAD SADIQ
// AMIR MOHAMMAD "MOHAMMAD MOHAMMAD". They stay in the sets (the
// generator is not tuned to what a matcher finds), and bench/screening-eval
// reports them as a class of their own.
package nameperturb

import (
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kinds are the perturbations, used in turn.
var Kinds = []string{"transposition", "doubled letter", "dropped letter", "name order", "middle name missing"}

// Parts splits a listed name ("LAST, First Middle" or "First Middle
// Last") into parts in reading order.
func Parts(n string) []string {
	if last, first, ok := strings.Cut(n, ","); ok {
		return append(strings.Fields(first), strings.Fields(last)...)
	}
	return strings.Fields(n)
}

// Apply applies one perturbation of kind, or reports false when the name
// has nothing it applies to (no part of 4+ letters, no middle name).
func Apply(rng *rand.Rand, name, kind string) (string, bool) {
	parts := Parts(name)
	var long []int
	for i, p := range parts {
		if utf8.RuneCountInString(p) >= 4 && isLetters(p) {
			long = append(long, i)
		}
	}
	edit := func(f func(r []rune) []rune) (string, bool) {
		if len(long) == 0 {
			return "", false
		}
		i := long[rng.IntN(len(long))]
		parts[i] = string(f([]rune(parts[i])))
		return strings.Join(parts, " "), true
	}
	switch kind {
	case "transposition":
		return edit(func(r []rune) []rune {
			k := rng.IntN(len(r) - 1)
			if r[k] == r[k+1] {
				k = (k + 1) % (len(r) - 1)
			}
			r[k], r[k+1] = r[k+1], r[k]
			return r
		})
	case "doubled letter":
		return edit(func(r []rune) []rune {
			k := rng.IntN(len(r))
			return append(r[:k+1], r[k:]...)
		})
	case "dropped letter":
		return edit(func(r []rune) []rune {
			k := rng.IntN(len(r))
			return append(r[:k], r[k+1:]...)
		})
	case "name order":
		// The family name first, or the given names first when the list
		// writes the family name first: the last part moves to the front.
		out := append([]string{parts[len(parts)-1]}, parts[:len(parts)-1]...)
		return strings.Join(out, " "), true
	case "middle name missing":
		if len(parts) < 3 {
			return "", false
		}
		return parts[0] + " " + parts[len(parts)-1], true
	}
	return "", false
}

func isLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// Ambiguous reports why a query made by Apply holds one name of the
// person only, or "": its two parts are the same name, or one is a title
// (Dr, Qari, Haji, Sayed…) or a generational suffix (Jr, Sr, II, III).
// Such a query fits every listed person with that name as well as the
// one it was made from.
func Ambiguous(query string) string {
	var parts []string
	for _, p := range strings.Fields(query) {
		p = strings.ToLower(strings.Trim(p, ".,"))
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) != 2 {
		return ""
	}
	switch {
	case parts[0] == parts[1]:
		return "one name twice"
	case titleOrSuffix[parts[0]] || titleOrSuffix[parts[1]]:
		return "a title or suffix and one name"
	}
	return ""
}

var titleOrSuffix = map[string]bool{
	"dr": true, "mr": true, "mrs": true, "ms": true, "prof": true, "gen": true, "col": true,
	"haji": true, "hajji": true, "alhaj": true, "qari": true, "mullah": true, "mulla": true, "mawlawi": true, "maulvi": true,
	"sheikh": true, "shaikh": true, "sayed": true, "sayyid": true, "syed": true, "hafiz": true, "imam": true,
	"jr": true, "sr": true, "ii": true, "iii": true, "iv": true,
}
