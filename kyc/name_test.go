package kyc

import (
	"strings"
	"testing"
)

func TestNameProblem(t *testing.T) {
	for _, tt := range []struct {
		name string
		want string // a fragment of the problem; "" for none
	}{
		{"Ada", ""},
		{"José María", ""},
		{"O'Brien-Smith", ""},
		{"محمد", ""},
		{"فاطمه\u200cزهرا", ""}, // ZWNJ inside a Persian word
		{"क्\u200dष", ""},       // ZWJ after a virama
		{"葛\U000E0100城", ""},    // ideographic variation selector
		{"  ", "must not be empty"},
		{"\u3000", "must not be empty"}, // ideographic space is white space
		{"A\u0007", "control characters"},
		{"\u200b", "U+200B"},
		{"\u202e", "U+202E"},
		{"\u202eAda", "U+202E"},
		{"Ada\u2066", "U+2066"},
		{"\ufeffAda", "U+FEFF"},
		{"\u00ad", "U+00AD"},
		{"\u3164", "U+3164"},
		{"\u115f\u1160", "U+115F"},
		{"A\u034fB", "U+034F"},
		{"\u200c", "U+200C"},
		{"Ada \u200dB", "U+200D"},
		{"\ufe0f", "U+FE0F"},
		{"\U000E0041", "U+E0041"}, // a tag character
		{strings.Repeat("a", MaxNameLen+1), "at most"},
	} {
		got := NameProblem(tt.name)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("NameProblem(%+q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
