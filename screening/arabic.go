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

// urduLetters are the Urdu (and Persian) forms of Arabic letters, folded
// to the Arabic letter before the word is read: Urdu writes the h of Allah
// and a final h or a with heh goal (ہ) or do-chashmi heh (ھ), and the
// feminine ending with ۃ, where Arabic writes ه and ة, so عبداللہ is
// عبدالله (Abdallah), not abd + al + "lh", and the compounds, words and
// titles below are found whichever alphabet wrote them.
var urduLetters = strings.NewReplacer("\u06C1", "\u0647", "\u06C2", "\u0647", "\u06BE", "\u0647", "\u06C3", "\u0629")

// arabicWords are whole words with a fixed Latin form.
var arabicWords = map[string]string{
	"بن": "bin", "ابن": "ibn", "إبن": "ibn", "بنت": "bint",
	"ابو": "abu", "أبو": "abu", "ابي": "abu", "أبي": "abu", "ابا": "abu", "أبا": "abu",
	"عبد": "abd", "ال": "al", "الله": "allah",
}

// arabicCommon are the Arabic-script spellings of very common names that
// write none of their vowels, read as their usual romanisation: محمد is
// Muhammad, never Mahmoud (محمود, which writes its ū), though both are
// m-h-m-d; احمد is Ahmad, not Hamid. Only names whose romanisations are
// all variants of one canonical form are here (عمر is Omar, Umar and the
// Maghrebi Amor: its skeleton says more than one spelling would). A part read this way is spelled, not a skeleton (see
// weakAlignment); the romanisation is the canonical form of variants.
var arabicCommon = map[string]string{
	"محمد": "muhammad", "أحمد": "ahmad", "احمد": "ahmad", "إحمد": "ahmad",
}

// arabicCompoundEnds are the Arabic-script endings of the compounds of
// compoundEnds: al-Din (Arabic and Persian ya) and Allah.
var arabicCompoundEnds = []struct {
	end  string
	tail []string
}{
	{"الدين", []string{"al", "din"}}, {"الدین", []string{"al", "din"}}, {"الله", []string{"allah"}},
}

// fixedLatin are the Latin forms arabicParts gives whole words and
// prefixes (bin, abu, abd, al, allah, abdallah, din): their romanisation is
// known, so they are Latin parts, spelled, not consonant skeletons.
var fixedLatin = func() map[string]bool {
	m := map[string]bool{"abdallah": true, "din": true}
	for _, v := range arabicWords {
		m[v] = true
	}
	return m
}()

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
	// A compound written as one word (نورالدین, سعيدالله), as Latin lists
	// write Nooruddin and Saidullah: split the way compoundEnds splits
	// the Latin ones, so stem meets stem.
	for _, c := range arabicCompoundEnds {
		if stem, ok := strings.CutSuffix(word, c.end); ok && len([]rune(stem)) >= 2 {
			return append(arabicParts(stem), c.tail...)
		}
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

// unidecodeWord transliterates and keeps letters and digits only. An alif
// after the first letter is a long ā, which unidecode drops: it is written
// a, so the vowel the name carries is kept (سالم is salm, Salem's ā; see
// vowelAgreement). A first alif only carries the word's first vowel,
// whichever it is, and is dropped as before. Alif maqsura (ى), also
// dropped by unidecode, is the ā of Arabic names (موسى Musa) and the final
// ya of Persian and Urdu texts (حقانى Haqqani): it is written E, which
// vowelAgreement reads as either.
func unidecodeWord(w string) string {
	if strings.ContainsAny(w, "\u0627\u0649") {
		rs := []rune(w)
		for i := 1; i < len(rs); i++ {
			switch rs[i] {
			case '\u0627':
				rs[i] = 'a'
			case '\u0649':
				rs[i] = 'E'
			}
		}
		w = string(rs)
	}
	return strings.Join(splitASCII(transliterate(w)), "")
}
