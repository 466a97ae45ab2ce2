package screening

import "testing"

func person(id string, dob string, country string, names ...string) Entity {
	e := Entity{ID: id, Schema: Person}
	for i, n := range names {
		t := Alias
		if i == 0 {
			t = Primary
		}
		e.Names = append(e.Names, Name{Full: n, Type: t})
	}
	if dob != "" {
		e.DOBs = []string{dob}
	}
	if country != "" {
		e.Countries = []string{country}
	}
	return e
}

func testIndex() *Index {
	return BuildIndex([]Entity{
		person("putin", "1952-10-07", "RU", "PUTIN, Vladimir Vladimirovich", "Владимир Владимирович Путин"),
		person("zawahiri", "1951-06-19", "EG", "AL-ZAWAHIRI, Ayman", "Abdul Rahman al-Zawahiri"),
		person("medvedev", "1965-09-14", "RU", "Dmitry Anatolyevich MEDVEDEV"),
		person("scholz", "1958-06-14", "DE", "Olaf Scholz"),
		person("merkel", "1954-07-17", "DE", "Angela Merkel"),
		person("mousavi", "1942", "IR", "Mir-Hossein Mousavi"),
		person("binladen", "1957", "SA", "Usama bin Laden"),
		person("abdulrahman", "1970-01-01", "YE", "Abd al-Rahman Mohammed Hussein"),
		person("lukasiewicz", "1980-03-03", "PL", "Zoë Łukasiewicz"),
		person("alexandros", "1975-05-05", "GR", "Ἀλέξανδρος Παπαδόπουλος"),
		person("cohen", "1960", "IL", "שלום כהן"),
		{ID: "bank", Schema: Organization, Names: []Name{{Full: "Banco Nacional de Cuba", Type: Primary}}},
	})
}

func TestSearchFindsVariants(t *testing.T) {
	ix := testIndex()
	for _, c := range []struct {
		query, dob, country, want string
	}{
		{"Vladimir Putin", "", "", "putin"},
		{"putin vladimir", "", "", "putin"},
		{"Vladimir Poutine", "", "", "putin"}, // French transliteration
		{"Владимир Путин", "1952-10-07", "RU", "putin"},
		{"Ayman al Zawahiri", "", "", "zawahiri"},
		{"Ayman Zawahri", "1951", "", "zawahiri"}, // typo, missing particle
		{"Dmitrii Medvedev", "", "", "medvedev"},
		{"Дмитрий Медведев", "", "", "medvedev"},
		{"Olaf Scholze", "", "", "scholz"},
		{"Hossein Mousavi", "", "", "mousavi"},
		{"حسین موسوی", "", "", "mousavi"},
		{"Osama Binladen", "", "", "binladen"},
		{"Abdulrahman Muhammad Husain", "", "", "abdulrahman"},
		{"Zoe Lukasiewicz", "", "", "lukasiewicz"},
		{"Alexandros Papadopoulos", "", "", "alexandros"},
		{"Shalom Cohen", "", "", "cohen"},
		{"Mr. Olaf SCHOLZ", "", "", "scholz"},
	} {
		ms := ix.Search(Query{Name: c.query, DOB: c.dob, Country: c.country}, 0.8, 5)
		if len(ms) == 0 || ms[0].Entity.ID != c.want {
			t.Errorf("%q: got %v, want %s first", c.query, summary(ms), c.want)
		}
	}
}

func TestSearchRejectsDifferentPeople(t *testing.T) {
	ix := testIndex()
	for _, q := range []Query{
		{Name: "Octavian Scholz"},
		{Name: "Angelo Cruz"},
		{Name: "Vladimir Ivanov"},
		{Name: "Vladimir Putin", DOB: "1990-01-01"}, // same name, other person
		{Name: "Banco Nacional de Cuba"},            // organisations are not people
	} {
		if ms := ix.Search(q, DefaultThreshold, 5); len(ms) > 0 {
			t.Errorf("%+v: got %v, want no match", q, summary(ms))
		}
	}
}

func summary(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Entity.ID+"="+m.MatchedName.Full+"@"+ftoa(m.Score))
	}
	return out
}

func ftoa(f float64) string {
	return string(rune('0'+int(f*10)%10)) + string(rune('0'+int(f*100)%10)) + string(rune('0'+int(f*1000)%10))
}
