package screening

import (
	"strings"
	"testing"
)

// One test per rule of the matcher's second pass on typos, titles,
// repeats and omissions, each with the example that motivated it (the
// misses and false positives of the perturbed sets of bench/screening-eval
// and of the shared name pairs).

func texts(ts []token) string {
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(' ')
		}
		if t.title {
			b.WriteString("title:")
		}
		b.WriteString(t.text)
	}
	return b.String()
}

func wantScore(t *testing.T, q, listed string, lo, hi float64) {
	t.Helper()
	if got := CompareNames(q, listed); got < lo || got > hi {
		t.Errorf("%s ~ %s = %.3f, want in [%.2f, %.2f]", q, listed, got, lo, hi)
	}
}

// TestTypoInCanonicalSpelling: a typo in a spelling that normalisation
// merges into a canonical form (MIHAMMED, Mohammed → muhammad; AKHED,
// Akhmed → ahmad) is a near match of that spelling, found through the
// canonical form, never corrected to an exact one.
func TestTypoInCanonicalSpelling(t *testing.T) {
	wantScore(t, "MIHAMMED OMAR", "MOHAMMED OMAR", DefaultThreshold, 0.99)
	wantScore(t, "AKHED ZAKAYEV", "AKHMED ZAKAYEV", DefaultThreshold, 0.99)
	q, c := normalize("Mihammed")[0], normalize("Mohammed")[0]
	if !c.canon || q.canon {
		t.Fatalf("canon flags: %+v %+v", q, c)
	}
	if s := tokenSim(&q, &c); s != 0.93 {
		t.Errorf("tokenSim(mihammed, muhammad) = %.3f, want 0.93 (one typo in a spelling of five letters or more)", s)
	}
}

// TestMisspeltPartNotSplit: a part the list knows with one typo is that
// part, not two known parts written together (HASHIMOOT is Hashimoto, not
// Hashim + Oot).
func TestMisspeltPartNotSplit(t *testing.T) {
	ix := BuildIndex([]Entity{
		{ID: "1", Schema: Person, Names: []Name{{Full: "HASHIMOTO Taro", Type: Primary}}},
		{ID: "2", Schema: Person, Names: []Name{{Full: "HASHIM Oot", Type: Primary}}},
	})
	if got := texts(ix.splitJoined(normalize("Hashimoot Taro"))); got != "hashimoot taro" {
		t.Errorf("split %q", got)
	}
	ms := ix.Search(Query{Name: "Hashimoot Taro"}, DefaultThreshold, 5)
	if len(ms) == 0 || ms[0].Entity.ID != "1" {
		t.Errorf("Hashimoot Taro: %+v", ms)
	}
}

// TestLeftoverPairs: a part left over on each side, one typo apart in a
// way Jaro–Winkler does not reward in short parts (OAR/OMAR, SAH/SHAH,
// HMED/AHMED, SBA/SABA, AIZ/AZIZ), counts 0.9 when an exact part anchors
// the match; without the anchor it does not (Salvi Redi is not Rudi
// Saliwa), and never between Chinese or Korean syllables (成 is
// Cheng, 陈 Chen: two characters).
func TestLeftoverPairs(t *testing.T) {
	for _, c := range [][2]string{
		{"OAR ABDULLAH", "OMAR ABDULLAH"},
		{"ASIF SAH", "ASIF SHAH"},
		{"HMED KHALIL", "AHMED KHALIL"},
		{"SBA AHMED", "SABA AHMED"},
		{"AIZ RAHMAN", "AZIZ RAHMAN"},
		{"OUD SIDI", "OULD SIDI"}, // a misspelt particle
	} {
		wantScore(t, c[0], c[1], DefaultThreshold, 0.99)
		f := scoreOf(t, c[0], c[1])
		weak := false
		for _, tp := range f.Tokens {
			weak = weak || tp.Weak
		}
		if !weak && c[0] != "OUD SIDI" {
			t.Errorf("%s: the leftover pair is not marked weak: %+v", c[0], f.Tokens)
		}
	}
	wantScore(t, "Salvi Redi", "Rudi Saliwa", 0, DefaultThreshold-0.01)
	wantScore(t, "成 龙", "陈 龙", 0, DefaultThreshold-0.01)
	wantScore(t, "陈 龙", "陈龙", 1, 1)
	// Kana transcribe sounds: a foreign name in katakana is that name.
	wantScore(t, "Barack Obama", "バラク・オバマ", DefaultThreshold, 1)
}

