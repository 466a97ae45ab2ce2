package screening

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gosimple/unidecode"
	"golang.org/x/text/unicode/norm"
)

// token is one normalised part of a name.
//
// Names are compared on three forms: text (ASCII, lower case), fold (text
// with transliteration variants merged, so Dmitriy/Dmitrii/Dmitry or
// Hussein/Husayn compare equal or nearly so) and skel, the consonant
// skeleton. The skeleton is only used when one side was written in an
// abjad (Arabic, Hebrew, Persian script), because those scripts mostly omit
// vowels: محمد transliterates to "mhmd", which only the skeleton of
// "Mohamed" equals.
type token struct {
	text string
	fold string
	skel string
	// skel0 is the skeleton without the consonant classes (plainSkeleton),
	// kept when it differs: the classes merge what romanisations of
	// Arabic confuse, but split a Latin "Cohen" (k-h-n) from כהן (kh-n).
	skel0 string
	abjad bool
	// particle marks name particles (al, bin, van, de...) that carry
	// little identity; they count with a small weight.
	particle bool
	// mixed marks a part written with letters of more than one script
	// (see foldConfusables): a sign of look-alike letters.
	mixed bool
	// han marks a syllable written in Chinese characters or Korean
	// Hangul: a different syllable is a different character, so it
	// matches only when it is spelt the same (成 Cheng is not 陈 Chen).
	han bool
	// title marks a title that is also worn as a name (Haji, Sheikh,
	// Sayyid, Mullah, Qari; see titles): it counts with a low weight,
	// like a particle, but still matches.
	title bool
	// canon marks a canonical form of variants (muhammad for Mohammed,
	// Mohamed…): a typo in one of its spellings is a typo, not another
	// name (see nearVariant).
	canon bool
	// acronym marks initials written apart and joined (A.B.C. → abc,
	// see joinInitials): each letter is a word, so it matches only the
	// same letters, never one letter more or less.
	acronym bool
}

// honorifics are dropped: they are not part of anyone's name and lists and
// customers use them inconsistently (HAJI MUHAMMAD ASHRAF vs Muhammad
// Ashraf). Sources: common English, Arabic and Persian titles; the
// OpenSanctions rigour stop-word list was used to check coverage.
var honorifics = setOf(
	"mr", "mrs", "ms", "miss", "mister", "madam", "madame", "mme", "mx", "sir", "dame", "lord", "lady",
	"dr", "doctor", "prof", "professor", "eng", "engr", "ing",
	"jr", "junior", "sr", "senior", "ii", "iii", "iv",
	"haji", "hajji", "hadji", "alhaji", "alhaj", "hajj", "mullah", "mulla", "mawlawi", "maulvi", "maulavi", "mawlavi", "molvi",
	"sheikh", "shaikh", "shaykh", "sheik", "sayyid", "sayed", "syed", "qari", "hafiz", "imam",
	"general", "gen", "colonel", "col", "major", "maj", "captain", "capt", "lieutenant", "lt", "brigadier", "admiral", "sergeant", "sgt",
	"president", "minister", "ambassador", "hon", "honorable", "honourable", "rev", "reverend", "father", "saint",
	"herr", "frau", "senor", "senora", "sra", "monsieur", "prasident", "praesident",
)

// titles are the honorifics that lists and customers also write as part
// of a name (HAJI MUHAMMAD ASHRAF, NOORZAI, Haji Kotwal; QARI SAIFULLAH
// TOKHI, asked as Qari Tokhi): they are kept as title tokens (spelt one
// way, see titleForms) that match each other with a low weight instead of
// being dropped, so a customer who gives the title and the family name
// gave two parts the list has. Amir and Emir are given names far more
// often than titles and are plain names.
var titles = map[string]string{
	"haji": "haji", "hajji": "haji", "hadji": "haji", "alhaji": "haji", "alhaj": "haji", "hajj": "haji",
	"mullah": "mullah", "mulla": "mullah",
	"mawlawi": "mawlawi", "maulvi": "mawlawi", "maulavi": "mawlawi", "mawlavi": "mawlawi", "molvi": "mawlawi", "maulawi": "mawlawi",
	"sheikh": "sheikh", "shaikh": "sheikh", "shaykh": "sheikh", "sheik": "sheikh",
	"sayyid": "sayyid", "sayed": "sayyid", "syed": "sayyid", "sayyed": "sayyid", "seyed": "sayyid", "seyyed": "sayyid",
	"qari": "qari", "hafiz": "hafiz", "imam": "imam",
}

