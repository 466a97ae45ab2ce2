package kyc

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseMentions(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []Mention
	}{
		{"no mention", nil},
		{"@jane@acme.example look", []Mention{{Email: "jane@acme.example"}}},
		{"ask @Jane@ACME.example.", []Mention{{Email: "jane@acme.example"}}},
		{"(@a@b.io, @[Jane Doe]) and @[ jane doe ]", []Mention{{Email: "a@b.io"}, {Name: "Jane Doe"}, {Name: "jane doe"}}},
		{"@[Jane Doe] twice @[Jane Doe]", []Mention{{Name: "Jane Doe"}}},
		{"mail jane@acme.example is not a mention", nil},
		{"x@[Jane] is inside a word", nil},
		{"@[] empty, @[unclosed", nil},
		{"@[Name\nbroken]", nil},
	} {
		if got := ParseMentions(tc.body); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.body, got, tc.want)
		}
	}
}

func TestNormalizeTag(t *testing.T) {
	for in, want := range map[string]string{"VIP": "vip", " high-value ": "high-value", "ring:42": "ring:42", "a.b_c": "a.b_c",
		"": "", "two words": "", "-x": "", "é": "", strings.Repeat("a", 41): "", strings.Repeat("a", 40): strings.Repeat("a", 40)} {
		got, err := NormalizeTag(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("%q: %q %v, want %q", in, got, err, want)
		}
	}
}

func TestCheckReasonCode(t *testing.T) {
	for _, tc := range []struct {
		code, label string
		ok          bool
	}{
		{"SOURCE_OF_FUNDS", "Source of funds", true},
		{"DOCUMENT_FORGED", "Mine", false}, // built in
		{"lower", "x", false},
		{"X", " ", false},
		{"X", strings.Repeat("l", MaxReasonLabelLen+1), false},
		{"X", "bad\u202eLabel", false},
		{strings.Repeat("A", 65), "x", false},
	} {
		if _, err := CheckReasonCode(tc.code, tc.label); (err == nil) != tc.ok {
			t.Errorf("%q %q: %v, want ok %v", tc.code, tc.label, err, tc.ok)
		}
	}
}

// FuzzParseMentions: comment bodies come from API clients and console
// users; whatever they hold, mentions are well-formed and bounded by the
// body.
func FuzzParseMentions(f *testing.F) {
	for _, s := range []string{"@a@b.io", "@[Jane Doe]", "(@[x]) @y@z.co.", "@[", "@@@@", "\x00@[\xff]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, m := range ParseMentions(body) {
			if (m.Email == "") == (m.Name == "") {
				t.Fatalf("mention with both or neither: %+v", m)
			}
			if len(m.Email) > len(body) || len(m.Name) > 200*utf8.UTFMax || strings.ContainsAny(m.Name, "[]\n") {
				t.Fatalf("mention out of bounds: %+v", m)
			}
		}
	})
}
