package screening

import (
	"strings"
	"unicode"
)

// Arabic script writes the article and some name particles joined to the
// word and without vowels, where Latin lists write them apart and in full:
// القادر is al-Qadir (unidecode gives "lqdr", whose skeleton "lkdr" never
// meets "Kader"), عبدالحليم is Abd al-Halim, بن is bin. arabicParts splits
// and spells these the way Latin lists do, so each part meets its Latin
// counterpart: the article and particles as the particles al, bin, abu,
// the rest transliterated.

// arabicWords are whole words with a fixed Latin form.
var arabicWords = map[string]string{
	"بن": "bin", "ابن": "ibn", "إبن": "ibn", "بنت": "bint",
	"ابو": "abu", "أبو": "abu", "ابي": "abu", "أبي": "abu", "ابا": "abu", "أبا": "abu",
	"عبد": "abd", "ال": "al", "الله": "allah",
}

// arabicTitles are honorifics written in Arabic script (Sayyid, Hajji,
// Sheikh, Mullah, Mawlawi, Qari, Hafiz), dropped like their Latin
// spellings (see honorifics).
var arabicTitles = setOf("سيد", "سید", "حاجي", "حاجی", "حاج", "شيخ", "شیخ", "ملا", "مولوي", "مولوی", "قاري", "قاری", "حافظ")

// arabicParts returns the Latin parts of one Arabic-script word, or nil
// when the word is not Arabic script (it is then transliterated whole).
func arabicParts(word string) []string {
	if !isArabicWord(word) {
		return nil
	}
	if v, ok := arabicWords[word]; ok {
		return []string{v}
	}
	if arabicTitles[word] {
		return []string{}
	}
	rs := []rune(word)
	// Abd joined to what follows: عبدالله, عبدالحليم, عبدربه.
	if len(rs) >= 6 && string(rs[:3]) == "عبد" {
		rest := string(rs[3:])
		switch rest {
		case "الله", "اله", "لله":
			return []string{"abdallah"}
		}
		return append([]string{"abd"}, arabicParts(rest)...)
	}
	// The article: الكاشف is al-Kashif.
	if len(rs) >= 4 && string(rs[:2]) == "ال" {
		return []string{"al", unidecodeWord(string(rs[2:]))}
	}
	return []string{unidecodeWord(word)}
}

func isArabicWord(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) && !unicode.Is(unicode.Arabic, r) {
			return false
		}
	}
	return w != ""
}

// unidecodeWord transliterates and keeps letters and digits only.
func unidecodeWord(w string) string {
	return strings.Join(splitASCII(transliterate(w)), "")
}
