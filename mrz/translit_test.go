package mrz

import (
	"slices"
	"testing"
)

func TestNameForms(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"Müller", []string{"MUELLER", "MULLER"}},
		{"Øvergård", []string{"OEVERGAARD", "OVERGARD"}},
		{"Peña", []string{"PENA"}},
		{"Straße", []string{"STRASSE"}},
		{"Þuríður Ævarsdóttir", []string{"THURIDUR AEVARSDOTTIR"}},
		{"Anne-Marie O'Neil", []string{"ANNE MARIE O NEIL"}},
		{"Eriksson", []string{"ERIKSSON"}},
	} {
		if got := NameForms(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("NameForms(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTruncatedName(t *testing.T) {
	full := &Document{Format: TD3, Lines: []string{"P<GBRUNITED<KINGDOM<TWENTY<SIX<<JODIE<PIPPA<", ""}}
	cut := &Document{Format: TD3, Lines: []string{"P<UTOVERYLONGSURNAMEOFMANYLETTERS<<GIVENNAME", ""}}
	if full.TruncatedName() || !cut.TruncatedName() {
		t.Errorf("truncated: %v %v", full.TruncatedName(), cut.TruncatedName())
	}
}