// titleForm returns the title part spells (also through its fold:
// Маулави → maulavi), or "".
func titleForm(part string) string {
	if t, ok := titles[part]; ok {
		return t
	}
	return foldTitles[fold(part)]
}

var foldTitles = func() map[string]string {
	m := make(map[string]string, len(titles))
	for from, to := range titles {
		// A fold shared with a name is not a title: Sayyid folds like
		// Said.
		if f := fold(from); foldVariants[f] == "" {
			m[f] = to
		}
	}
	return m
}()

// makeTitle is makeToken for a title, spelt as given (not merged into a
// name variant: Sayyid folds like Said).
func makeTitle(t string, abjad bool) token {
	tk := token{text: t, abjad: abjad, title: true, canon: true, fold: fold(t), skel: skeleton(t)}
	if p := plainSkeleton(t); p != tk.skel {
		tk.skel0 = p
	}
	return tk
}

// particles join other name parts; they match with a tenth of a normal
// token's weight so "Osama bin Laden" vs "Osama Laden" stays close.
var particles = setOf(
	"al", "el", "ul", "ur", "ud", "ad", "ar", "as", "at", "az", "an", "ash", "bin", "ibn", "ben", "bint", "binti", "bte", "abu", "abou", "ould", "oul",
	"van", "von", "der", "den", "de", "del", "della", "di", "da", "do", "dos", "das", "du", "la", "le", "lo", "y", "e", "ter", "ten", "zu", "mac", "mc", "st",
)

// variants maps spellings of very common name parts to one form, where
// spelling differences are too large for the fold rules and string
// similarity (Mohammed vs Muhamad). Built by hand from the transliteration
// variants seen in the UN and OFAC lists.
var variants = map[string]string{
	"mohammed": "muhammad", "mohammad": "muhammad", "mohamed": "muhammad", "mohamad": "muhammad", "muhammed": "muhammad",
	"mohamud": "muhammad", "muhamad": "muhammad", "muhamed": "muhammad", "mohammod": "muhammad", "mehmet": "muhammad", "mehmed": "muhammad",
	"mohd": "muhammad", "mhd": "muhammad", "md": "muhammad", "mahomed": "muhammad",
	"ahmed": "ahmad", "ahmet": "ahmad", "achmed": "ahmad", "ahmat": "ahmad",
	"hussein": "husain", "husayn": "husain", "hossein": "husain", "hussain": "husain", "husein": "husain", "hosein": "husain", "houssein": "husain",
	"hassan": "hasan", "hasen": "hasan",
	"abdullah": "abdallah", "abdulla": "abdallah", "abdalla": "abdallah", "abdellah": "abdallah", "abdoulah": "abdallah", "abdoullah": "abdallah",
	"osama": "usama", "oussama": "usama", "usamah": "usama",
	"omar": "umar", "omer": "umar", "umer": "umar",
	"yusuf": "yusuf", "yousef": "yusuf", "youssef": "yusuf", "yousuf": "yusuf", "yussuf": "yusuf", "youssouf": "yusuf", "yosef": "yusuf",
	"ibrahim": "ibrahim", "ebrahim": "ibrahim", "ibraheem": "ibrahim", "brahim": "ibrahim",
	"mustafa": "mustafa", "mostafa": "mustafa", "moustafa": "mustafa", "mustapha": "mustafa",
	"khalid": "khalid", "khaled": "khalid", "khaleed": "khalid",
	"said": "said", "saeed": "said", "saied": "said", "sayeed": "said",
	"aleksandr": "alexander", "aleksander": "alexander", "alexandr": "alexander", "alexandre": "alexander", "alessandro": "alexander", "alejandro": "alexander",
	"sergey": "sergei", "sergej": "sergei", "sergiy": "sergei", "serhiy": "sergei",
	"yuri": "yuri", "yury": "yuri", "yuriy": "yuri", "iurii": "yuri", "juri": "yuri", "jurij": "yuri",
	"mikhail": "mikhail", "michail": "mikhail", "mykhailo": "mikhail",
	"dmitry": "dmitri", "dmitriy": "dmitri", "dmitrii": "dmitri", "dmytro": "dmitri",
}

