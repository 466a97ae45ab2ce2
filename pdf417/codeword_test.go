package pdf417

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestPatternTable checks every entry of the pattern table against the
// rules of the symbology, so a mistyped entry cannot hide.
func TestPatternTable(t *testing.T) {
	for k := range 3 {
		seen := map[uint32]bool{}
		for v, p := range patterns[k] {
			w := widths(p)
			if len(w) != 8 || p>>16 != 1 || p&1 != 0 {
				t.Fatalf("cluster %d codeword %d: %d elements", 3*k, v, len(w))
			}
			for _, e := range w {
				if e < 1 || e > 6 {
					t.Fatalf("cluster %d codeword %d: element of %d modules", 3*k, v, e)
				}
			}
			if c := (w[0] - w[2] + w[4] - w[6] + 9) % 9; c != 3*k {
				t.Fatalf("cluster %d codeword %d: cluster number %d", 3*k, v, c)
			}
			if seen[p] {
				t.Fatalf("cluster %d: pattern of %d twice", 3*k, v)
			}
			seen[p] = true
		}
	}
}

// widths returns the run lengths of a 17-module pattern.
func widths(p uint32) []int {
	var w []int
	prev, run := uint32(2), 0
	for i := 16; i >= 0; i-- {
		b := p >> uint(i) & 1
		if b != prev && run > 0 {
			w = append(w, run)
			run = 0
		}
		prev = b
		run++
	}
	return append(w, run)
}

func TestCorrect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for level := range 9 {
		ec := 1 << (level + 1)
		for trial := range 20 {
			n := ec + 1 + rng.IntN(60)
			if n > 928 {
				n = 928
			}
			data := make([]int, n-ec)
			for i := range data {
				data[i] = rng.IntN(mod)
			}
			want := append(append([]int(nil), data...), rsEncode(data, ec)...)
			if _, err := correct(append([]int(nil), want...), ec, nil); err != nil {
				t.Fatalf("level %d: clean symbol refused: %v", level, err)
			}
			// Damage up to capacity: e erasures and t errors with
			// 2t+e ≤ ec less the reserve.
			capacity := ec - reserve(ec)
			erasures := rng.IntN(capacity + 1)
			errs := (capacity - erasures) / 2
			if trial%2 == 0 {
				errs = capacity / 4
				erasures = capacity - 2*errs
			}
			got := append([]int(nil), want...)
			perm := rng.Perm(n)
			var er []int
			for _, j := range perm[:erasures] {
				got[j] = 0
				er = append(er, j)
			}
			for _, j := range perm[erasures : erasures+errs] {
				got[j] = (got[j] + 1 + rng.IntN(mod-1)) % mod
			}
			if _, err := correct(got, ec, er); err != nil {
				t.Fatalf("level %d n %d: %d erasures %d errors: %v", level, n, erasures, errs, err)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("level %d: codeword %d = %d, want %d", level, i, got[i], want[i])
				}
			}
		}
	}
}

func TestCorrectBeyondCapacity(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	wrong := 0
	for range 200 {
		data := make([]int, 30)
		for i := range data {
			data[i] = rng.IntN(mod)
		}
		want := append(append([]int(nil), data...), rsEncode(data, 8)...)
		got := append([]int(nil), want...)
		for _, j := range rng.Perm(len(got))[:6] {
			got[j] = (got[j] + 1 + rng.IntN(mod-1)) % mod
		}
		if _, err := correct(got, 8, nil); err == nil {
			wrong++ // a miscorrection to another codeword: rare but possible
		}
	}
	if wrong > 10 {
		t.Fatalf("%d of 200 over-capacity symbols accepted", wrong)
	}
}

func TestDecodeCodewords(t *testing.T) {
	bin := []byte{0, 1, 2, 0xfe, 0xff, 0x80, 'A', 0x1e, '\n'}
	for _, tc := range []struct {
		name string
		cw   []int
		want string
	}{
		{"text", textEncode("Hello, World! 123 #a-b.c/d@e"), "Hello, World! 123 #a-b.c/d@e"},
		{"aamva header", textEncode("@\n\x1e\rANSI 636000100002DL00410278ZV03190008DLDAQT64235789\n"), "@\n\x1e\rANSI 636000100002DL00410278ZV03190008DLDAQT64235789\n"},
		{"bytes 901", byteEncode(bin), string(bin)},
		{"bytes 924", byteEncode(bin[:6]), string(bin[:6])},
		{"bytes 901 eleven", byteEncode(append(bin, 9, 8)), string(append(bin, 9, 8))},
		{"numeric", []int{latchNumeric, 1, 624, 434, 632, 282, 200}, "000213298174000"},
		{"macro", append(textEncode("AB"), macroBlock, 111, 100, 12, 34, macroOption, 1, 2, macroEnd), "AB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cw := append([]int{len(tc.cw) + 1}, tc.cw...)
			got, _, err := DecodeCodewords(cw)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, []byte(tc.want)) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDecodeCodewordsRefuses(t *testing.T) {
	for _, cw := range [][]int{
		{},
		{3, 1},
		{2, 929},
		{2, 922},
		{3, shiftByte, 300},
		{2, shiftByte},
		{3, macroBlock, 1},
		{7, latchByte6, 899, 899, 899, 899, 899},
		{3, latchNumeric, 0},
		{2, eciGeneral},
	} {
		if got, _, err := DecodeCodewords(cw); err == nil {
			t.Errorf("%v: accepted as %q", cw, got)
		}
	}
}

// TestEdgeIndex: the edge-to-similar-edge distances name almost every
// codeword on their own.
func TestEdgeIndex(t *testing.T) {
	if len(edgeIndex) < 3*929*9/10 {
		t.Fatalf("only %d of %d codewords have unique edge distances", len(edgeIndex), 3*929)
	}
	for k := range 3 {
		for v, p := range patterns[k] {
			key, _ := edgeKey(moduleWidths(p))
			if got, ok := edgeIndex[key]; ok && (int(got&1023) != v || int(got>>10) != k) {
				t.Fatalf("cluster %d codeword %d indexed as %d", 3*k, v, got)
			}
		}
	}
	t.Logf("%d of %d codewords have unique edge distances", len(edgeIndex), 3*929)
}
