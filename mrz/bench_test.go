package mrz

import (
	"strings"
	"testing"
)

// BenchmarkParse reads the ICAO passport and identity-card specimens, as
// the portal would on each submission.
func BenchmarkParse(b *testing.B) {
	for _, bb := range []struct{ name, text string }{
		{"TD3", td3Utopia},
		{"TD1", td1Utopia},
		{"TD3 garbled", "  p<ut0erik55on«anna<mar1a«««««««««<  \r\n" + strings.ToLower("L898902C3 6 UTO740BIZZF12041S9ZE184226B<<<<<1O") + "\n"},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(bb.text, ref); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
