package screening

import (
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Mr. Olaf SCHOLZ", "olaf scholz"},
		{"Zoë Łukasiewicz", "zoe lukasiewicz"},
		{"Дмитрий Медведев", "dmitri medvedev"},
		{"Ἀλέξανδρος", "alexandros"},
		{"Abdulrahman", "abd rahman"},
		{"Abd al-Rahman", "abd al rahman"},
		{"Абдаллах", "abdallah"},
		{"O'Brien", "obrien"},
		{"Shoigu Shoigu Sergey", "shoigu shoigu sergei"}, // repeats kept: MOHAMED OMAR MOHAMED
		{"MOHAMMED, Haji", "haji muhammad"},              // reading order; a title worn as a name is kept
		{"SHEIKH, Qari Muhammad", "qari muhammad sheikh"},
		{"Dr. Maulvi Hajji Sayed Omar", "mawlawi haji sayyid umar"},
		{"General", "general"}, // only a title: kept
		{"  ", ""},
	} {
		var got string
		for i, tk := range normalize(tt.in) {
			if i > 0 {
				got += " "
			}
			got += tk.text
		}
		if got != tt.want {
			t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFoldMergesTransliterations(t *testing.T) {
	for _, group := range [][]string{
		{"dmitriy", "dmitrii", "dmitri"},
		{"tschagajew", "chagaiev"},
		{"hussein", "husein"},
		{"agkha", "agha"},
		{"kramskoj", "kramskoi", "kramskoy"},
	} {
		for _, w := range group[1:] {
			if fold(w) != fold(group[0]) {
				t.Errorf("fold(%q) = %q, fold(%q) = %q", w, fold(w), group[0], fold(group[0]))
			}
		}
	}
}

func TestJaroWinkler(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want float64
	}{
		{"martha", "marhta", 0.961},
		{"dwayne", "duane", 0.84},
		{"dixon", "dicksonx", 0.813},
		{"abc", "abc", 1},
		{"abc", "xyz", 0},
		{"", "abc", 0},
	} {
		if got := round3(jaroWinkler(tt.a, tt.b)); got != tt.want {
			t.Errorf("jaroWinkler(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzSearch: names come from API clients, so normalisation and search
// must take any string without panicking and keep their invariants.
func FuzzSearch(f *testing.F) {
	for _, s := range []string{"Ivan Sidorov", "محمد علي", "Ἀλέξανδρος", "\x00\xff", "a b c d e f g", "'''", "Abdulabdulabdul"} {
		f.Add(s, "1961-03-04")
	}
	ix := BuildIndex([]Entity{person("s", "1961-03-04", "RU", "Ivan Petrovich Sidorov", "Иван Сидоров")})
	f.Fuzz(func(t *testing.T, name, dob string) {
		for _, tk := range normalize(name) {
			if tk.text == "" || !isASCII(tk.text) || !utf8.ValidString(tk.fold) {
				t.Fatalf("bad token %+v from %q", tk, name)
			}
		}
		for _, m := range ix.Search(Query{Name: name, DOB: dob}, 0, 5) {
			if m.Score < 0 || m.Score > 1 {
				t.Fatalf("score %v out of [0,1] for %q", m.Score, name)
			}
		}
	})
}
