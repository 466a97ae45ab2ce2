package screening

import "testing"

// The general source of name frequencies (namefreq.go). Every name here is
// made up, and so is the source: the test swaps in a table of its own.

// withGeneralNames makes the general source say what m says while f runs.
func withGeneralNames(t *testing.T, m map[string]generalFreq) {
	t.Helper()
	saved := generalNames
	generalNames = m
	t.Cleanup(func() { generalNames = saved })
}

// madeUpSource: Velmor and Castrin are names most cultures list (very
// common), Dranquel one culture lists among a few thousand (rare enough),
// and Oszpiet no culture lists.
var madeUpSource = map[string]generalFreq{
	fold("velmor"):   {locales: 7, share: 0.006},
	fold("castrin"):  {locales: 5, share: 0.01},
	fold("dranquel"): {locales: 1, share: 0.0003},
}

func TestGeneralInformation(t *testing.T) {
	withGeneralNames(t, madeUpSource)
	for _, c := range []struct {
		part     string
		min, max float64
		common   bool
	}{
		{"Velmor", 0.5, 0.75, true},
		{"Castrin", 0.5, 0.75, true},
		{"Dranquel", 1, 1, false},
		{"Oszpiet", 1, 1, false},
	} {
		tok := normalize(c.part)[0]
		if w := generalInformation(&tok); w < c.min || w > c.max || veryCommon(&tok) != c.common {
			t.Errorf("%s: information %.3f (want %.2f–%.2f), very common %v (want %v)", c.part, w, c.min, c.max, veryCommon(&tok), c.common)
		}
	}
}

// A customer called by two very common names matches in part a listed
// person who bears them and a rare name besides: with no date of birth or
// country to support it, the match cannot reach the threshold, whatever
// the list's own counts say (a list of one name has none). The same
// customer with the listed person's year of birth, or a customer whose
// match a rare name carries, is not touched; nor is the whole name.
func TestCommonNamesAloneStayUnderThreshold(t *testing.T) {
	withGeneralNames(t, madeUpSource)
	list := func(name string, dobs ...string) *Index {
		return BuildIndex([]Entity{{ID: "target", Schema: Person, Names: []Name{{Full: name, Type: Primary}}, DOBs: dobs}})
	}
	ix := list("Velmor Castrin Oszpiet", "1971-03-02")
	m := targetScore(t, ix, Query{Name: "Velmor Castrin", DOB: "1988-11-20"})
	if m.Score >= DefaultThreshold || !m.Features.CommonNamesOnly {
		t.Errorf("very common names only: %.3f, common names only %v; want under %.2f, true", m.Score, m.Features.CommonNamesOnly, DefaultThreshold)
	}
	if m := targetScore(t, ix, Query{Name: "Velmor Castrin"}); m.Score >= DefaultThreshold {
		t.Errorf("very common names only, no DOB given: %.3f, want under %.2f", m.Score, DefaultThreshold)
	}
	if m := targetScore(t, ix, Query{Name: "Velmor Castrin", DOB: "1971-03-02"}); m.Features.CommonNamesOnly || m.Score < DefaultThreshold {
		t.Errorf("very common names and the exact DOB: %.3f, common names only %v; want ≥ %.2f, false", m.Score, m.Features.CommonNamesOnly, DefaultThreshold)
	}
	if m := targetScore(t, ix, Query{Name: "Velmor Castrin", Country: "XX"}); !m.Features.CommonNamesOnly {
		t.Errorf("very common names, a country the record lacks: common names only %v, want true", m.Features.CommonNamesOnly)
	}
	if m := targetScore(t, ix, Query{Name: "Velmor Castrin Oszpiet", DOB: "1988-11-20"}); m.Features.CommonNamesOnly {
		t.Errorf("the whole name: common names only %v, want false", m.Features.CommonNamesOnly)
	}
	ix = list("Velmor Oszpiet Dranquel")
	if m := targetScore(t, ix, Query{Name: "Velmor Oszpiet"}); m.Features.CommonNamesOnly || m.Score < DefaultThreshold {
		t.Errorf("a rare name carries the match: %.3f, common names only %v; want ≥ %.2f, false", m.Score, m.Features.CommonNamesOnly, DefaultThreshold)
	}
}
