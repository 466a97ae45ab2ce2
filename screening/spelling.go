package screening

// The comparison forms of a name part: fold (transliteration variants
// merged) and skeleton (consonants), and the rules that make them.

import "strings"

// foldRules merge spellings that transliteration systems disagree on
// (BGN/PCGN vs German vs French romanisation of Russian; English vs French
// romanisation of Arabic). Applied left to right, longest first.
var foldRules = []struct{ from, to string }{
	{"tsch", "ch"}, {"sch", "sh"}, {"dzh", "j"}, {"zh", "j"}, {"dj", "j"},
	{"kh", "h"}, {"gh", "g"}, {"ph", "f"}, {"th", "t"}, {"dh", "d"},
	{"ck", "k"}, {"q", "k"}, {"x", "ks"}, {"w", "v"}, {"tz", "ts"},
	{"ou", "u"}, {"oo", "u"}, {"ee", "i"}, {"y", "i"},
}

// foldIndex holds foldRules by first byte, in order, so fold tries only
// the rules that can apply at a position.
var foldIndex = func() (idx [256][]struct{ from, to string }) {
	for _, r := range foldRules {
		idx[r.from[0]] = append(idx[r.from[0]], r)
	}
	return idx
}()

// fold applies foldRules until nothing changes (agkha → agha → aga) and
// collapses doubled letters.
func fold(s string) string {
	for i := 0; i < 3; i++ {
		f := fold1(s)
		if f == s {
			break
		}
		s = f
	}
	return s
}

func fold1(s string) string {
	b := make([]byte, 0, len(s)+2)
	for i := 0; i < len(s); {
		matched := false
		for _, r := range foldIndex[s[i]] {
			if strings.HasPrefix(s[i:], r.from) {
				b = append(b, r.to...)
				i += len(r.from)
				matched = true
				break
			}
		}
		if !matched {
			b = append(b, s[i])
			i++
		}
	}
	// j after a vowel or at the end is the semivowel (Sergej, Valujev).
	for i := range b {
		if b[i] == 'j' && (i == len(b)-1 || (i > 0 && isVowel(b[i-1]))) {
			b[i] = 'i'
		}
	}
	out := b[:0]
	for i := range b {
		if i > 0 && b[i] == b[i-1] {
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

// skeleton keeps the consonants of a part's text, merged into the classes
// that romanisations of Arabic and Persian confuse: w, y and v are dropped
// with the vowels (abjads write them as long vowels or diphthongs, and
// Persian vav is v); the digraphs kh, gh, sh, ch, th, dh, zh, dj, ph are
// one consonant; c, q, g and k are one (ق is Qadir, Gaddafi and Ghedeir);
// s, z and th are one (ث is Uthman and Osman, ظ Kazim and Kathim); a final
// h (ta marbuta, he) is dropped; repeats collapse. "Mousavi" and موسوی
// both give "ms", "Djamel Akkacha" and جمال عكاشة "jml ks".
func skeleton(text string) string {
	b := make([]byte, 0, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		if i+1 < len(text) {
			switch text[i : i+2] {
			case "kh", "gh", "ch":
				c, i = 'k', i+1
				if text[i-1] == 'c' {
					c = 's' // French ch is sh
				}
			case "sh", "th", "zh":
				c, i = 's', i+1
			case "dh":
				c, i = 's', i+1 // ذ: Dhakir, Zakir
			case "dj":
				c, i = 'j', i+1
			case "ph":
				c, i = 'f', i+1
			}
		}
		switch {
		case isVowel(c) || c == 'w' || c == 'y' || c == 'v':
			continue
		case c == 'h' && i == len(text)-1:
			continue
		case c == 'c' || c == 'q' || c == 'g':
			c = 'k'
		case c == 'z':
			c = 's'
		}
		if len(b) > 0 && b[len(b)-1] == c {
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

// plainSkeleton is skeleton without the digraphs and consonant classes:
// c and q become k, nothing else merges.
func plainSkeleton(text string) string {
	b := make([]byte, 0, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case isVowel(c) || c == 'w' || c == 'y' || c == 'v':
			continue
		case c == 'h' && i == len(text)-1:
			continue
		case c == 'c' || c == 'q':
			c = 'k'
		}
		if len(b) > 0 && b[len(b)-1] == c {
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

// plain returns the token's plain skeleton.
func (t *token) plain() string {
	if t.skel0 != "" {
		return t.skel0
	}
	return t.skel
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	}
	return false
}
