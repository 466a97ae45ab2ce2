package screening

import (
	"sort"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/unicode/norm"
)

// Look-alike letters from another script inside a word ("Ѕechin" with a
// Cyrillic Ѕ, "Sechiո" with an Armenian ո) would otherwise transliterate
// to something else (Ѕ is "Dz") and defeat screening. A word whose letters
// come from more than one script is folded, before transliteration, into
// the one script that can write all of it: each letter of another script
// becomes the letter of that script with the same UTS #39 prototype (the
// published confusables table, Unicode 17, through go.mau.fi/util).
//
// Only words that mix scripts are folded. A whole word in one script is a
// real spelling (Сечин is Cyrillic, and transliterates), and applying the
// UTS #39 skeleton to every word would merge letters that names keep
// apart (the skeleton of "m" is "rn", of "I" is "l").

// proto is a rune's UTS #39 prototype: its confusables mapping, or the
// rune itself.
func proto(r rune) string {
	if p := confusable.GetReplacement(r); p != "" {
		return p
	}
	return string(r)
}

// byProto maps a prototype to the letters and digits that have it through
// the confusables table (a letter that is its own prototype is not listed;
// candidates adds it).
var byProto = sync.OnceValue(func() map[string][]rune {
	m := map[string][]rune{}
	for r := rune(0); r <= 0x3FFFF; r++ {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			continue
		}
		if p := confusable.GetReplacement(r); p != "" {
			m[p] = append(m[p], r)
		}
	}
	return m
})

// scriptGroup names the writing system of a letter. Scripts that write
// one language together count as one group: Japanese mixes Han, Hiragana
// and Katakana in one name, Korean Han and Hangul. Digits, marks and
// punctuation belong to no group ("").
func scriptGroup(r rune) string {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' {
			return "Latin"
		}
		return ""
	}
	if !unicode.IsLetter(r) {
		return ""
	}
	for _, s := range commonScripts {
		if unicode.Is(s.table, r) {
			return s.group
		}
	}
	for name, t := range unicode.Scripts {
		if name != "Common" && name != "Inherited" && unicode.Is(t, r) {
			return name
		}
	}
	return ""
}

// commonScripts are tried first, in rough order of how often names use
// them.
var commonScripts = []struct {
	group string
	table *unicode.RangeTable
}{
	{"Latin", unicode.Latin}, {"Cyrillic", unicode.Cyrillic}, {"Arabic", unicode.Arabic}, {"Greek", unicode.Greek},
	{"CJK", unicode.Han}, {"CJK", unicode.Hiragana}, {"CJK", unicode.Katakana}, {"Hangul", unicode.Hangul},
	{"Hebrew", unicode.Hebrew}, {"Armenian", unicode.Armenian}, {"Georgian", unicode.Georgian},
	{"Devanagari", unicode.Devanagari}, {"Thai", unicode.Thai}, {"Cherokee", unicode.Cherokee},
}

// foldConfusables returns word with look-alike letters of other scripts
// replaced (see above), and whether the word mixed scripts. A mixed word
// that no single script can write is returned unchanged, still reported
// as mixed.
func foldConfusables(word string) (string, bool) {
	if isASCII(word) {
		return word, false
	}
	rs := []rune(norm.NFD.String(word))
	groups := make([]string, len(rs))
	count := map[string]int{}
	for i, r := range rs {
		groups[i] = scriptGroup(r)
		if groups[i] != "" {
			count[groups[i]]++
		}
	}
	// Han with Hangul is Korean.
	if count["Hangul"] > 0 && count["CJK"] > 0 && len(count) == 2 {
		return word, false
	}
	if len(count) < 2 {
		return word, false
	}
	targets := make([]string, 0, len(count))
	for g := range count {
		targets = append(targets, g)
	}
	sort.Slice(targets, func(i, j int) bool {
		a, b := targets[i], targets[j]
		if count[a] != count[b] {
			return count[a] > count[b]
		}
		if (a == "Latin") != (b == "Latin") {
			return a == "Latin" // lists are mostly written in Latin letters
		}
		return a < b
	})
	for _, target := range targets {
		if out, ok := writeIn(rs, groups, target); ok {
			return norm.NFC.String(string(out)), true
		}
	}
	return word, true
}

// writeIn replaces every letter outside target by a look-alike in target,
// or reports false when some letter has none.
func writeIn(rs []rune, groups []string, target string) ([]rune, bool) {
	out := make([]rune, len(rs))
	for i, r := range rs {
		if groups[i] == "" || groups[i] == target {
			out[i] = r
			continue
		}
		c, ok := lookAlike(r, target, wantUpper(rs, groups, i))
		if !ok {
			return nil, false
		}
		out[i] = c
	}
	return out, true
}

// wantUpper says which case a letter at position i should have: upper at
// the start of a word or in an all-capitals word, else lower. It decides
// between look-alikes that differ only in case (a Cyrillic Ӏ is a Latin I
// at the start of "Ӏgor" and an l inside "Aӏi").
func wantUpper(rs []rune, groups []string, i int) bool {
	first := true
	for j := 0; j < i; j++ {
		if groups[j] != "" {
			first = false
			break
		}
	}
	if first {
		return true
	}
	upper, lower := 0, 0
	for j, r := range rs {
		if j == i || groups[j] == "" {
			continue
		}
		switch {
		case unicode.IsUpper(r):
			upper++
		case unicode.IsLower(r):
			lower++
		}
	}
	return upper > 0 && lower == 0
}

// maxNameLatin is the last Latin letter names are written with (Latin
// Extended-B). The table also maps to phonetic and small-capital letters
// (и to ᴎ), which no name uses: a look-alike becomes one of those only
// when it is a real spelling's letter.
const maxNameLatin = 0x024F

// lookAlike finds the letter of script group target with r's prototype,
// preferring ASCII, then the wanted case, then the lowest code point.
func lookAlike(r rune, target string, upper bool) (rune, bool) {
	p := proto(r)
	var cands []rune
	if pr, size := utf8.DecodeRuneInString(p); size == len(p) && scriptGroup(pr) == target && (target != "Latin" || pr <= maxNameLatin) {
		cands = append(cands, pr)
	}
	for _, c := range byProto()[p] {
		if c != r && scriptGroup(c) == target && (target != "Latin" || c <= maxNameLatin) {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return 0, false
	}
	rank := func(c rune) int {
		n := 0
		if c >= utf8.RuneSelf {
			n += 2
		}
		if unicode.IsUpper(c) != upper {
			n++
		}
		return n
	}
	best := cands[0]
	for _, c := range cands[1:] {
		if rank(c) < rank(best) || rank(c) == rank(best) && c < best {
			best = c
		}
	}
	return best, true
}
