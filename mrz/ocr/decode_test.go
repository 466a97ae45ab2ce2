package ocr

import (
	"slices"
	"testing"

	"kycd/mrz"
)

// zoneProbs makes classifier outputs that say lines with certainty, then
// applies the per-cell overrides: cell → symbol → probability (the rest
// of the mass goes to the printed symbol).
func zoneProbs(lines []string, over map[[2]int]map[byte]float32) [][][]float32 {
	out := make([][][]float32, len(lines))
	for l, s := range lines {
		for c := range len(s) {
			p := make([]float32, None+1)
			rest := float32(1)
			for sym, v := range over[[2]int{l, c}] {
				p[indexOf(sym)] = v
				rest -= v
			}
			p[indexOf(s[c])] += rest
			out[l] = append(out[l], p)
		}
	}
	return out
}

var uto = []string{
	"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
	"L898902C36UTO7408122F1204159ZE184226B<<<<<10",
}

func TestDecode(t *testing.T) {
	bad := slices.Clone(uto)
	bad[1] = "L898902C37UTO7408122F1204159ZE184226B<<<<<10" // document number digit 6 → 7
	tests := []struct {
		name      string
		lines     []string
		over      map[[2]int]map[byte]float32
		want      []string // nil: not sure
		valid     bool
		wantFails []string
	}{
		{name: "clean", lines: uto, want: uto, valid: true},
		{
			// The classifier prefers 3 at a document-number cell, but only
			// 8 makes the check digit hold: the check digits decide.
			name:  "check digit decides",
			lines: uto, over: map[[2]int]map[byte]float32{{1, 1}: {'3': 0.7}},
			want: uto, valid: true,
		},
		{
			// No check digit covers a name: a doubtful letter is not read.
			name:  "doubtful name letter",
			lines: uto, over: map[[2]int]map[byte]float32{{0, 7}: {'R': 0.2}},
		},
		{
			// '<' and 'K' weigh the same in a check digit: a number cell
			// torn between them cannot be decided.
			name:  "filler or K",
			lines: uto, over: map[[2]int]map[byte]float32{{1, 38}: {'K': 0.45}},
		},
		{
			// Printed with a wrong check digit and read with certainty:
			// reported as printed, not repaired into a valid reading.
			name: "wrong digit as printed", lines: bad, want: bad,
			wantFails: []string{"document_number", "composite"},
		},
		{
			// The same, with a plausible alternative that would make it
			// valid: too unlikely to be taken, and then not sure either.
			name:  "no repair of a sure reading",
			lines: bad, over: map[[2]int]map[byte]float32{{1, 9}: {'6': 0.001}},
			want: bad, wantFails: []string{"document_number", "composite"},
		},
		{
			// A wrong digit read with a doubt (I for L, below strictProb)
			// that no reading makes right: the failure is the document's.
			name:  "wrong digit, a doubt that cannot fix it",
			lines: bad, over: map[[2]int]map[byte]float32{{1, 0}: {'I': 0.015}},
			want: bad, wantFails: []string{"document_number", "composite"},
		},
		{
			// A state code read as no state's, with a known one plausible.
			name:  "state code from the list",
			lines: []string{uto[0], "L898902C36UTQ7408122F1204159ZE184226B<<<<<10"},
			over:  map[[2]int]map[byte]float32{{1, 12}: {'O': 0.1}},
			want:  uto, valid: true,
		},
		{
			// Fillers cut by the cell's edge look like C: past the name's
			// end (three fillers in a row) only fillers can stand.
			name:  "filler after the name's end",
			lines: uto, over: map[[2]int]map[byte]float32{{0, 38}: {'C': 0.6}, {0, 39}: {'C': 0.55}, {0, 43}: {'K': 0.5}},
			want: uto, valid: true,
		},
		{
			// Before the end a letter may stand: a doubt there stays one.
			name:  "filler or C inside the name",
			lines: uto, over: map[[2]int]map[byte]float32{{0, 14}: {'C': 0.6}},
		},
		{
			// A clear letter past the end is read as printed.
			name:  "clear letter past the name's end",
			lines: []string{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<X", uto[1]},
			want:  []string{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<X", uto[1]}, valid: true,
		},
		{
			// "No character here" (glare, a cell off the line) is unsure.
			name:  "blank cell",
			lines: uto, over: map[[2]int]map[byte]float32{{0, 20}: {0: 0}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			probs := zoneProbs(tc.lines, tc.over)
			if tc.name == "blank cell" {
				probs[0][20] = make([]float32, None+1)
				probs[0][20][None] = 0.9
				probs[0][20][indexOf('A')] = 0.1
			}
			d := decode(probs)
			if d.format != mrz.TD3 {
				t.Fatalf("format %s", d.format)
			}
			if tc.want == nil {
				if d.sure {
					t.Fatalf("sure of %q; want unsure", d.lines)
				}
				return
			}
			if !d.sure || !slices.Equal(d.lines, tc.want) {
				t.Fatalf("got %q (sure %v, unsure %v), want %q", d.lines, d.sure, d.unsure, tc.want)
			}
			if d.valid != tc.valid || !slices.Equal(d.failing, tc.wantFails) {
				t.Fatalf("valid %v failing %v, want %v %v", d.valid, d.failing, tc.valid, tc.wantFails)
			}
		})
	}
}

// TestDecodeNeverRepairsIntoValid puts a faint alternative into every
// cell of a zone printed with a wrong check digit: an alternative the
// classifier finds far less likely than what it read (below 1/maxRepair)
// must never be taken to make the zone valid.
func TestDecodeNeverRepairsIntoValid(t *testing.T) {
	printed := []string{uto[0], "L898902C37UTO7408122F1204159ZE184226B<<<<<10"}
	for l := range 2 {
		for c := range 44 {
			for _, alt := range []byte("0123456789<KOB") {
				for _, p := range []float32{0.0005, 0.002, 0.004} {
					probs := zoneProbs(printed, map[[2]int]map[byte]float32{{l, c}: {alt: p}})
					d := decode(probs)
					if d.sure && d.valid && !slices.Equal(d.lines, printed) {
						t.Fatalf("cell %d:%d %c at %.1f: read %q as sure and valid; printed %q", l, c, alt, p, d.lines, printed)
					}
				}
			}
		}
	}
}

// TestDecodeFailingComposite: a TD1 whose composite alone fails. With
// every character certain it is printed wrong (invalid); with a doubt in
// a cell only the composite covers (1 at 0.99), one of whose alternatives
// (I, too unlikely to be taken as a repair) would make it hold, the
// failure may be the reader's: unsure.
func TestDecodeFailingComposite(t *testing.T) {
	lines := []string{"I<SWE59000002<8198703142391<<<", "8703145M1701027SWE<<<<<<<<<<<9", "SPECIMEN<<SVEN<<<<<<<<<<<<<<<<"}
	d := decode(zoneProbs(lines, nil))
	if !d.sure || d.valid || !slices.Equal(d.failing, []string{"composite"}) || !slices.Equal(d.lines, lines) {
		t.Fatalf("certain: sure %v valid %v failing %v %q", d.sure, d.valid, d.failing, d.lines)
	}
	d = decode(zoneProbs(lines, map[[2]int]map[byte]float32{{0, 15}: {'I': 0.004, 'L': 0.006}}))
	if d.sure {
		t.Fatalf("a doubt that could fix the composite: sure of %q", d.lines)
	}
}

// TestDecodeFirstLetter: an identity card starts with A, C or I, so a
// first cell torn between I and look-alikes no card starts with reads as
// I; a clear other letter is still read as printed.
func TestDecodeFirstLetter(t *testing.T) {
	lines := []string{"I<SWE59000002<8198703142391<<<", "8703145M1701027SWE<<<<<<<<<<<8", "SPECIMEN<<SVEN<<<<<<<<<<<<<<<<"}
	d := decode(zoneProbs(lines, map[[2]int]map[byte]float32{{0, 0}: {'T': 0.25, 'L': 0.15}}))
	if !d.sure || !d.valid || !slices.Equal(d.lines, lines) {
		t.Fatalf("I among look-alikes: sure %v valid %v %q (unsure %v)", d.sure, d.valid, d.lines, d.unsure)
	}
	odd := slices.Clone(lines)
	odd[0] = "X" + odd[0][1:]
	if d := decode(zoneProbs(odd, nil)); d.lines[0][0] != 'X' {
		t.Fatalf("a clear X read as %q", d.lines[0])
	}
}

// TestPassportZoneCutShort: a passport's 2 × 44 zone read as 2 × 36
// cells (its ends outside what was read) is never a reading, even read
// with certainty; before, it came back invalid with the text of the cells
// read (a phone photo of the Lithuanian specimen small in the frame).
func TestPassportZoneCutShort(t *testing.T) {
	ltu := []string{
		"P<LTUBASANAVICIENE<<BIRUTE<<<<<<<<<<<<<<<<<<",
		"00000000<0LTU5911239F120101145911231023<<<16",
	}
	short := []string{ltu[0][:36], ltu[1][:36]}
	d := decode(zoneProbs(short, nil))
	if d.sure || !d.short {
		t.Fatalf("2 × 36 cells of a passport zone: sure %v short %v %q", d.sure, d.short, d.lines)
	}
	if d := decode(zoneProbs(ltu, nil)); !d.sure || d.short {
		t.Fatalf("the whole zone: sure %v short %v", d.sure, d.short)
	}
}
