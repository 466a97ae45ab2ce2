package screening

import (
	"fmt"
	"testing"
)

// The rarity rules of "Screening, part 3" (issue 25). Every name here is
// made up.

// commonList is a list of 1,200 made-up people in which Zorvan and Pelmo
// are common parts (in every name, and in one name of ten) and Quintafer
// and Tessik appear once each.
func commonList(target string, dobs []string) *Index {
	var ents []Entity
	for i := 0; i < 1200; i++ {
		given := fmt.Sprintf("G%c%c%cor", 'a'+i%26, 'a'+i/26%26, 'b'+i%7)
		if i%10 == 0 {
			given = "Pelmo"
		}
		family := fmt.Sprintf("Zorvan %c%c%cek", 'a'+i/26%26, 'a'+i%26, 'c'+i%5)
		ents = append(ents, Entity{ID: fmt.Sprint(i), Schema: Person, Names: []Name{{Full: given + " " + family, Type: Primary}}})
	}
	ents = append(ents, Entity{ID: "target", Schema: Person, Names: []Name{{Full: target, Type: Primary}}, DOBs: dobs})
	return BuildIndex(ents)
}

func targetScore(t *testing.T, ix *Index, q Query) Match {
	t.Helper()
	for _, m := range ix.Search(q, 0, MaxMatches) {
		if m.Entity.ID == "target" {
			return m
		}
	}
	return Match{}
}

// A common name and a listed record without a date of birth: the date of
// birth the customer gave cannot agree, and the factor says so; an exact
// date of birth or a rare name is not touched.
func TestCommonNameMissingDOB(t *testing.T) {
	ix := commonList("Pelmo Zorvan", nil)
	m := targetScore(t, ix, Query{Name: "Pelmo Zorvan", DOB: "1980-05-05"})
	if m.Features.DOB != "unknown" || m.Features.DOBFactor != missingDOBCommon {
		t.Errorf("common name, record without DOB: dob %q ×%.2f, want unknown ×%.2f", m.Features.DOB, m.Features.DOBFactor, missingDOBCommon)
	}
	if m := targetScore(t, ix, Query{Name: "Pelmo Zorvan"}); m.Features.DOBFactor != 1 || m.Score != 1 {
		t.Errorf("no DOB given: %.3f ×%.2f, want 1 ×1", m.Score, m.Features.DOBFactor)
	}
	ix = commonList("Quintafer Zorvan", nil)
	if m := targetScore(t, ix, Query{Name: "Quintafer Zorvan", DOB: "1980-05-05"}); m.Features.DOBFactor != 1 {
		t.Errorf("rare name, record without DOB: ×%.2f, want ×1", m.Features.DOBFactor)
	}
}

// In a small list no part is common by count: one name of ten is not a
// frequency.
func TestCommonNeedsLargeList(t *testing.T) {
	ix := BuildIndex([]Entity{{ID: "target", Schema: Person, Names: []Name{{Full: "Pelmo Zorvan", Type: Primary}}}})
	if m := targetScore(t, ix, Query{Name: "Pelmo Zorvan", DOB: "1980-05-05"}); m.Features.commonOnly || m.Features.DOBFactor != 1 {
		t.Errorf("one-name list: common only %v, dob ×%.2f, want false ×1", m.Features.commonOnly, m.Features.DOBFactor)
	}
}

// A name matched in part (a listed part the customer did not give) and a
// record without a date of birth: nothing tells the customer from the
// listed person's namesakes, and the factor says so.
func TestPartialNameMissingDOB(t *testing.T) {
	ix := BuildIndex([]Entity{{ID: "target", Schema: Person, Names: []Name{{Full: "Quintafer Brovallo Tessik", Type: Primary}}}})
	if m := targetScore(t, ix, Query{Name: "Quintafer Tessik", DOB: "1980-05-05"}); m.Features.DOBFactor != missingDOBCommon {
		t.Errorf("part of the name, record without DOB: ×%.2f, want ×%.2f", m.Features.DOBFactor, missingDOBCommon)
	}
	if m := targetScore(t, ix, Query{Name: "Quintafer Brovallo Tessik", DOB: "1980-05-05"}); m.Features.DOBFactor != 1 {
		t.Errorf("the whole name, record without DOB: ×%.2f, want ×1", m.Features.DOBFactor)
	}
}
