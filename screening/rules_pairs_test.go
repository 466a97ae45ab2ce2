package screening

import "testing"

// The rules of the "Screening, part 3" issue derived from the tuning half
// of the labelled name pairs. Every example here is made up.

// TestCamelCaseJoin: two names written together keep the capital of the
// second (HelmtGrabowski): the word is split there even when a typo keeps
// either half from being a part the list knows. A prefix that is part of
// one name (Mac, Mc, De, Fitz) is no such join, nor a small letter inside
// a name written in capitals (HELMUeGRABOWSKI, a typo), nor a capital of
// another script (a look-alike: a Greek or Cyrillic K in Grabowski), and a company's name
// with capitals inside (a brand's way of writing one word) is left whole.
func TestCamelCaseJoin(t *testing.T) {
	for _, c := range [][2]string{
		{"HelmtGrabowski", "Helmut Grabowski"},
		{"Helmut GrabowskiNowak", "Helmut Grabowski-Nowak"},
		{"ВалентинаКоржова", "Валентина Коржова"},
	} {
		if got := CompareNames(c[0], c[1]); got < DefaultThreshold {
			t.Errorf("%s ~ %s = %.3f, want ≥ %.2f", c[0], c[1], got, DefaultThreshold)
		}
	}
	for _, c := range []struct {
		name string
		want int
	}{
		{"HelmtGrabowski", 2},
		{"Aileen MacArthur", 2},
		{"Aileen McDonald", 2},
		{"Aileen FitzGerald", 2},
		{"Aileen DeLuca", 2},
		{"AILEEN MACARTHUR", 2},
		{"aileen macarthur", 2},
		{"HELMUeGRABOWSKI", 1},
		{"HelmutGRABOWSKI", 1},
		{"helmutGrabowski", 1},
		{"GrabowsΚi", 1},
		{"GrabowsКi", 1},
	} {
		if got := len(splitCamel(splitWords(c.name))); got != c.want {
			t.Errorf("splitCamel(%q) gives %d words, want %d", c.name, got, c.want)
		}
	}
	company := Query{Name: "VelmraTrading", Schemas: []Schema{Organization}}
	if got := queryWords(company); len(got) != 1 {
		t.Errorf("a company's VelmraTrading is split: %q", got)
	}
	if got := queryWords(Query{Name: "VelmraTrading"}); len(got) != 2 {
		t.Errorf("a person's VelmraTrading is not split: %q", got)
	}
}
