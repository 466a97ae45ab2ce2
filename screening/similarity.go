package screening

// jaroWinkler is the Jaro–Winkler similarity of two ASCII strings. It is
// written here rather than taken from a library because it runs in the
// innermost loop of every screening (millions of calls per second) and
// must not allocate for names of ordinary length.
func jaroWinkler(a, b string) float64 {
	if a == b {
		return 1
	}
	la, lb := len(a), len(b)
	if la == 0 || lb == 0 {
		return 0
	}
	if la > lb {
		a, b, la, lb = b, a, lb, la
	}
	window := lb/2 - 1
	if window < 0 {
		window = 0
	}
	var ma, mb [64]bool
	var matchA, matchB []bool
	if lb <= 64 {
		matchA, matchB = ma[:la], mb[:lb]
	} else {
		matchA, matchB = make([]bool, la), make([]bool, lb)
	}
	matches := 0
	for i := 0; i < la; i++ {
		lo, hi := i-window, i+window+1
		if lo < 0 {
			lo = 0
		}
		if hi > lb {
			hi = lb
		}
		for j := lo; j < hi; j++ {
			if !matchB[j] && a[i] == b[j] {
				matchA[i], matchB[j] = true, true
				matches++
				break
			}
		}
	}
	if matches == 0 {
		return 0
	}
	transpositions, j := 0, 0
	for i := 0; i < la; i++ {
		if !matchA[i] {
			continue
		}
		for !matchB[j] {
			j++
		}
		if a[i] != b[j] {
			transpositions++
		}
		j++
	}
	m := float64(matches)
	jaro := (m/float64(la) + m/float64(lb) + (m-float64(transpositions/2))/m) / 3
	prefix := 0
	for prefix < 4 && prefix < la && a[prefix] == b[prefix] {
		prefix++
	}
	return jaro + float64(prefix)*0.1*(1-jaro)
}

// tokenSim is how alike two name parts are, in [0,1].
func tokenSim(q, c *token) float64 {
	if q.text == c.text || q.fold == c.fold {
		return 1
	}
	if q.han || c.han {
		return 0 // a syllable of another character
	}
	// A number is that number: 12 is not 13, nor an initial of 120. An
	// acronym is its letters: N.A.B.C. is not A.B.C.
	if allDigits(q.text) || allDigits(c.text) || q.acronym || c.acronym {
		return 0
	}
	// An initial matches a name with that first letter, never fully.
	if len(q.text) == 1 || len(c.text) == 1 {
		if q.text[0] == c.text[0] {
			return 0.9
		}
		return 0
	}
	if q.abjad != c.abjad {
		s := skeletonSim(q.skel, c.skel, !q.abjad)
		if q.skel0 != "" || c.skel0 != "" {
			s = max(s, skeletonSim(q.plain(), c.plain(), !q.abjad))
		}
		// The long vowels an abjad part writes tell names of one
		// skeleton apart (محمود is not Muhammad): a contradiction
		// leaves the pair under a near match.
		if s > 0 && vowelsContradict(q, c) {
			s *= vowelConflictFactor
		}
		return s
	}
	s := jaroWinkler(q.fold, c.fold)
	// A short part inside one twice its length (Lind and Lindemann, a
	// one-syllable Chinese name and a long romanised one) shares a prefix
	// that Jaro–Winkler rewards beyond what it proves.
	if short, long := min(len(q.fold), len(c.fold)), max(len(q.fold), len(c.fold)); short <= 4 && long >= 2*short {
		return 0.9 * s
	}
	// One typo in a longer part is a near match wherever it falls (an
	// adjacent transposition is one typo: Damerau); Jaro–Winkler alone
	// punishes an early typo much more than a late one (ADBUL, OMHAMMED).
	// The letters as written are tried too, since folding can move a typo
	// (YOONG folds to yung, YONG to iong).
	if s < 0.93 {
		if len(q.fold) >= 5 && len(c.fold) >= 5 && oneEdit(q.fold, c.fold) ||
			len(q.text) >= 5 && len(c.text) >= 5 && oneEdit(q.text, c.text) {
			return 0.93
		}
		ve := 0
		if q.canon != c.canon {
			ve = variantEdit(q, c)
		}
		switch {
		case ve >= 5:
			// A typo in a spelling that normalisation merged into a
			// canonical form (MIHAMMED for Mohammed, now muhammad) is
			// a typo too.
			s = 0.93
		case s < 0.88 && (len(q.text) >= 4 && len(c.text) >= 4 && oneEdit(q.text, c.text) || ve == 4):
			// Four letters with one typo (IYDA for IYAD): still a near
			// match, with less certainty.
			s = 0.88
		case s < 0.86 && len(q.text) == 3 && len(c.text) == 3 && transposed(q.text, c.text):
			// Three letters with two swapped (SKO for SOK): the same
			// letters, just barely a match.
			s = 0.86
		}
	}
	return s
}

// vowelConflictFactor scales the skeleton similarity of an abjad part and
// a Latin part whose written long vowels contradict each other: 0.95 ×
// 0.85 is under weakPart, a part that does not count as found.
const vowelConflictFactor = 0.85

// variantEdit returns, when one of q and c is a canonical form and the
// other is one typo from one of its variant spellings, the length of the
// shorter of the two spellings compared; else 0.
func variantEdit(q, c *token) int {
	a, b := q, c
	if a.canon {
		a, b = c, q
	}
	if !b.canon || a.canon {
		return 0
	}
	folds := spellingFolds[b.text]
	for i, sp := range spellings[b.text] {
		if oneEdit(a.text, sp) {
			return min(len(a.text), len(sp))
		}
		// Folded too: AKHED is a dropped letter from Akhmed, which only
		// its fold (ahmed) shares with the spellings of ahmad.
		if f := folds[i]; oneEdit(a.fold, f) {
			return min(len(a.fold), len(f))
		}
	}
	return 0
}

// skeletonSim compares consonant skeletons, the only form an abjad
// spelling and a Latin one share. When the query is the Latin side
// (latinQuery), its vowels are thrown away to compare, so a short
// skeleton says little (the "rd" of Redi fits رودي and hundreds of other
// names) and weighs less. An abjad query has no vowels to lose: its
// skeleton is all the evidence there is.
func skeletonSim(a, b string, latinQuery bool) float64 {
	if a == "" || b == "" {
		return 0
	}
	s := 0.95
	if a != b {
		s *= jaroWinkler(a, b)
	}
	if latinQuery {
		switch min(len(a), len(b)) {
		case 1:
			s *= 0.88
		case 2:
			s *= 0.93
		}
	}
	return s
}

// oneEdit reports whether a and b differ by one substitution, insertion,
// deletion or transposition of adjacent letters.
func oneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 || a == b {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		if a[i+1:] == b[i+1:] {
			return true
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
	}
	return a[i:] == b[i+1:]
}

// transposed reports whether a and b, of one length, differ only by two
// adjacent letters swapped.
func transposed(a, b string) bool {
	return len(a) == len(b) && a != b && oneEdit(a, b) && sameLetters(a, b)
}

func sameLetters(a, b string) bool {
	var n [256]int
	for i := 0; i < len(a); i++ {
		n[a[i]]++
		n[b[i]]--
	}
	for _, c := range n {
		if c != 0 {
			return false
		}
	}
	return true
}
