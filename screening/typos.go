package screening

// Typo correction towards known forms: Abd prefixes, honorifics and
// common-name spellings one edit away.

import "strings"

// fuzzyCanonical corrects a part one typo away from an Abd prefix or an
// honorific that is dropped (not a title: see titles), so that ADBUL is
// Abdul and GENREAL a title to drop: an adjacent transposition in the
// first five letters or a letter doubled there (ABBDULLAHI) for the Abd
// prefixes, a dropped letter keeping "bd" (ABDL, BDUL; not ADEL or ABEL,
// which are names), and one transposition or dropped letter in an
// honorific of six letters or more. Other misspelt names are left as they
// are: a typo in a spelling of a common name (MIHAMMED) is matched as a
// near match of that spelling (see variantEdit), never made exact.
func fuzzyCanonical(part string) string {
	if len(part) < 4 || fuzzyTarget(part) {
		return part
	}
	if h, ok := honorificByDeletion[part]; ok && len(part) >= 5 {
		return h
	}
	if t, ok := transposedFrom[part]; ok {
		return t
	}
	if v, ok := variantByDeletion[part]; ok {
		return v
	}
	// The first letter dropped: no Latin name starts with "bd" (BDULHAI,
	// BDOLLAHI).
	if strings.HasPrefix(part, "bd") && len(part) >= 5 {
		if a := "a" + part; abdPrefixed([]byte(a)) {
			return a
		}
	}
	if len(part) <= 32 {
		var buf [32]byte
		b := buf[:len(part)]
		copy(b, part)
		for i := 0; i < 4 && i+1 < len(b); i++ {
			b[i], b[i+1] = b[i+1], b[i]
			if abdPrefixed(b) {
				return string(b)
			}
			b[i], b[i+1] = b[i+1], b[i]
		}
		for i := 0; i < 4 && i+1 < len(part); i++ {
			if part[i] == part[i+1] {
				if d := part[:i] + part[i+1:]; abdPrefixed([]byte(d)) {
					return d
				}
			}
		}
	}
	return part
}

func abdPrefixed(b []byte) bool {
	return len(b) >= 5 && b[0] == 'a' && b[1] == 'b' && b[2] == 'd' && (b[3] == 'u' || b[3] == 'e' || b[3] == 'a' || b[3] == 'o') && (b[4] == 'l' || b[4] == 'r')
}

// transposedFrom maps each honorific of five or more letters that is
// dropped (not a title) with two adjacent letters swapped back to it.
var transposedFrom = func() map[string]string {
	m := map[string]string{}
	for w := range honorifics {
		if len(w) < 5 || titles[w] != "" {
			continue
		}
		b := []byte(w)
		for i := 0; i+1 < len(b); i++ {
			if b[i] == b[i+1] {
				continue
			}
			b[i], b[i+1] = b[i+1], b[i]
			if t := string(b); variants[t] == "" && !canonical[t] && !honorifics[t] {
				m[t] = w
			}
			b[i], b[i+1] = b[i+1], b[i]
		}
	}
	return m
}()

// fuzzyTarget: a spelling worth correcting to.
func fuzzyTarget(t string) bool {
	if variants[t] != "" || canonical[t] || honorifics[t] && len(t) >= 5 {
		return true
	}
	for _, p := range [...]string{"abdul", "abdel", "abdur", "abdal", "abdullah", "abdallah"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// variantByDeletion maps the Abd prefixes with a letter dropped back to
// them (ABDL, BDUL for Abdul), when the "bd" is left (ADEL, ABEL and ABUL
// are names); honorificByDeletion maps the honorifics that are dropped
// (not titles) with one letter dropped back to them.
var variantByDeletion, honorificByDeletion = func() (map[string]string, map[string]string) {
	v, h := map[string]string{}, map[string]string{}
	for _, from := range []string{"abdul", "abdel", "abdur", "abdal"} {
		for _, d := range deletions(from) {
			if strings.Contains(d, "bd") && !particles[d] && !honorifics[d] && d != "abd" {
				v[d] = from
			}
		}
	}
	for w := range honorifics {
		if len(w) >= 5 && titles[w] == "" {
			for _, d := range deletions(w) {
				h[d] = w
			}
		}
	}
	return v, h
}()