// TestLookupTwoEditsAfterFolding: a typo can move a part two edits from
// the listed one once folded, or drop a letter between two equal ones; the
// part is still found (DAARAH for DAWARAH, FAKRHZADEH for FAKHRIZADEH,
// BOORDAI for BORDAI).
func TestLookupTwoEditsAfterFolding(t *testing.T) {
	for _, c := range [][2]string{
		{"ALI DAARAH", "ALI DAWARAH"},
		{"FAKRHZADEH MOHSEN", "FAKHRIZADEH MOHSEN"},
		{"BOORDAI NAWAZ", "BORDAI NAWAZ"},
	} {
		wantScore(t, c[0], c[1], DefaultThreshold, 1)
	}
}

// TestTitlesWornAsNames: Haji, Qari, Mullah… are kept as low-weight title
// parts, so a customer who gives the title and the family name (Haji
// Kotwal, Qari Tokhi) gave two parts the list has; a title whose fold is a
// name's is not read as a title (Said folds like Sayyid), and Amir is a name.
func TestTitlesWornAsNames(t *testing.T) {
	wantScore(t, "Haji Kotwal", "HAJI MUHAMMAD ASHRAF KOTWAL", DefaultThreshold, 0.99)
	wantScore(t, "Qari Tokhi", "QARI SAIFULLAH TOKHI", DefaultThreshold, 0.99)
	for name, want := range map[string]string{
		"Hajji Kotwal":  "title:haji kotwal",
		"Mulla Omar":    "title:mullah umar",
		"Sayyid Ali":    "title:sayyid ali",
		"Said Ali":      "said ali", // Said folds like Sayyid: a name
		"Amir Khan":     "amir khan",
		"Maulvi Abdul":  "title:mawlawi abd",
		"Sheikh Yassin": "title:sheikh yassin",
	} {
		if got := texts(normalize(name)); got != want {
			t.Errorf("normalize(%s) = %q, want %q", name, got, want)
		}
	}
	// A title alone never makes a match: it weighs a third of a name.
	wantScore(t, "Haji Ahmadzai", "HAJI MUHAMMAD ASHRAF KOTWAL", 0, DefaultThreshold-0.01)
}

// TestReadingOrder: "LAST, First Middle" is read First Middle LAST, so the
// parts between the first and last matter as they do in other lists
// (ZULUAGA LINDO, Francisco Javier asked as Francisco Lindo).
func TestReadingOrder(t *testing.T) {
	for in, want := range map[string]string{
		"ZULUAGA LINDO, Francisco Javier": "Francisco Javier ZULUAGA LINDO",
		"Smith, John, Jr.":                "Smith, John, Jr.", // two commas: left as it is
		"Acme, Inc":                       "Inc Acme",
		"Plain Name":                      "Plain Name",
	} {
		if got := strings.Join(strings.Fields(readingOrder(in)), " "); got != want {
			t.Errorf("readingOrder(%q) = %q, want %q", in, got, want)
		}
	}
	wantScore(t, "Francisco Lindo", "ZULUAGA LINDO, Francisco Javier", DefaultThreshold, 0.99)
}

// TestFirstAndLastGiven: a customer who gives the listed name's first and
// last parts and nothing else left out middle names; they count a quarter
// (EL HADI, Mustapha Nasri Ben Abdul Kader Ait asked as Mustapha Hadi).
func TestFirstAndLastGiven(t *testing.T) {
	const listed = "EL HADI, Mustapha Nasri Ben Abdul Kader Ait" // read Mustapha … Ait EL HADI
	wantScore(t, "Mustapha Hadi", listed, DefaultThreshold, 0.99)
	// The first part and a middle one are not the bounds: less.
	if a, b := CompareNames("Mustapha Hadi", listed), CompareNames("Mustapha Kader", listed); a <= b {
		t.Errorf("first+last %.3f ≤ first+middle %.3f", a, b)
	}
}

