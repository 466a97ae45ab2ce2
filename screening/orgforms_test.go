package screening

import "testing"

// Legal forms are one symbol whatever their spelling, and weigh like a
// particle. The companies are made up.
func TestLegalForms(t *testing.T) {
	org := func(a, b string) float64 {
		ix := BuildIndex([]Entity{{ID: "x", Schema: Organization, Names: []Name{{Full: b, Type: Primary}}}})
		ms := ix.Search(Query{Name: a, Schemas: []Schema{Organization}}, 0, 1)
		if len(ms) == 0 {
			return 0
		}
		return ms[0].Score
	}
	for _, c := range [][2]string{
		{"Brovalt AG", "Brovalt Aktiengesellschaft"},
		{"Brovalt Kemix JSC", "Brovalt Kemix Open Joint Stock Company"},
		{"OAO Brovalt", "Brovalt PJSC"},
		{"Brovalt Limited", "Brovalt Ltd"},
		{"ООО Бровалт", "Brovalt LLC"},
		// A long legal-form word with one typo is that form.
		{"Brovalt Aktiengeselschaft", "Brovalt AG"},
		{"Brovalt Kemix Joint Stock Compan", "Brovalt Kemix JSC"},
	} {
		if s := org(c[0], c[1]); s < DefaultThreshold {
			t.Errorf("%s ~ %s: %.3f, want ≥ %.2f", c[0], c[1], s, DefaultThreshold)
		}
	}
	// Sharing only a legal form is sharing nothing.
	if s := org("Brovalt Joint Stock Company", "Quennix JSC"); s >= DefaultThreshold {
		t.Errorf("Brovalt Joint Stock Company ~ Quennix JSC: %.3f, want under %.2f", s, DefaultThreshold)
	}
	// A person's name is left alone.
	for _, n := range []string{"Coralie Limon", "Limitra Compay"} {
		if ts := normalize(n); len(ts) != 2 || ts[0].particle {
			t.Errorf("%s: %+v", n, ts)
		}
	}
}
