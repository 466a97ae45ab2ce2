package screening

import "testing"

// The rules of "Screening, part 3" (issue 25) for abjad parts against
// Latin ones. Every name here is made up.

func TestAbjadLongVowels(t *testing.T) {
	tok := func(s string) token { return normalize(s)[0] }
	for _, c := range []struct {
		abjad, latin string
		found, weak  bool
	}{
		// بزون writes the ū of Bazoun: spelled.
		{"بزون", "Bazoun", true, false},
		// … and Bazan has no ū: the same skeleton, another name.
		{"بزون", "Bazan", false, true},
		// بزن writes no vowel: Bazoun's ou would be written, Bazan's
		// short a is not: a skeleton match, weak.
		{"بزن", "Bazoun", false, true},
		{"بزن", "Bazan", true, true},
		// A medial alif is a long ā (داكور: Dakour, not Dikour).
		{"داكور", "Dakour", true, false},
		{"داكور", "Dikour", false, true},
		// Two consonants and a written ī are three letters: spelled.
		{"ديل", "Deila", true, false},
		// One consonant and a vowel fit too many names: weak.
		{"لي", "Lee", true, true},
	} {
		a, l := tok(c.abjad), tok(c.latin)
		s := tokenSim(&a, &l)
		if found := s >= weakPart; found != c.found {
			t.Errorf("%s ~ %s: similarity %.3f, found %v, want %v", c.abjad, c.latin, s, found, c.found)
		}
		if c.found {
			if weak := weakAlignment(&a, &l, false); weak != c.weak {
				t.Errorf("%s ~ %s: weak %v, want %v", c.abjad, c.latin, weak, c.weak)
			}
		}
	}
}

// A record matched through skeletons only stays under the threshold
// unless the date of birth or the country supports it.
func TestWeakOnlyNeedsSupport(t *testing.T) {
	ix := BuildIndex([]Entity{{ID: "x", Schema: Person, Names: []Name{{Full: "Bazan Kurtel", Type: Primary}},
		DOBs: []string{"1971-03-09"}, Countries: []string{"ZZ"}}})
	score := func(q Query) (float64, bool) {
		ms := ix.Search(q, 0, 1)
		if len(ms) == 0 {
			return 0, false
		}
		return ms[0].Score, ms[0].Features.WeakEvidence
	}
	if s, weak := score(Query{Name: "بزن كرتل"}); s >= DefaultThreshold || !weak {
		t.Errorf("skeletons only, nothing else: %.3f (weak evidence %v), want under %.2f", s, weak, DefaultThreshold)
	}
	if s, _ := score(Query{Name: "بزن كرتل", DOB: "1971-03-09"}); s < DefaultThreshold {
		t.Errorf("skeletons and the date of birth: %.3f, want ≥ %.2f", s, DefaultThreshold)
	}
	if s, _ := score(Query{Name: "بزن كرتل", Country: "ZZ"}); s < DefaultThreshold {
		t.Errorf("skeletons and the country: %.3f, want ≥ %.2f", s, DefaultThreshold)
	}
	// A spelled part is support too: بزون writes Bazoun's ū.
	ix = BuildIndex([]Entity{{ID: "y", Schema: Person, Names: []Name{{Full: "Bazoun Kurtel", Type: Primary}}}})
	if ms := ix.Search(Query{Name: "بزون كرتل"}, 0, 1); len(ms) == 0 || ms[0].Score < DefaultThreshold {
		t.Errorf("a spelled part and a skeleton: %v, want ≥ %.2f", ms, DefaultThreshold)
	}
}

// A very common name whose Arabic spelling writes no vowel is read as its
// usual romanisation: محمد is Muhammad (spelled), not any m-h-m-d name.
func TestArabicCommonSpelling(t *testing.T) {
	ts := normalize("محمد")
	if len(ts) != 1 || ts[0].text != "muhammad" || ts[0].abjad {
		t.Fatalf("محمد: %+v, want the Latin part muhammad", ts)
	}
	if s := CompareNames("محمد بزون", "Mohammed Bazoun"); s < DefaultThreshold {
		t.Errorf("محمد بزون ~ Mohammed Bazoun: %.3f, want ≥ %.2f", s, DefaultThreshold)
	}
	if s := CompareNames("محمد بزون", "Mahmoud Bazoun"); s >= DefaultThreshold {
		t.Errorf("محمد بزون ~ Mahmoud Bazoun: %.3f, want under %.2f", s, DefaultThreshold)
	}
}

// An abjad part is not looked up among Latin spellings by its fold:
// ساعيد (sayd) folds as the Latin Said does, and is not that name.
func TestAbjadNoLatinVariants(t *testing.T) {
	ts := normalize("ساعيد")
	if len(ts) != 1 || !ts[0].abjad || ts[0].text != "sayd" {
		t.Errorf("ساعيد: %+v, want the abjad part sayd", ts)
	}
}

// Tatweel only stretches a word; the fixed romanisations (bin, abu, abd,
// al, Allah) are Latin parts.
func TestArabicTatweelAndFixedForms(t *testing.T) {
	a, b := normalize("بزـــون"), normalize("بزون")
	if len(a) != 1 || len(b) != 1 || a[0].text != b[0].text {
		t.Errorf("بزـــون %v, بزون %v: want one part, the same", a, b)
	}
	for _, tk := range normalize("عبد بن") {
		if tk.abjad {
			t.Errorf("%q: abjad, want a Latin part", tk.text)
		}
	}
}

// A compound written as one word in Arabic script is split as its Latin
// spelling is (Quzamuddin and قزامالدین are Quzam al-Din; Bazirullah and
// بازيرالله are Bazir Allah).
func TestArabicJoinedCompounds(t *testing.T) {
	for _, c := range [][2]string{{"قزامالدین", "Quzamuddin"}, {"بازيرالله", "Bazirullah"}} {
		var got []string
		for _, tk := range normalize(c[0]) {
			got = append(got, tk.text)
		}
		if len(got) < 2 || got[len(got)-1] != map[bool]string{true: "din", false: "allah"}[len(got) == 3] {
			t.Errorf("%s: %v, want the stem and al din or allah", c[0], got)
		}
		if s := CompareNames(c[0], c[1]); s < DefaultThreshold {
			t.Errorf("%s ~ %s: %.3f, want ≥ %.2f", c[0], c[1], s, DefaultThreshold)
		}
	}
}

// Two abjad parts written together against one Latin part are a spelled
// match when the join writes two long vowels the Latin part has, and weak
// when it writes fewer.
func TestJoinAcrossScripts(t *testing.T) {
	join := func(a, b string) token {
		ta, tb := normalize(a)[0], normalize(b)[0]
		return makeToken(ta.text+tb.text, true)
	}
	for _, c := range []struct {
		a, b, latin string
		weak        bool
	}{
		// بیلی ساد writes ī, ī and ā: Bilisad.
		{"بیلی", "ساد", "Bilisad", false},
		// بل سد writes no vowel: Bilsad by skeleton only.
		{"بل", "سد", "Bilsad", true},
	} {
		j, l := join(c.a, c.b), normalize(c.latin)[0]
		if weak := weakAlignment(&j, &l, true); weak != c.weak {
			t.Errorf("%s %s ~ %s: weak %v, want %v", c.a, c.b, c.latin, weak, c.weak)
		}
	}
}
