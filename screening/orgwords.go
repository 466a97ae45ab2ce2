package screening

import "strconv"

// Organisation names write the same words in several ways: numbers as
// digits or words (Brigade 12, Brigade Twelve, Twelfth Brigade), common
// words abbreviated (Int'l, Natl), and initials with or without stops
// (A.B.C. Company, ABC Co.). Each way becomes one spelling on both sides,
// so the matcher compares what the name says, not how it is typed.

// numberWords are cardinal and ordinal number words, in English and in
// the German, French, Spanish and Russian (transliterated) words long
// enough not to be given names, with the value they stand for. "fourty"
// is the common misspelling of forty.
var numberWords = map[string]int{
	"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
	"eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19,
	"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
	// German
	"zwei": 2, "drei": 3, "vier": 4, "funf": 5, "fuenf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
	"erste": 1, "erster": 1, "ersten": 1, "zweite": 2, "dritte": 3,
	// French
	"deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9,
	"premier": 1, "premiere": 1, "deuxieme": 2, "troisieme": 3,
	// Spanish
	"cuatro": 4, "cinco": 5, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10,
	"primero": 1, "primera": 1, "segundo": 2, "segunda": 2, "tercero": 3, "tercera": 3,
	// Russian, transliterated (from Cyrillic by unidecode or by hand)
	"chetyre": 4, "piat": 5, "pyat": 5, "shest": 6, "sem": 7, "vosem": 8, "deviat": 9, "devyat": 9, "desiat": 10, "desyat": 10,
	"pervyi": 1, "pervyy": 1, "pervyj": 1, "vtoroi": 2, "vtoroy": 2, "tretii": 3, "tretiy": 3,
}

// ordinalSuffixes follow a digit in a written ordinal (1st, 2nd, 3rd, 4th).
var ordinalSuffixes = []string{"st", "nd", "rd", "th"}

// orgAbbreviations are common abbreviations of the words of organisation
// names.
var orgAbbreviations = map[string]string{
	"intl": "international", "natl": "national",
	"assn": "association", "assoc": "association", "bros": "brothers", "mfg": "manufacturing",
	"univ": "university", "inst": "institute", "dept": "department", "inds": "industries",
	"intnl": "international", "svcs": "services",
}

// numberValue returns the number a part writes, as a word, as digits or
// as a written ordinal, or -1.
func numberValue(text string) int {
	if v, ok := numberWords[text]; ok {
		return v
	}
	digits := text
	for _, s := range ordinalSuffixes {
		if len(text) > len(s) && text[len(text)-len(s):] == s {
			digits = text[:len(text)-len(s)]
			break
		}
	}
	if n, err := strconv.Atoi(digits); err == nil && n >= 0 && digits[0] != '+' && digits[0] != '-' {
		return n
	}
	return -1
}

// spellNumbers writes number parts as digits, a tens word followed by a
// unit as one number (Forty-Four, Forty 4 → 44), and expands the common
// abbreviations of organisation words.
func spellNumbers(ts []token) []token {
	changed := false
	for i := range ts {
		if _, ok := numberWords[ts[i].text]; ok || orgAbbreviations[ts[i].text] != "" || ts[i].text != "" && ts[i].text[0] >= '0' && ts[i].text[0] <= '9' {
			changed = true
			break
		}
	}
	if !changed {
		return ts
	}
	out := ts[:0:0]
	for i := 0; i < len(ts); i++ {
		// The abjad mark is not checked: the index reads a word's tokens
		// from its vocabulary, where the first reading of a text (maybe
		// from an abjad name) stands for every one (TestIndexTokensMatchNormalize).
		if long := orgAbbreviations[ts[i].text]; long != "" {
			out = append(out, makeToken(long, false))
			continue
		}
		v := numberValue(ts[i].text)
		if v < 0 {
			out = append(out, ts[i])
			continue
		}
		if v >= 20 && v < 100 && v%10 == 0 && i+1 < len(ts) {
			if u := numberValue(ts[i+1].text); u >= 1 && u <= 9 {
				v += u
				i++
			}
		}
		out = append(out, makeToken(strconv.Itoa(v), false))
	}
	return out
}

// joinInitials writes a run of two or more single letters in a company
// name (A.B.C. Company, A B C Ltd) as the one acronym it spells (ABC).
// People's initials are left alone: only names with a legal form are
// joined.
func joinInitials(ts []token) []token {
	out := ts[:0:0]
	for i := 0; i < len(ts); {
		j := i
		for j < len(ts) && len(ts[j].text) == 1 && !ts[j].particle {
			j++
		}
		if j-i < 2 {
			out = append(out, ts[i])
			i++
			continue
		}
		var b []byte
		for k := i; k < j; k++ {
			b = append(b, ts[k].text...)
		}
		a := makeToken(string(b), false)
		a.acronym = true
		out = append(out, a)
		i = j
	}
	return out
}

// allDigits reports whether s is a number written in digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// orgDescriptors are words a company name adds to say where it works or
// how it is grouped (Brovalt Europe, Brovalt Group, Brovalt International
// Holding): the same body is often named without them, so in a name with a
// legal form they weigh like a particle. They still match when both names
// have them.
var orgDescriptors = setOf(
	"europe", "european", "asia", "africa", "america", "americas", "global", "worldwide", "international",
	"group", "holding", "holdings",
)

// markDescriptors marks the descriptor words of a company name as
// particles, unless the name has nothing else (Global Holding Ltd).
func markDescriptors(ts []token) []token {
	other := false
	for i := range ts {
		if !ts[i].particle && !orgDescriptors[ts[i].text] {
			other = true
			break
		}
	}
	if !other {
		return ts
	}
	for i := range ts {
		if orgDescriptors[ts[i].text] {
			ts[i].particle = true
		}
	}
	return ts
}
