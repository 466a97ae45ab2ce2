package screening

// Organisation legal forms (AG, Aktiengesellschaft, JSC, OAO, Joint Stock
// Company, LLC, OOO, Ltd, Limited, Corp., Company…) say what kind of body a
// name belongs to, not which one: Siemens AG is Siemens Aktiengesellschaft,
// and two companies sharing only "Joint Stock Company" share nothing. Each
// form, written as a word, an abbreviation or a phrase, in Latin or
// transliterated from Cyrillic, becomes one symbol that weighs like a
// particle.

// legalForms maps a legal-form word to its symbol.
var legalForms = map[string]string{
	"ag": "ag", "aktiengesellschaft": "ag",
	"jsc": "jsc", "ojsc": "jsc", "pjsc": "jsc", "cjsc": "jsc", "oao": "jsc", "pao": "jsc", "zao": "jsc",
	"llc": "llc", "ooo": "llc",
	"ltd": "ltd", "limited": "ltd",
	"co": "co", "company": "co",
	"corp": "corp", "corporation": "corp",
	"inc": "inc", "incorporated": "inc",
	"gmbh": "gmbh", "plc": "plc", "srl": "srl", "sarl": "srl",
}

// legalPhrases are legal forms written in several words, longest first.
var legalPhrases = []struct {
	words []string
	form  string
}{
	{[]string{"open", "joint", "stock", "company"}, "jsc"},
	{[]string{"public", "joint", "stock", "company"}, "jsc"},
	{[]string{"closed", "joint", "stock", "company"}, "jsc"},
	{[]string{"societatea", "cu", "raspundere", "limitata"}, "srl"},
	{[]string{"joint", "stock", "company"}, "jsc"},
	{[]string{"limited", "liability", "company"}, "llc"},
	{[]string{"aktsionernoe", "obshchestvo"}, "jsc"},
	// Polish spolka z ograniczona odpowiedzialnoscia, written Sp. z o.o.
	{[]string{"sp", "z", "o", "o"}, "llc"},
}

// longLegalWords are the legal-form words of six letters or more: written
// with one typo (Aktiengeselschaft, COMPAN) they are still that form.
var longLegalWords = func() []string {
	var out []string
	seen := map[string]bool{}
	for w := range legalForms {
		if len(w) >= 6 {
			out = append(out, w)
		}
	}
	for _, p := range legalPhrases {
		for _, w := range p.words {
			if len(w) >= 6 && !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}()

// legalWord returns the legal-form word w is, exactly or with one typo in
// a word of six letters or more, or "".
func legalWord(w string) string {
	if legalForms[w] != "" {
		return w
	}
	if len(w) < 5 {
		return ""
	}
	for _, l := range longLegalWords {
		if oneEdit(w, l) {
			return l
		}
	}
	return ""
}

// mergeLegalForms replaces legal-form phrases and words with their
// symbols, marked as particles.
func mergeLegalForms(ts []token) []token {
	out := ts[:0:0]
	for i := 0; i < len(ts); {
		n, form := 1, ""
		for _, p := range legalPhrases {
			if i+len(p.words) <= len(ts) && phraseAt(ts[i:], p.words) {
				n, form = len(p.words), p.form
				break
			}
		}
		if form == "" {
			form = legalForms[legalWord(ts[i].text)]
		}
		if form == "" {
			out = append(out, ts[i])
			i++
			continue
		}
		t := makeToken(form, false)
		t.particle = true
		out = append(out, t)
		i += n
	}
	return out
}

func phraseAt(ts []token, words []string) bool {
	for k, w := range words {
		if ts[k].text != w && ts[k].fold != fold(w) && legalWord(ts[k].text) != w {
			return false
		}
	}
	return true
}

// hasLegalForm reports whether any part is a legal-form word, so names
// without one (nearly all people) are not copied.
func hasLegalForm(ts []token) bool {
	for i := range ts {
		if legalWord(ts[i].text) != "" {
			return true
		}
		for _, p := range legalPhrases {
			if ts[i].text == p.words[0] {
				return true
			}
		}
	}
	return false
}
