package screening

import (
	"testing"
)

// BenchmarkSearchRealLists is one screening (a customer on no list, the
// usual case, and a listed one) against OFAC + UN + PEP.
func BenchmarkSearchRealLists(b *testing.B) {
	un, ofac, pep := realIndexes(b)
	qs := []Query{
		{Name: "Patricia Lucas Wheeler", DOB: "2002-07-14"},
		{Name: "Ayman al-Zawahiri"},
		{Name: "Мария Александровна Захарова"},
		{Name: "Mohammed Hassan Ali"},
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		for _, ix := range []*Index{un, ofac, pep} {
			ix.Search(q, DefaultThreshold, MaxMatches)
		}
	}
}

func BenchmarkNormalize(b *testing.B) {
	names := []string{"Abd al-Rahman Mohammed Hussein", "Дмитрий Анатольевич Медведев", "محمد علي", "Zoë Łukasiewicz"}
	for i := 0; b.Loop(); i++ {
		normalize(names[i%len(names)])
	}
}

func BenchmarkJaroWinkler(b *testing.B) {
	for b.Loop() {
		jaroWinkler("muhamad", "mohamed")
	}
}