// TestRepeatedParts: a part repeated on either side is covered by its
// other occurrence (MATUQ MOHAMMED MATUQ; MOHAMED OMAR MOHAMED asked as
// Mohamed Omar; NOEL MAA MATA for NOEL MATA MATA, one MATA misspelt).
func TestRepeatedParts(t *testing.T) {
	wantScore(t, "MATUQ MOHAMMED MATUQ", "MATUQ MOHAMMED", 1, 1)
	wantScore(t, "Mohamed Omar", "MOHAMED OMAR MOHAMED", 1, 1)
	wantScore(t, "NOEL MAA MATA", "NOEL MATA MATA", DefaultThreshold, 0.99)
}

// TestAbdPrefixes: the Abd prefixes are split off longest first, with a
// letter doubled (ABBDULLAHI) or the first letter dropped (BDULHAI,
// BDOLLAHI: no Latin name starts with "bd"); ABDULAH is a misspelt
// Abdullah, one name; ADEL and ABEL are names, not Abdul with a letter
// dropped; ABUL and ADUL are a near match of Abd.
func TestAbdPrefixes(t *testing.T) {
	for name, want := range map[string]string{
		"Bdulhai":    "abd hai",
		"Bdollahi":   "abd lahi",
		"Abdollahi":  "abd lahi",
		"Abbdullahi": "abd lahi",
		"Abdoulaye":  "abd aye",
		"Adel":       "adel",
		"Abel":       "abel",
	} {
		if got := texts(normalize(name)); got != want {
			t.Errorf("normalize(%s) = %q, want %q", name, got, want)
		}
	}
	wantScore(t, "ABDULAH YUSUF", "ABDULLAH YUSUF", 1, 1)
	wantScore(t, "BDULHAI JAMIL", "ABDULHAI JAMIL", 1, 1)
	if f := texts(normalize("Abdulah")); strings.Contains(f, " ") {
		t.Errorf("Abdulah split: %q", f)
	}
	wantScore(t, "ADEL KHAN", "ABDUL KHAN", 0, 0.9)
}

// TestCompoundEndingTypos: a compound ending with one typo is that ending
// (ISAMUDDNI, SAIFULLAHH, GULBUDIDN), with its first letter and no
// dropped letter: VESELIN is not Ves al-Din.
func TestCompoundEndingTypos(t *testing.T) {
	for _, c := range [][2]string{
		{"ISAMUDDNI ALI", "ISAMUDDIN ALI"},
		{"SAIFULLAHH ALI", "SAIFULLAH ALI"},
		{"GULBUDIDN HEKMATYAR", "GULBUDDIN HEKMATYAR"},
	} {
		wantScore(t, c[0], c[1], 1, 1)
	}
	if got := texts(normalize("Veselin")); got != "veselin" {
		t.Errorf("normalize(Veselin) = %q", got)
	}
	wantScore(t, "VESELIN PETROV", "VES AL-DIN PETROV", 0, DefaultThreshold-0.01)
}

// TestEqualPairsByPlace: of two equally similar pairs, the one at about
// the same place in both names is taken (ABD LALAH ABDEL RAHMAN: the
// second Abd is the listed Abd, the first starts the misspelt Abdallah).
func TestEqualPairsByPlace(t *testing.T) {
	wantScore(t, "ABD LALAH ABDEL RAHMAN", "ABDALLAH ABDEL RAHMAN", 0.95, 1)
}

// TestSimilarPartWeighsNoMoreThanItself: a rare query part that is only
// similar to a common listed part (a misspelling that folds near Al)
// adds the listed part's weight to the names holding it, not its own.
func TestSimilarPartWeighsNoMoreThanItself(t *testing.T) {
	var ents []Entity
	for i := range 50 {
		ents = append(ents, Entity{ID: string(rune('a'+i%26)) + string(rune('a'+i/26)), Schema: Person, Names: []Name{{Full: "Omar Ali Rahman" + strings.Repeat("i", i%5), Type: Primary}}})
	}
	ents = append(ents, Entity{ID: "rare", Schema: Person, Names: []Name{{Full: "Zyx Qorwell", Type: Primary}}})
	ix := BuildIndex(ents)
	u := unit{weight: ix.maxIDF}
	var ali int32 = -1
	for v := range ix.vocab {
		if ix.vocab[v].text == "ali" {
			ali = int32(v)
		}
	}
	if ali < 0 {
		t.Fatal("no ali in the vocabulary")
	}
	if w := ix.simWeight(&u, similar{ali, 1}); w >= ix.maxIDF/2 {
		t.Errorf("a rare part similar to the common Ali adds %.3f (max idf %.3f)", w, ix.maxIDF)
	}
}
