package pdf417

import (
	"image"
	"testing"
)

// FuzzDecodeCodewords: the codeword parser never panics, and what it
// accepts came from a stream whose length descriptor matched.
func FuzzDecodeCodewords(f *testing.F) {
	add := func(cw []int) {
		b := make([]byte, 0, 2*len(cw)+2)
		for _, c := range append([]int{len(cw) + 1}, cw...) {
			b = append(b, byte(c>>8), byte(c))
		}
		f.Add(b)
	}
	add(textEncode("Hello, World! 123 #a-b"))
	add(byteEncode([]byte{0, 1, 2, 3, 4, 5, 6, 7, 255}))
	add([]int{latchNumeric, 1, 624, 434, 632, 282, 200})
	add(append(textEncode("AB"), macroBlock, 111, 100, 12, macroOption, 1, macroEnd))
	f.Fuzz(func(t *testing.T, b []byte) {
		cw := make([]int, len(b)/2)
		for i := range cw {
			cw[i] = (int(b[2*i])<<8 | int(b[2*i+1])) % 1000
		}
		if _, _, err := DecodeCodewords(cw); err == nil && (len(cw) == 0 || cw[0] != len(cw)) {
			t.Fatalf("accepted %v", cw)
		}
	})
}

// FuzzCorrect: error correction never panics, and what it returns is a
// codeword of the code.
func FuzzCorrect(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, uint8(1), []byte{0, 3})
	f.Fuzz(func(t *testing.T, b []byte, level uint8, er []byte) {
		if len(b) < 2 {
			return
		}
		cw := make([]int, len(b))
		for i, x := range b {
			cw[i] = int(x) * 3
		}
		ec := 1 << (level%4 + 1)
		var erasures []int
		for _, e := range er {
			erasures = append(erasures, int(e))
		}
		if _, err := correct(cw, ec, erasures); err == nil {
			for i := 1; i <= ec; i++ {
				if polyEval(reversed(cw), gfExp[i]) != 0 {
					t.Fatalf("corrected to a non-codeword %v", cw)
				}
			}
		}
	})
}

// FuzzDecodeImage: any small image — a rendered symbol with its pixels
// overwritten by the fuzzer — is read or refused, never a panic.
func FuzzDecodeImage(f *testing.F) {
	base := render(symbol(textEncode("FUZZ 123"), 3, 2), 1, 2)
	f.Add(make([]byte, 64), uint16(0))
	f.Add([]byte{0, 255, 0, 255}, uint16(100))
	f.Fuzz(func(t *testing.T, b []byte, at uint16) {
		img := image.NewGray(base.Rect)
		copy(img.Pix, base.Pix)
		for i, x := range b {
			img.Pix[(int(at)+i*7)%len(img.Pix)] = x
		}
		res, err := Decode(img)
		if err == nil && len(res.Text) == 0 && res.Macro == nil {
			t.Fatalf("empty reading accepted")
		}
	})
}
