// Package pdf417test renders PDF417 symbols for tests outside package
// pdf417 (the portal's upload tests, the browser tests): Byte Compaction,
// Reed–Solomon correction over GF(929) and the row layout of ISO/IEC
// 15438, with the codeword patterns the reader itself uses. It is the
// package-internal test encoder (pdf417/encoder_test.go) reduced to what
// a licence barcode needs; kycd itself has no encoder.
package pdf417test

import (
	"image"
	"image/color"

	"kycd/pdf417"
)

const (
	startPattern = 0x1fea8 // 17 modules: 8 1 1 1 1 1 1 3
	stopPattern  = 0x3fa29 // 18 modules: 7 1 1 3 1 1 1 2 1
	latchByte    = 901
	latchByte6   = 924
	padCodeword  = 900
)

// gfExp[i] is 3^i in GF(929).
var gfExp = func() (t [929]int) {
	t[0] = 1
	for i := 1; i < 929; i++ {
		t[i] = t[i-1] * 3 % 929
	}
	return t
}()

// rsEncode returns the ecCount correction codewords of data: the
// remainder of data·x^k by Π(x − 3^i), negated (§5.9).
func rsEncode(data []int, ecCount int) []int {
	g := []int{1} // highest degree first
	for i := 1; i <= ecCount; i++ {
		ng := make([]int, len(g)+1)
		for j, c := range g {
			ng[j] = (ng[j] + c) % 929
			ng[j+1] = (ng[j+1] + 929 - c*gfExp[i]%929) % 929
		}
		g = ng
	}
	rem := make([]int, ecCount)
	for _, d := range data {
		f := (d + rem[0]) % 929
		copy(rem, rem[1:])
		rem[ecCount-1] = 0
		for j := range ecCount {
			rem[j] = (rem[j] + 929 - f*g[j+1]%929) % 929
		}
	}
	for j := range rem {
		rem[j] = (929 - rem[j]) % 929
	}
	return rem
}

// byteEncode compacts b in Byte Compaction (latch 924 for a multiple of
// six bytes, 901 otherwise).
func byteEncode(b []byte) []int {
	out := []int{latchByte}
	if len(b)%6 == 0 {
		out[0] = latchByte6
	}
	i := 0
	for ; i+6 <= len(b); i += 6 {
		var v uint64
		for _, x := range b[i : i+6] {
			v = v<<8 | uint64(x)
		}
		var g [5]int
		for j := 4; j >= 0; j-- {
			g[j] = int(v % 900)
			v /= 900
		}
		out = append(out, g[:]...)
	}
	for ; i < len(b); i++ {
		out = append(out, int(b[i]))
	}
	return out
}

// symbol lays out data codewords in cols columns at correction level
// ecLevel and returns the codeword rows, row indicators included.
func symbol(data []int, cols, ecLevel int) [][]int {
	ec := 1 << (ecLevel + 1)
	n := len(data) + 1
	rows := max((n+ec+cols-1)/cols, 3)
	pad := rows*cols - n - ec
	cw := append([]int{n + pad}, data...)
	for range pad {
		cw = append(cw, padCodeword)
	}
	cw = append(cw, rsEncode(cw, ec)...)
	var grid [][]int
	for r := range rows {
		var left, right int
		base := 30 * (r / 3)
		switch r % 3 {
		case 0:
			left, right = base+(rows-1)/3, base+cols-1
		case 1:
			left, right = base+ecLevel*3+(rows-1)%3, base+(rows-1)/3
		case 2:
			left, right = base+cols-1, base+ecLevel*3+(rows-1)%3
		}
		row := append([]int{left}, cw[r*cols:(r+1)*cols]...)
		grid = append(grid, append(row, right))
	}
	return grid
}

// Render draws text as a PDF417 symbol of cols data columns at
// correction level ecLevel (0–8), module width x pixels, row height 3x
// and a quiet zone of 2 modules, black on white.
func Render(text []byte, cols, ecLevel, x int) *image.Gray {
	grid := symbol(byteEncode(text), cols, ecLevel)
	const q = 2
	wMod := 17*(cols+3) + 18 + 2*q
	hMod := 3*len(grid) + 2*q
	img := image.NewGray(image.Rect(0, 0, wMod*x, hMod*x))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for r, row := range grid {
		var bits []bool
		add := func(p uint32, n int) {
			for i := n - 1; i >= 0; i-- {
				bits = append(bits, p>>uint(i)&1 == 1)
			}
		}
		add(startPattern, 17)
		for _, c := range row {
			add(pdf417.Pattern(r%3, c), 17)
		}
		add(stopPattern, 18)
		for m, b := range bits {
			if !b {
				continue
			}
			for yy := (q + 3*r) * x; yy < (q+3*r+3)*x; yy++ {
				for xx := (q + m) * x; xx < (q+m+1)*x; xx++ {
					img.SetGray(xx, yy, color.Gray{})
				}
			}
		}
	}
	return img
}