// abjadBlocks are the scripts written without most vowels.
var abjadBlocks = []*unicode.RangeTable{unicode.Arabic, unicode.Hebrew, unicode.Syriac, unicode.Thaana}

// normalize splits a name into tokens: NFKC, look-alike letters of
// another script inside a word folded (foldConfusables), transliteration to ASCII
// (Cyrillic, Greek, Arabic, Hebrew and most other scripts, through
// unidecode's tables), lower case, punctuation dropped (apostrophes join,
// other marks split), honorifics removed, common variants merged,
// particles marked.
func normalize(name string) []token {
	return normalizeWords(splitWords(readingOrder(name)), name)
}

// normalizeWords is normalize of name split into words.
func normalizeWords(words []string, name string) []token {
	var out []token
	for _, raw := range words {
		out = appendWord(out, raw)
	}
	return finishTokens(out, name)
}

// readingOrder turns "LAST, First Middle" (OFAC, many national lists)
// into "First Middle LAST", the order customers give and the other lists
// use: which listed parts lie between the first and the last matters when
// a customer leaves out middle names (see scoreName).
func readingOrder(name string) string {
	last, first, ok := strings.Cut(name, ",")
	if !ok || strings.Contains(first, ",") || strings.TrimSpace(last) == "" || strings.TrimSpace(first) == "" {
		return name
	}
	return first + " " + last
}

// appendWord appends the tokens of one word of a name (as splitWords
// gives it). What it appends depends only on the word and on whether the
// token before it is a particle (see appendToken), so BuildIndex caches
// it per word.
func appendWord(out []token, raw string) []token {
	// Look-alikes are folded before NFKC, which would turn some of
	// them into other letters (a lunate sigma Ϲ into Σ).
	folded, mixed := foldConfusables(raw)
	words := []string{folded} // an ASCII word is already in NFKC
	if !isASCII(folded) {
		words = splitWords(norm.NFKC.String(folded))
	}
	for _, word := range words {
		// Tatweel (ـ, of the Common script) only stretches an Arabic
		// word on the page: شعبـان is شعبان.
		word = strings.ReplaceAll(word, "\u0640", "")
		word = urduLetters.Replace(word)
		abjad := isAbjad(word)
		n := len(out)
		if latin, ok := arabicCommon[word]; ok {
			out = appendToken(out, latin, false)
		} else if parts := arabicParts(word); parts != nil {
			for _, part := range parts {
				if part != "" {
					out = appendToken(out, part, abjad && !fixedLatin[part])
				}
			}
		} else {
			ascii := word
			if !isASCII(word) {
				ascii = transliterate(word)
			}
			for _, part := range splitASCII(ascii) {
				out = appendToken(out, part, abjad)
			}
		}
		han := isHan(word)
		for i := n; i < len(out); i++ {
			out[i].mixed, out[i].han = mixed, han
		}
	}
	return out
}

// finishTokens completes normalize once every word is appended.
func finishTokens(out []token, name string) []token {
	// A name that is only honorifics ("General") keeps them, so it still
	// has something to match.
	if len(out) == 0 {
		for _, part := range splitASCII(transliterate(norm.NFKC.String(name))) {
			out = append(out, makeToken(part, false))
		}
	}
	out = spellNumbers(out)
	if hasLegalForm(out) {
		out = markDescriptors(joinInitials(mergeLegalForms(out)))
	}
	return mergeAbdAllah(out)
}

// mergeAbdAllah writes Abd Allah (عبد الله) as the one name Abdallah, the
// way most lists spell it.
func mergeAbdAllah(ts []token) []token {
	for i := 0; i+1 < len(ts); i++ {
		if ts[i].text == "abd" && ts[i+1].text == "allah" {
			m := makeToken("abdallah", ts[i].abjad)
			m.mixed = ts[i].mixed || ts[i+1].mixed
			ts = append(append(ts[:i:i], m), ts[i+2:]...)
		}
	}
	return ts
}

