package screening

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"kycd/internal/nameperturb"
)

// The examples of the "Screening, part 2" issue, one test per rule, on
// the real lists where the example is a listed record.

// TestTypoNearStart: an adjacent transposition is one edit (Damerau), and
// a part with one edit near its start still aligns, so the record keeps
// its score.
func TestTypoNearStart(t *testing.T) {
	for _, c := range [][2]string{
		{"ADBUL QUDDUS MAZHARI", "ABDUL QUDDUS MAZHARI"},
		{"BADUR REHMAN MADANI", "ABDUR REHMAN MADANI"},
		{"OMHAMMED OMAR GHULAM NABI", "MOHAMMED OMAR GHULAM NABI"},
		{"MOHAMEMD OMAR GHULAM NABI", "MOHAMMED OMAR GHULAM NABI"},
		{"CHOOE CHUN YONG", "CHOE CHUN YONG"},
		{"SKO CHOL", "SOK CHOL"},
		{"IYDA AG GHALI", "IYAD AG GHALI"},
		{"Sergei Lavrov", "SergeiLavrov"},
	} {
		if got := CompareNames(c[0], c[1]); got < DefaultThreshold {
			t.Errorf("%s ~ %s = %.3f, want ≥ %.2f", c[0], c[1], got, DefaultThreshold)
		}
	}
	for _, c := range [][2]string{{"ali", "lai"}, {"sko", "sok"}, {"adbul", "abdul"}} {
		if !oneEdit(c[0], c[1]) {
			t.Errorf("oneEdit(%s, %s) = false: a transposition is one edit", c[0], c[1])
		}
	}
	if oneEdit("abc", "cab") || oneEdit("abcd", "badc") {
		t.Error("two transpositions counted as one edit")
	}
}

// TestWeakAlignmentsDoNotPass: skeleton-only and joined alignments weigh
// by the evidence they carry, and one weak alignment alone cannot pass
// the threshold. The false positives of the issue, on the real UN list.
func TestWeakAlignmentsDoNotPass(t *testing.T) {
	un, ofac, pep := realIndexes(t)
	for _, c := range []struct {
		query string
		ix    *Index
		not   string // the entity it must not match
	}{
		{"William Owen", un, "111514"}, // عبد المنان آغا through the skeleton of "williamowen"
		{"Salvi Redi", un, "6908126"},  // رودي سليوة through two two-consonant skeletons
		{"璐 刘", un, "6909528"},         // ABU LULU through lu+liu joined
		{"Li Wei", pep, ""},            // Glenn Ivey through "liwei"
		{"Zhang Wei", ofac, "11447"},   // LI, Fangwei through "zhangwei"
		{"Thomas A. Lind", nil, ""},    // Thomas Lindemann: a short part in a long one
	} {
		if c.ix == nil {
			if got := CompareNames(c.query, "Thomas Lindemann"); got >= DefaultThreshold {
				t.Errorf("%s ~ Thomas Lindemann = %.3f", c.query, got)
			}
			continue
		}
		for _, m := range c.ix.Search(Query{Name: c.query}, DefaultThreshold, MaxMatches) {
			if c.not == "" || m.Entity.ID == c.not {
				t.Errorf("%s matches %s %q at %.3f (%+v)", c.query, m.Entity.ID, m.MatchedName.Full, m.Score, m.Features.Tokens)
			}
		}
	}
	// The listed person is still found by his Latin name.
	if ms := un.Search(Query{Name: "Abdul Manan Agha"}, DefaultThreshold, 5); len(ms) == 0 {
		t.Error("Abdul Manan Agha is not found")
	}
	f := scoreOf(t, "Li Wei", "Glenn Ivey")
	if !f.WeakEvidence || len(f.Tokens) != 1 || !f.Tokens[0].Weak {
		t.Errorf("Li Wei ~ Glenn Ivey features: %+v", f)
	}
}

func scoreOf(t *testing.T, q, listed string) Features {
	t.Helper()
	ix := BuildIndex([]Entity{{ID: "x", Schema: Person, Names: []Name{{Full: listed, Type: Primary}}}})
	ms := ix.Search(Query{Name: q}, 0, 1)
	if len(ms) == 0 {
		t.Fatalf("%s ~ %s: no candidate", q, listed)
	}
	return ms[0].Features
}

// TestMiddleNamesOmitted: listed parts the customer left out count less
// when everything the customer gave was found.
func TestMiddleNamesOmitted(t *testing.T) {
	for _, c := range [][2]string{
		{"Khaled Mohammed", "KHALED, Abdulbaqi Mohammed"},
		{"Francisco LINDO", "ZULUAGA LINDO, Francisco Javier"},
		{"Matuq Mohammed Matqu", "MATUQ MOHAMMED MATUQ"}, // a repeated part with a typo
	} {
		if got := CompareNames(c[0], c[1]); got < DefaultThreshold {
			t.Errorf("%s ~ %s = %.3f, want ≥ %.2f", c[0], c[1], got, DefaultThreshold)
		}
	}
	// A different middle initial is a conflict, not an omission.
	if got := CompareNames("Hans O Friedrich", "Hans Joachim Friedrich"); got >= DefaultThreshold {
		t.Errorf("Hans O Friedrich ~ Hans Joachim Friedrich = %.3f", got)
	}
}

