package branding_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"kycd/branding"
)

// useBomb is the attack of issue 23 item 3: levels of <g> each drawing
// the previous level fanout times through <use> (a 1.6 KB file of 25
// levels stopped a browser rendering the portal). how picks the
// reference's spelling: href, xlink:href, or a pattern fill.
func useBomb(levels, fanout int, how string) string {
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"><defs>`)
	b.WriteString(`<g id="l0"><rect width="1" height="1"/></g>`)
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, `<g id="l%d">`, i)
		for range fanout {
			switch how {
			case "xlink":
				fmt.Fprintf(&b, `<use xlink:href="#l%d"/>`, i-1)
			case "pattern":
				fmt.Fprintf(&b, `<rect width="1" height="1" fill="url(#p%d)"/>`, i-1)
			default:
				fmt.Fprintf(&b, `<use href="#l%d"/>`, i-1)
			}
		}
		b.WriteString(`</g>`)
		if how == "pattern" {
			fmt.Fprintf(&b, `<pattern id="p%d" width="1" height="1"><use href="#l%d"/></pattern>`, i, i)
		}
	}
	if how == "pattern" {
		b.WriteString(`<pattern id="p0" width="1" height="1"><use href="#l0"/></pattern>`)
	}
	fmt.Fprintf(&b, `</defs><use href="#l%d"/></svg>`, levels)
	return b.String()
}

// TestSanitizeRefusesUseBombs: nested references whose expansion would
// draw millions of shapes are refused, whatever their spelling; so are
// reference cycles; a logo that reuses a symbol a few times passes.
func TestSanitizeRefusesUseBombs(t *testing.T) {
	for _, tt := range []struct {
		name           string
		levels, fanout int
		how            string
	}{
		{"the reported file: 25 levels of 2", 25, 2, "href"},
		{"10 levels of 10", 10, 10, "href"},
		{"xlink:href", 12, 4, "xlink"},
		{"through pattern fills", 12, 4, "pattern"},
		{"a long chain of single uses", 40, 1, "href"},
	} {
		svg := useBomb(tt.levels, tt.fanout, tt.how)
		if _, _, _, _, err := branding.SanitizeSVG([]byte(svg)); err == nil || !strings.Contains(err.Error(), "reference") {
			t.Errorf("%s (%d bytes): %v, want refused for its references", tt.name, len(svg), err)
		}
	}
	cycle := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g id="a"><use href="#b"/></g><g id="b"><use href="#a"/></g></svg>`
	if _, _, _, _, err := branding.SanitizeSVG([]byte(cycle)); err == nil {
		t.Error("a reference cycle passed")
	}
	// A real logo's reuse: a symbol drawn 6 times, a gradient used twice.
	if _, _, _, _, err := branding.SanitizeSVG([]byte(useBomb(3, 6, "href"))); err != nil {
		t.Errorf("3 levels of 6 (216 shapes): %v", err)
	}
}

// FuzzSanitizeSVGReferences generates reference graphs at random (levels,
// fan-out, spellings, back references) and checks that whatever passes
// expands to a bounded number of elements.
func FuzzSanitizeSVGReferences(f *testing.F) {
	f.Add(uint64(1), uint8(25), uint8(2))
	f.Add(uint64(7), uint8(5), uint8(9))
	f.Fuzz(func(t *testing.T, seed uint64, levels, fanout uint8) {
		r := rand.New(rand.NewPCG(seed, seed>>1))
		n, k := int(levels%40)+1, int(fanout%12)+1
		var b strings.Builder
		b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g id="l0"><rect width="1" height="1"/></g>`)
		refs := map[int][]int{}
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, `<g id="l%d">`, i)
			for range k {
				to := r.IntN(i + 1) // may point at itself: a cycle
				refs[i] = append(refs[i], to)
				if r.IntN(2) == 0 {
					fmt.Fprintf(&b, `<use href="#l%d"/>`, to)
				} else {
					fmt.Fprintf(&b, `<rect width="1" height="1" style="fill:url(#l%d)"/>`, to)
				}
			}
			b.WriteString(`</g>`)
		}
		b.WriteString(`</svg>`)
		if _, _, _, _, err := branding.SanitizeSVG([]byte(b.String())); err != nil {
			return
		}
		// Passed: count what a renderer would draw.
		memo := map[int]int{}
		var cost func(i, depth int) int
		cost = func(i, depth int) int {
			if depth > n+1 {
				t.Fatalf("passed with a reference cycle through l%d", i)
			}
			if c, ok := memo[i]; ok {
				return c
			}
			c := 1
			if i == 0 {
				c = 2
			}
			for _, to := range refs[i] {
				c += 1 + cost(to, depth+1)
				if c > 1e9 {
					c = 1e9
				}
			}
			memo[i] = c
			return c
		}
		total := 0
		for i := 0; i <= n; i++ {
			total += cost(i, 0)
		}
		if total > 100000 {
			t.Fatalf("passed with %d elements once expanded (%d levels of %d)", total, n, k)
		}
	})
}
