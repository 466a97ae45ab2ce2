package screening

import "math/bits"

// Abjad scripts (Arabic, Persian, Urdu, Hebrew) leave short vowels out but
// write long ones and diphthongs with letters: alif for ā, waw (Hebrew
// vav) for ū, ō and aw, ya (Hebrew yod) for ī, ē and ay. Those letters
// are evidence a consonant skeleton throws away: محمود (m-h-m-w-d) writes
// the ū of Mahmoud, which Muhammad does not have, though both skeletons
// are m-h-m-d. vowelAgreement compares the letters written between the
// consonants of an abjad part with the vowels of a Latin one, gap by gap.

// Vowel classes of a gap between consonants, as bits.
const (
	vowelA uint8 = 1 << iota // alif: ā
	vowelW                   // waw/vav: ū, ō, aw
	vowelY                   // ya/yod: ī, ē, ay
)

// maxGaps bounds the gaps compared; longer parts are not checked.
const maxGaps = 24

// vowelGaps splits text the way skeleton does and returns, for the place
// before the first consonant and after each consonant, the vowel letters
// written there (abjad: the long-vowel letters; Latin: every vowel). ok is
// false when the part has more gaps than maxGaps.
func vowelGaps(text string, out *[maxGaps][4]byte) (n int, ok bool) {
	*out = [maxGaps][4]byte{}
	var prev byte
	add := func(c byte) {
		g := &out[n]
		for k := range g {
			if g[k] == 0 {
				g[k] = c
				return
			}
		}
	}
	for i := 0; i < len(text); i++ {
		c, k := text[i], byte(0)
		if i+1 < len(text) {
			// The digraphs skeleton reads as one consonant, in its
			// classes.
			switch text[i : i+2] {
			case "kh", "gh":
				k = 'k'
			case "ch", "sh", "th", "zh", "dh":
				k = 's'
			case "dj":
				k = 'j'
			case "ph":
				k = 'f'
			}
		}
		switch {
		case k != 0:
			i++
		case isVowel(c) || c == 'w' || c == 'y' || c == 'v':
			add(c)
			continue
		case c == 'h' && i == len(text)-1:
			continue
		case c == 'c' || c == 'q' || c == 'g':
			k = 'k'
		case c == 'z':
			k = 's'
		default:
			k = c
		}
		if k == prev {
			continue // a repeat, as skeleton collapses it
		}
		prev = k
		if n++; n >= maxGaps {
			return n, false
		}
	}
	return n + 1, true
}

// abjadClasses are the long-vowel letters an abjad gap writes; either:
// the gap holds an alif maqsura (e, see unidecodeWord), ā or ī.
func abjadClasses(g [4]byte) (m uint8, either bool) {
	for _, c := range g {
		switch c {
		case 'a':
			m |= vowelA
		case 'w', 'v', 'o', 'u':
			m |= vowelW
		case 'y', 'i':
			m |= vowelY
		case 'e':
			either = true
		}
	}
	return m, either
}

// latinClasses returns the long-vowel letters a Latin gap allows (a
// romanisation may write ā as a or e, ū as u, o or w, ī as i, e or y)
// and those it implies (a doubled vowel or a diphthong is written with a
// letter in an abjad: ou, oo, aw for waw; ee, ii, ei, ai, ay, ey for ya;
// aa for alif).
func latinClasses(g [4]byte) (allows, implies uint8) {
	var prev byte
	for _, c := range g {
		if c == 0 {
			break
		}
		switch c {
		case 'a':
			allows |= vowelA
		case 'e':
			allows |= vowelA | vowelY
		case 'i', 'y':
			allows |= vowelY
		case 'o', 'u', 'w', 'v':
			allows |= vowelW
		}
		switch string([]byte{prev, c}) {
		case "ou", "oo", "uu", "aw", "ow", "au":
			implies |= vowelW
		case "ee", "ii", "ei", "ai", "ay", "ey", "iy":
			implies |= vowelY
		case "aa":
			implies |= vowelA
		}
		prev = c
	}
	return allows, implies
}

// vowelAgreement compares the written vowels of an abjad part with those
// of a Latin part whose skeletons have as many consonants. agree: no gap
// contradicts the other (a long vowel written on one side and absent or
// another vowel on the other); confirmed: how many gaps the abjad part
// writes a long vowel in that the Latin part has. checked is false when
// the parts cannot be compared gap by gap (different consonant counts).
func vowelAgreement(ab, lat *token) (agree bool, confirmed int, checked bool) {
	var ga, gl [maxGaps][4]byte
	na, oka := vowelGaps(ab.text, &ga)
	nl, okl := vowelGaps(lat.text, &gl)
	if !oka || !okl || na != nl {
		return false, 0, false
	}
	for i := 0; i < na; i++ {
		a, either := abjadClasses(ga[i])
		allows, implies := latinClasses(gl[i])
		have := a
		if either {
			have |= vowelA | vowelY
		}
		if a&^allows != 0 || either && allows&(vowelA|vowelY) == 0 || implies&^have != 0 {
			return false, 0, true
		}
		// Each long-vowel letter written counts (نايل writes ā and
		// ī: Nail).
		confirmed += bits.OnesCount8(have & allows)
	}
	return true, confirmed, true
}

// spelledAcross: an abjad part and a Latin part with the same skeleton,
// whose written long vowels the Latin part has and contradicts nowhere,
// match by spelling, not by skeleton alone, when the letters that agree
// are enough to tell names apart: four or more, consonants and written
// long vowels together, one of them a vowel. Two consonants and one vowel
// fit too many names (گیل Gil and Cecilia are both k-l with an i); two
// consonants and two vowels (ولید, w-l-ī-d) or three and one do not.
func spelledAcross(q, c *token) bool {
	ab, lat := q, c
	if !ab.abjad {
		ab, lat = c, q
	}
	if len(ab.skel) < 2 || ab.skel != lat.skel && ab.plain() != lat.plain() {
		return false
	}
	agree, confirmed, checked := vowelAgreement(ab, lat)
	return checked && agree && confirmed >= 1 && len(ab.skel)+confirmed >= minSpelledLetters
}

// spelledJoinAcross: two parts written together on one side and one part
// on the other, across an abjad and Latin, spell the same name when
// spelledAcross holds and the abjad side writes at least two long vowels
// the Latin side has: a join fits more names than one part, so it needs
// more letters that agree.
func spelledJoinAcross(q, c *token) bool {
	if !spelledAcross(q, c) {
		return false
	}
	ab, lat := q, c
	if !ab.abjad {
		ab, lat = c, q
	}
	_, confirmed, _ := vowelAgreement(ab, lat)
	return confirmed >= 2
}

// minSpelledLetters is the number of agreeing letters (consonants and
// written long vowels) a spelled match across scripts needs.
const minSpelledLetters = 3

// vowelsContradict: the parts can be compared gap by gap and a long vowel
// written on one side is absent or another on the other (محمود and
// Muhammad, محمد and Mahmoud).
func vowelsContradict(q, c *token) bool {
	ab, lat := q, c
	if !ab.abjad {
		ab, lat = c, q
	}
	agree, _, checked := vowelAgreement(ab, lat)
	return checked && !agree
}
