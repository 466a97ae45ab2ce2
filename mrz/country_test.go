package mrz

import (
	"strings"
	"testing"

	"kycd/kyc"
)

func TestAlpha2(t *testing.T) {
	tests := map[string]string{
		"D": "DE", "D<<": "DE", "DEU": "DE", "GBR": "GB", "GBD": "GB", "FRA": "FR", "UTO": "", "XXA": "",
		"EUE": "", "RKS": "XK", "SWZ": "SZ", "": "", "deu": "",
	}
	for code, want := range tests {
		if got := Alpha2(code); got != want {
			t.Errorf("Alpha2(%q) = %q, want %q", code, got, want)
		}
	}
}

// TestAlpha2Table: the table is well formed and agrees with the alpha-2
// codes the API accepts (kyc.ValidCountry), each of which it reaches.
func TestAlpha2Table(t *testing.T) {
	f := strings.Fields(alpha2Pairs)
	if len(f)%2 != 0 || len(alpha2) != len(f)/2 {
		t.Fatalf("%d fields make %d entries: an odd field or a duplicate code", len(f), len(alpha2))
	}
	reached := map[string]bool{}
	for code, a2 := range alpha2 {
		if !kyc.ValidCountry(a2) || len(code) != 3 && code != "D" {
			t.Errorf("%s → %s", code, a2)
		}
		reached[a2] = true
	}
	if len(reached) != 250 {
		t.Errorf("the table reaches %d alpha-2 codes, want the 249 of ISO 3166-1 and XK", len(reached))
	}
}