// TestArabicToLatin: Arabic-script names find Latin-only records: the
// article and particles are split and spelt as Latin lists do, compounds
// meet their joined spellings, and consonant classes merge what
// romanisations of Arabic write differently. Real UN records.
func TestArabicToLatin(t *testing.T) {
	for _, c := range [][2]string{
		{"عبد القادر محمود محمد السيد", "ABD EL KADER MAHMOUD MOHAMED EL SAYED"},
		{"جمال عكاشة", "DJAMEL AKKACHA"},
		{"نور محمد ثاقب", "NOOR MOHAMMAD SAQIB"},
		{"عمر محمد قدير", "AMOR MOHAMED GHEDEIR"},
		{"رشيد طعان كاظم", "Rashid Taan Kathim"},
		{"جلال الدين حقانى", "Jalaluddin Haqani"},
		{"هدايت الله", "HIDAYATULLAH"},
		{"عبدالرحمان آغا", "ABDUL RAHMAN AGHA"},
		{"شلום כהן", "Shalom Cohen"}, // mixed Hebrew: the plain skeleton still meets it
	} {
		if got := CompareNames(c[0], c[1]); got < DefaultThreshold {
			t.Errorf("%s ~ %s = %.3f, want ≥ %.2f", c[0], c[1], got, DefaultThreshold)
		}
	}
	var got []string
	for _, tk := range normalize("عبدالحليم بن القادر") {
		got = append(got, tk.text)
	}
	// القادر writes the ā of al-Qadir (its alif after the first letter).
	if strings.Join(got, " ") != "abd al hlym bin al qadr" {
		t.Errorf("normalize(عبدالحليم بن القادر) = %v", got)
	}
}

// TestScreeningGoals guards the goal figures of the issue on the shared
// data at the default threshold, with the seeded perturbations of
// internal/nameperturb (bench/screening-eval prints them in full): recall
// on perturbed listed names with no DOB or country, alerts on customers
// on no list screened without their country, and Arabic-script names
// against a Latin-only list. The floors sit just under today's figures so
// that a regression fails the build; docs/screening.md gives the figures.
func TestScreeningGoals(t *testing.T) {
	un, ofac, pep := realIndexes(t)
	unE, _ := ParseUN(openShared(t, "lists/un_consolidated_2026-02-27.xml"))
	for _, l := range []struct {
		name string
		ix   *Index
	}{{"UN", un}, {"OFAC", ofac}} {
		ents := l.ix.entities
		rng := rand.New(rand.NewPCG(2024, uint64(len(ents))))
		var people []Entity
		for _, e := range ents {
			if e.Schema == Person && len(nameperturb.Parts(e.Names[0].Full)) >= 2 {
				people = append(people, e)
			}
		}
		rng.Shuffle(len(people), func(i, j int) { people[i], people[j] = people[j], people[i] })
		found, n := 0, 0
		for i := 0; n < 1000 && i < len(people); i++ {
			q, ok := nameperturb.Apply(rng, people[i].Names[0].Full, nameperturb.Kinds[n%len(nameperturb.Kinds)])
			if !ok {
				continue
			}
			n++
			for _, m := range l.ix.Search(Query{Name: q}, DefaultThreshold, MaxMatches) {
				if m.Entity.ID == people[i].ID {
					found++
					break
				}
			}
		}
		if r := float64(found) / float64(n); r < 0.995 {
			t.Errorf("%s perturbed names: recall %.4f (%d of %d), want ≥ 0.995", l.name, r, found, n)
		} else {
			t.Logf("%s perturbed names: recall %.4f (%d of %d)", l.name, r, found, n)
		}
	}
	alerts := 0
	for _, f := range []string{"eval/negatives_global_dev.csv", "eval/negatives_us_dev.csv"} {
		for _, q := range evalPeople(t, f) {
			q.Country = ""
			for _, ix := range []*Index{un, ofac, pep} {
				if len(ix.Search(q, DefaultThreshold, 1)) > 0 {
					alerts++
					break
				}
			}
		}
	}
	if alerts > 2 {
		t.Errorf("%d alerts among 2,000 customers on no list screened without country, want ≤ 2 (0.1%%)", alerts)
	}
	var latin []Entity
	type q struct{ id, name string }
	var qs []q
	for _, e := range unE {
		c := e
		c.Names = nil
		for _, n := range e.Names {
			if isAbjad(n.Full) {
				if e.Schema == Person && n.Type == Native && !strings.ContainsFunc(n.Full, isLatinLetter) {
					qs = append(qs, q{e.ID, n.Full})
				}
				continue
			}
			c.Names = append(c.Names, n)
		}
		if len(c.Names) > 0 {
			latin = append(latin, c)
		}
	}
	lix := BuildIndex(latin)
	hit := 0
	for _, x := range qs {
		for _, m := range lix.Search(Query{Name: x.name}, DefaultThreshold, MaxMatches) {
			if m.Entity.ID == x.id {
				hit++
				break
			}
		}
	}
	// Issue 25 made a skeleton alone weak evidence across scripts (two
	// such parts and no date of birth or country stay under the
	// threshold): 0.933 → 0.902; the floor is that goal, 0.90.
	if r := float64(hit) / float64(len(qs)); r < 0.90 || len(qs) < 300 {
		t.Errorf("Arabic → Latin: %d of %d found (%.3f), want ≥ 0.90", hit, len(qs), r)
	} else {
		t.Logf("Arabic → Latin: %d of %d found (%.3f)", hit, len(qs), r)
	}
}

func isLatinLetter(r rune) bool { return unicode.Is(unicode.Latin, r) }