func appendToken(out []token, part string, abjad bool) []token {
	// The honorifics are Latin spellings: a transliterated abjad word
	// that happens to spell one (عمر is "mr") is a name.
	// After an article a title is a family name (El Sayed, Al-Sheikh).
	afterArticle := len(out) > 0 && out[len(out)-1].particle
	if !abjad {
		// A misspelt Abd prefix or honorific is that spelling (ADBUL,
		// GENREAL).
		part = fuzzyCanonical(part)
		if !afterArticle {
			if t := titleForm(part); t != "" {
				return append(out, makeTitle(t, abjad))
			}
			if honorifics[part] || foldHonorifics[fold(part)] {
				return out
			}
		}
	}
	// (Not for an abjad part: its folded consonants and long vowels meet
	// Latin spellings by chance, ساجدة sajd folds as Said does.)
	if v, ok := foldVariants[fold(part)]; ok && !abjad {
		part = v // Абдаллах → abdallakh → abdallah, one name, not abd + allakh
	}
	// Joined Arabic compounds split the way lists usually write them, so
	// Abdulrahman ~ Abd al-Rahman and Abubakar ~ Abu Bakar.
	// The longest prefix is taken, and the rest must be a name of two
	// letters or more that is not what is left of Allah (ABDULAH is a
	// misspelt Abdullah, one name).
	for _, p := range [...]string{"abdoul", "abdul", "abdel", "abdal", "abdol", "abdur", "abdu", "abd"} {
		if strings.HasPrefix(part, p) {
			rest := part[len(p):]
			if canonical[part] || len(rest) < 2 || strings.Contains("allah", rest) || strings.Contains("ullah", rest) {
				break // abdullah & co. are one name
			}
			return append(out, makeToken("abd", abjad), makeToken(rest, abjad))
		}
	}
	switch part {
	case "abdul", "abdel", "abdal", "abdol", "abdoul", "abdur", "abdu":
		part = "abd"
	}
	if !abjad {
		if stem, tail, ok := splitCompound(part); ok {
			out = appendToken(out, stem, abjad)
			for _, t := range tail {
				out = append(out, makeToken(t, abjad))
			}
			return out
		}
	}
	return append(out, makeToken(part, abjad))
}

// compoundEnds are the endings of Arabic compound names that Latin lists
// write joined (Jalaluddin, Nazirullah) and Arabic script, or other lists,
// apart (جلال الدين, Jalal al-Din; نذیر الله, Nazir Allah): a joined name
// is split into its stem and the parts the ending stands for.
var compoundEnds = []struct {
	end  string
	tail []string
}{
	{"uddin", []string{"al", "din"}}, {"uddeen", []string{"al", "din"}}, {"eddine", []string{"al", "din"}},
	{"eddin", []string{"al", "din"}}, {"addin", []string{"al", "din"}}, {"aldin", []string{"al", "din"}},
	{"uldin", []string{"al", "din"}}, {"eldin", []string{"al", "din"}}, {"udin", []string{"al", "din"}},
	{"ullah", []string{"allah"}}, {"ullha", []string{"allah"}}, {"ollah", []string{"allah"}}, {"allah", []string{"allah"}},
}

func splitCompound(part string) (string, []string, bool) {
	if canonical[part] || variants[part] != "" || strings.HasPrefix(part, "abd") {
		return "", nil, false
	}
	for _, c := range compoundEnds {
		if stem, ok := strings.CutSuffix(part, c.end); ok && len(stem) >= 3 {
			return stem, c.tail, true
		}
		if part == c.end && c.end == "eldin" {
			return "", nil, false
		}
	}
	// An ending with one typo (ISAMUDDNI, SAIFULLAHH, GULBUDIDN) is that
	// ending: only the five-letter endings, with their first letter, a
	// letter swapped, changed or added (not dropped: VESELIN is not
	// Ves al-Din), and a stem of three letters or more.
	for _, c := range compoundEnds {
		if len(c.end) < 5 {
			continue
		}
		for _, n := range [...]int{len(c.end), len(c.end) + 1} {
			if stem := len(part) - n; stem >= 3 && part[stem] == c.end[0] && oneEdit(part[stem:], c.end) {
				return part[:stem], c.tail, true
			}
		}
	}
	return "", nil, false
}

func makeToken(text string, abjad bool) token {
	if v, ok := variants[text]; ok {
		text = v
	} else if v, ok := foldVariants[fold(text)]; ok && !abjad {
		// A spelling that folds to a known variant's fold (Cyrillic
		// Мохамед → mokhamed → mohamed) is that variant.
		text = v
	}
	t := token{text: text, abjad: abjad, particle: particles[text], canon: len(spellings[text]) > 0}
	t.fold = fold(text)
	t.skel = skeleton(text)
	if strings.ContainsAny(text, "hgzj") { // else the two skeletons are equal
		if p := plainSkeleton(text); p != t.skel {
			t.skel0 = p
		}
	}
	return t
}

