package screening

import (
	"fmt"
	"testing"
	"unicode"

	"kycd/kyc"
)

func TestFoldConfusables(t *testing.T) {
	for _, c := range []struct {
		in, want string
		mixed    bool
	}{
		{"Sechin", "Sechin", false},
		{"\u0405echin", "Sechin", true},      // Cyrillic capital dze
		{"\u0455echin", "sechin", true},      // Cyrillic small dze
		{"Sechi\u0578", "Sechin", true},      // Armenian vo looks like n
		{"\u04c0gor", "Igor", true},          // Cyrillic palochka at the start is a capital I
		{"A\u04cfi", "Ali", true},            // and inside a word an l
		{"\u0421\u0435chin", "Cechin", true}, // Cyrillic Es looks like C
		{"Сечин", "Сечин", false},            // one script: a real spelling, transliterated later
		{"Пyтин", "Путин", true},             // a Latin y inside a Cyrillic word
		{"山田たろう", "山田たろう", false},            // Japanese mixes Han and Hiragana
		{"김正恩", "김正恩", false},                // Korean mixes Hangul and Han
		{"Müller", "Müller", false},
		{"Dmitri\u0439", "Dmitri\u0439", true}, // mixed, but й has no Latin look-alike: kept
	} {
		got, mixed := foldConfusables(c.in)
		if got != c.want || mixed != c.mixed {
			t.Errorf("foldConfusables(%q) = %q, %v; want %q, %v", c.in, got, mixed, c.want, c.mixed)
		}
	}
}

// TestConfusableSubstitutionsStillHit is the regression test of issue 9
// item 1: every single-letter look-alike substitution (a letter of another
// script with the same UTS #39 prototype) in 20 names listed by OFAC still
// finds the listed person at the default threshold, and the match shows
// the mixed-script signal. Before look-alikes were folded, "Igor Ѕechin"
// (Cyrillic Ѕ) was no_match.
func TestConfusableSubstitutionsStillHit(t *testing.T) {
	_, ofac, _ := realIndexes(t)
	listed := []struct{ name, id string }{
		{"Igor Sechin", "16692"}, {"Ramzan Kadyrov", "23343"}, {"Oleg Vladimirovich Deripaska", "24283"},
		{"Viktor Feliksovich Vekselberg", "24306"}, {"Arkady Rotenberg", "16669"}, {"Gennady Timchenko", "16666"},
		{"Evgeny Prigozhin", "21171"}, {"Bashar al-Assad", "12735"}, {"Nicolas Maduro Moros", "22790"},
		{"Kim Jong Un", "20157"}, {"Joaquin Guzman Loera", "6861"}, {"Ismael Zambada Garcia", "7226"},
		{"Hasan Nasrallah", "2686"}, {"Qasem Soleimani", "10481"}, {"Aleksandr Lukashenko", "9760"},
		{"Rafael Caro Quintero", "6707"}, {"Suleyman Kerimov", "24325"}, {"Dawood Ebrahim", "9758"},
		{"Ayman al-Zawahiri", "2676"}, {"Hamza bin Laden", "21286"},
	}
	tried, missed := 0, 0
	for _, l := range listed {
		if !hits(ofac, l.name, l.id) {
			t.Fatalf("%s is not found as listed: the list or the matcher changed", l.name)
		}
		rs := []rune(l.name)
		for i, r := range rs {
			for _, c := range lookAlikesOf(r) {
				sub := append([]rune(nil), rs...)
				sub[i] = c
				q := string(sub)
				tried++
				ms := ofac.Search(Query{Name: q}, DefaultThreshold, 5)
				found := false
				for _, m := range ms {
					if m.Entity.ID == l.id {
						found = true
						if !m.Features.MixedScript {
							t.Errorf("%q (%U for %q): match does not show mixedScript", q, c, r)
						}
					}
				}
				if !found {
					missed++
					t.Errorf("%q (%U %c for %q) does not find %s", q, c, c, r, l.name)
				}
			}
		}
	}
	if tried < 500 {
		t.Fatalf("only %d substitutions tried: the confusables table is not loaded", tried)
	}
	t.Logf("%d look-alike substitutions tried, %d missed", tried, missed)
}

func hits(ix *Index, name, id string) bool {
	for _, m := range ix.Search(Query{Name: name}, DefaultThreshold, 5) {
		if m.Entity.ID == id {
			return true
		}
	}
	return false
}

// lookAlikesOf returns the letters of other scripts that UTS #39 says
// look like r (same prototype).
func lookAlikesOf(r rune) []rune {
	if !unicode.IsLetter(r) {
		return nil
	}
	var out []rune
	for _, c := range byProto()[proto(r)] {
		if g := scriptGroup(c); c != r && g != "" && g != scriptGroup(r) {
			out = append(out, c)
		}
	}
	return out
}

// TestSandboxLookAlike: the sandbox test list is matched the same way.
func TestSandboxLookAlike(t *testing.T) {
	s, err := NewScreener()
	if err != nil {
		t.Fatal(err)
	}
	res := s.Screen(kyc.Sandbox, Query{Name: "\u0405andbox Sanctioned"}, DefaultThreshold)
	if res[0].Status != kyc.ListHit {
		t.Fatalf("Ѕandbox Sanctioned: %s, want a sanctions hit", res[0].Status)
	}
	if got := res[0].Matches[0].Features["mixedScript"]; got != true {
		t.Errorf("match record mixedScript = %v, want true", got)
	}
	res = s.Screen(kyc.Sandbox, Query{Name: "Sandbox Sanctioned"}, DefaultThreshold)
	if got := fmt.Sprint(res[0].Matches[0].Features["mixedScript"]); got != "false" {
		t.Errorf("plain name: mixedScript = %s, want false", got)
	}
}
