package ocr

import (
	"slices"
	"testing"
)

// TestCutCells: a line whose characters have their bottom third lifted
// (a translucent band's edge between the middle and the bottom) is cut
// there; the same line clean, a run of fillers (ink in the middle third
// only, texture below), a line lifted evenly (a dim photo) and a faint
// line are not.
func TestCutCells(t *testing.T) {
	clean := [3]float32{150, 150, 150}
	lifted := [3]float32{150, 150, 60}
	filler := [3]float32{40, 130, 140}
	dim := [3]float32{60, 60, 60}
	faint := [3]float32{20, 30, 10}
	line := func(text string, d ...[3]float32) (string, [][3]float32) {
		var ds [][3]float32
		for k := range len(text) {
			ds = append(ds, d[min(k, len(d)-1)])
		}
		return text, ds
	}
	for _, tc := range []struct {
		name  string
		text  string
		depth [][3]float32
		want  int // cells cut
	}{
		{"clean", "", nil, 0},
		{"band across the bottom", "", nil, 30},
		{"fillers with texture below", "", nil, 0},
		{"dim", "", nil, 0},
		{"faint", "", nil, 0},
	} {
		switch tc.name {
		case "clean":
			tc.text, tc.depth = line("OSPELTBECK<<MARISA<<<<<<<<<<<<", clean)
		case "band across the bottom":
			tc.text, tc.depth = line("8205122F1906224LIE12345678901X", lifted)
		case "fillers with texture below":
			var ds [][3]float32
			tc.text = "OSPELTBECK<<MARISA<<<<<<<<<<<<"
			for k := range len(tc.text) {
				ds = append(ds, map[bool][3]float32{true: filler, false: clean}[tc.text[k] == '<'])
			}
			tc.depth = ds
		case "dim":
			tc.text, tc.depth = line("8205122F1906224LIE<<<<<<<<<<<6", dim)
		case "faint":
			tc.text, tc.depth = line("8205122F1906224LIE<<<<<<<<<<<6", faint)
		}
		got := cutCells(tc.text, tc.depth)
		if n := len(slices.DeleteFunc(slices.Clone(got), func(b bool) bool { return !b })); n != tc.want {
			t.Errorf("%s: %d cells cut, want %d (%v)", tc.name, n, tc.want, got)
		}
	}
}
