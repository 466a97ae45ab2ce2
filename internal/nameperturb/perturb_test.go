package nameperturb

import "testing"

// TestAmbiguous: the queries that keep one name of the person by
// construction, from the perturbed sets of bench/screening-eval.
func TestAmbiguous(t *testing.T) {
	for q, want := range map[string]string{
		"Qari SHEIKH":       "a title or suffix and one name",
		"FELICIANO JR.":     "a title or suffix and one name",
		"Dr. KHALIL":        "a title or suffix and one name",
		"MOHAMMAD MOHAMMAD": "one name twice",
		"Ali ALI":           "one name twice",
		"Mohammad Karim":    "",
		"Ali Karim Ali":     "",
	} {
		if got := Ambiguous(q); got != want {
			t.Errorf("Ambiguous(%q) = %q, want %q", q, got, want)
		}
	}
}