// foldVariants maps the fold of every variant spelling to its canonical
// form; canonical holds the canonical forms.
var foldVariants, canonical = func() (map[string]string, map[string]bool) {
	m, c := make(map[string]string, len(variants)), map[string]bool{}
	for from, to := range variants {
		m[fold(from)], m[fold(to)], c[to] = to, to, true
	}
	return m, c
}()

// spellings lists the variant spellings of each canonical form (the
// keys of variants that map to it, other than itself).
var spellings = func() map[string][]string {
	m := map[string][]string{}
	for _, table := range []map[string]string{variants, titles} {
		for from, to := range table {
			if from != to {
				m[to] = append(m[to], from)
			}
		}
	}
	// Abd is written with its vowel and the article's letter joined
	// (see appendToken); ABUL and ADUL are Abdul with a letter dropped.
	m["abd"] = []string{"abdal", "abdel", "abdol", "abdoul", "abdu", "abdul", "abdur"}
	for to, froms := range m {
		slices.Sort(froms)
		m[to] = froms
	}
	return m
}()

// spellingFolds holds fold(s) for each s of spellings[c], in the same
// order: variantEdit compares a query with them in the innermost loop of
// screening, where folding each time cost a third of a search.
var spellingFolds = func() map[string][]string {
	m := make(map[string][]string, len(spellings))
	for c, sps := range spellings {
		fs := make([]string, len(sps))
		for i, sp := range sps {
			fs[i] = fold(sp)
		}
		m[c] = fs
	}
	return m
}()

// foldHonorifics catches transliterations of honorifics (Маулави →
// maulavi ~ mawlawi).
var foldHonorifics = func() map[string]bool {
	m := make(map[string]bool, len(honorifics))
	for h := range honorifics {
		// A fold shared with a name is not an honorific: Sayyid folds
		// like Said and Saeed.
		if f := fold(h); foldVariants[f] == "" {
			m[f] = true
		}
	}
	return m
}()

// splitWords splits on anything that is not a letter, digit or mark, and
// joins across apostrophes (O'Brien, Nu'aymi, ʿAbd).
func splitWords(s string) []string {
	var words []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			words = append(words, b.String())
			b.Reset()
		}
	}
	for _, r := range s {
		switch {
		case isApostrophe(r):
			// dropped, word continues
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
			b.WriteRune(r)
		default:
			flush()
		}
	}
	flush()
	return words
}

func isApostrophe(r rune) bool {
	switch r {
	case '\'', '`', '\u2018', '\u2019', '\u02bb', '\u02bc', '\u02bd', '\u02be', '\u02bf', '\u00b4', '\u055a', '\u05f3':
		return true
	}
	return false
}

// splitASCII lower-cases transliterated text and splits it on what is not
// a letter or digit (unidecode turns some letters into punctuation, e.g.
// Arabic ain into a backquote, which is dropped).
func splitASCII(s string) []string {
	var parts []string
	buf := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			buf = append(buf, c+'a'-'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			buf = append(buf, c)
		case c == '\'' || c == '`':
		default:
			if len(buf) > 0 {
				parts = append(parts, string(buf))
				buf = buf[:0]
			}
		}
	}
	if len(buf) > 0 {
		parts = append(parts, string(buf))
	}
	return parts
}

// transliterate writes any script in ASCII (unidecode's tables).
func transliterate(s string) string { return unidecode.Unidecode(s) }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hanScripts write names in syllables that are each a character of the
// name: Chinese (and Japanese kanji), Korean. Kana are left out: they
// transcribe sounds, mostly of foreign names (バラク Baraku is Barack), and
// match as any phonetic script does.
var hanScripts = []*unicode.RangeTable{unicode.Han, unicode.Hangul}

func isHan(s string) bool {
	for _, r := range s {
		if r >= utf8.RuneSelf && unicode.In(r, hanScripts...) {
			return true
		}
	}
	return false
}

func isAbjad(s string) bool {
	for _, r := range s {
		if r >= utf8.RuneSelf && unicode.In(r, abjadBlocks...) {
			return true
		}
	}
	return false
}

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
