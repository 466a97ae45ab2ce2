package screening

import "testing"

// The rules of the "Screening, part 3" issue derived from the tuning half
// of the labelled name pairs. Every example here is made up.

// TestInitialIsNotRepeated: a full given name left over is not a repeat
// of an initial that another part matched. Kevin K. Falkenrath and Dieter
// K. Falkenrath share the initial and the family name, and their given
// names differ: two people, as Bruno K. Falkenrath and Dieter K.
// Falkenrath are.
func TestInitialIsNotRepeated(t *testing.T) {
	for _, c := range [][2]string{
		{"Kevin K. Falkenrath", "Dieter K. Falkenrath"},
		{"Bruno K. Falkenrath", "Dieter K. Falkenrath"},
		{"Marta M. Oyelaran", "Sandra M. Oyelaran"},
	} {
		if got := CompareNames(c[0], c[1]); got >= DefaultThreshold {
			t.Errorf("%s ~ %s = %.3f, want < %.2f", c[0], c[1], got, DefaultThreshold)
		}
	}
	// A name written twice is still a repeat, and an initial still
	// stands for its name.
	for _, c := range [][2]string{
		{"Kevin Kevin Falkenrath", "Kevin Falkenrath"},
		{"K. Dieter Falkenrath", "Kevin Dieter Falkenrath"},
		{"Dieter K. Falkenrath", "Dieter Falkenrath"},
	} {
		if got := CompareNames(c[0], c[1]); got < DefaultThreshold {
			t.Errorf("%s ~ %s = %.3f, want ≥ %.2f", c[0], c[1], got, DefaultThreshold)
		}
	}
}
