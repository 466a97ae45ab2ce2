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
	cpu := startCPU(b)
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		for _, ix := range []*Index{un, ofac, pep} {
			ix.Search(q, DefaultThreshold, MaxMatches)
		}
	}
	cpu.stop()
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

// BenchmarkBuildIndex indexes the real OFAC 2021-07 trio, the UN list and
// the US Congress PEPs (about 29,000 names): the work a list load does
// after reading the entities.
func BenchmarkBuildIndex(b *testing.B) {
	unE, err := ParseUN(openShared(b, "lists/un_consolidated_2026-02-27.xml"))
	if err != nil {
		b.Fatal(err)
	}
	ofE, err := ParseOFAC(openShared(b, "lists/ofac_sdn_2021-07.csv"), openShared(b, "lists/ofac_alt_2021-07.csv"), openShared(b, "lists/ofac_add_2021-07.csv"))
	if err != nil {
		b.Fatal(err)
	}
	pepE, err := ParseSenzing(openShared(b, "lists/opensanctions_us_congress_peps_senzing.jsonl"), PEP)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu := startCPU(b)
	for b.Loop() {
		BuildIndex(unE)
		BuildIndex(ofE)
		BuildIndex(pepE)
	}
	cpu.stop()
}

// BenchmarkSearchAbjad is one screening of a customer written in Arabic,
// Persian or Hebrew script against OFAC + UN + PEP: the queries that run
// the long-vowel comparison against every Latin candidate.
func BenchmarkSearchAbjad(b *testing.B) {
	un, ofac, pep := realIndexes(b)
	qs := []Query{
		{Name: "بزون كرتل", DOB: "1971-03-09"},
		{Name: "محمد داكور", DOB: "1980-01-01"},
		{Name: "کامیار نوروزی", DOB: "1990-05-05"},
		{Name: "דניאל לוי", DOB: "1985-07-07"},
	}
	b.ResetTimer()
	cpu := startCPU(b)
	for i := 0; b.Loop(); i++ {
		q := qs[i%len(qs)]
		for _, ix := range []*Index{un, ofac, pep} {
			ix.Search(q, DefaultThreshold, MaxMatches)
		}
	}
	cpu.stop()
}
