package screening

import "testing"

// Numbers as digits or words, abbreviated organisation words and initials
// with or without stops are the same name. The organisations are made up.
func TestOrgWordVariants(t *testing.T) {
	org := func(a, b string) float64 {
		ix := BuildIndex([]Entity{{ID: "x", Schema: Organization, Names: []Name{{Full: b, Type: Primary}}}})
		ms := ix.Search(Query{Name: a, Schemas: []Schema{Organization}}, 0, 1)
		if len(ms) == 0 {
			return 0
		}
		return ms[0].Score
	}
	for _, c := range [][2]string{
		{"Quellar Twelve", "Quellar 12"},
		{"Quellar Sixty-Seven", "Quellar 67"},
		{"Quellar Sixty 7", "Quellar 67"},
		{"Seven Brovans", "7 Brovans"},
		{"1st Marvellion Trust", "First Marvellion Trust"},
		{"Dritte Kemix Werke", "3 Kemix Werke"},
		{"Trois Brovans", "3 Brovans"},
		{"Cinco Quellares", "5 Quellares"},
		{"Пять Бровалт", "5 Brovalt"},
		{"Marvellion Int'l Trust", "Marvellion International Trust"},
		{"Q.R.V. Company", "QRV Co."},
		{"Q R V Ltd", "QRV Limited"},
		{"Brovalt", "Brovalt Sp. z o.o."},
		// A region or grouping word of a company name weighs little.
		{"Quellarix", "Quellarix Europe Sp. z o.o."},
		{"Quellarix Group Ltd", "Quellarix Holding Ltd"},
	} {
		if s := org(c[0], c[1]); s < DefaultThreshold {
			t.Errorf("%s ~ %s: %.3f, want ≥ %.2f", c[0], c[1], s, DefaultThreshold)
		}
	}
	// Different numbers are different names.
	for _, c := range [][2]string{
		{"Quellar Forty-Four", "Quellar 45"},
		{"Q.R.V.X. Company", "Q.R.V. Company"},
	} {
		if s := org(c[0], c[1]); s >= DefaultThreshold {
			t.Errorf("%s ~ %s: %.3f, want under %.2f", c[0], c[1], s, DefaultThreshold)
		}
	}
	// A person's initials stay initials.
	for _, tk := range normalize("Q R Brovan") {
		if tk.text == "qr" {
			t.Errorf("Q R Brovan: initials joined: %+v", normalize("Q R Brovan"))
		}
	}
}
