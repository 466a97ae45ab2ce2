package pdf417

import (
	"image"
	"image/color"
	"strings"
)

// This file is a test-only PDF417 encoder, written from ISO/IEC 15438, to
// render symbols the reader has never seen. The product has no encoder.

const (
	startPattern = 0x1fea8 // 17 modules: 8 1 1 1 1 1 1 3
	stopPattern  = 0x3fa29 // 18 modules: 7 1 1 3 1 1 1 2 1
)

// rsEncode returns the ecCount correction codewords of data: the
// remainder of data·x^k by Π(x − 3^i), negated (§5.9).
func rsEncode(data []int, ecCount int) []int {
	g := []int{1} // highest degree first
	for i := 1; i <= ecCount; i++ {
		root := gfExp[i]
		ng := make([]int, len(g)+1)
		for j, c := range g {
			ng[j] = gfAdd(ng[j], c)
			ng[j+1] = gfSub(ng[j+1], gfMul(c, root))
		}
		g = ng
	}
	rem := make([]int, ecCount)
	for _, d := range data {
		f := gfAdd(d, rem[0])
		copy(rem, rem[1:])
		rem[ecCount-1] = 0
		for j := range ecCount {
			rem[j] = gfSub(rem[j], gfMul(f, g[j+1]))
		}
	}
	// data·x^k − rem is divisible by the generator.
	for j := range rem {
		rem[j] = gfSub(0, rem[j])
	}
	return rem
}

// textEncode compacts s in Text Compaction, using a byte shift for bytes
// no submode holds.
func textEncode(s string) []int {
	var vals []int
	var out []int
	flush := func() {
		if len(vals)%2 == 1 {
			vals = append(vals, 29)
		}
		for i := 0; i < len(vals); i += 2 {
			out = append(out, vals[i]*30+vals[i+1])
		}
		vals = vals[:0]
	}
	sub := subAlpha
	for i := range len(s) {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			switch sub {
			case subLower:
				vals = append(vals, 27)
			case subMixed:
				vals, sub = append(vals, 28), subAlpha
			case subPunct:
				vals, sub = append(vals, 29), subAlpha
			}
			vals = append(vals, int(c-'A'))
		case c >= 'a' && c <= 'z':
			switch sub {
			case subAlpha, subMixed:
				vals = append(vals, 27)
			case subPunct:
				vals = append(vals, 29, 27)
			}
			sub = subLower
			vals = append(vals, int(c-'a'))
		case c == ' ' && sub != subPunct:
			vals = append(vals, 26)
		case strings.IndexByte(mixedChars, c) >= 0 && (sub == subMixed || strings.IndexByte(punctChars, c) < 0):
			switch sub {
			case subAlpha, subLower:
				vals = append(vals, 28)
			case subPunct:
				vals = append(vals, 29, 28)
			}
			sub = subMixed
			vals = append(vals, strings.IndexByte(mixedChars, c))
		case strings.IndexByte(punctChars, c) >= 0:
			if sub != subPunct {
				vals = append(vals, 29)
			}
			vals = append(vals, strings.IndexByte(punctChars, c))
		default:
			flush()
			out = append(out, shiftByte, int(c))
		}
	}
	flush()
	return out
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

// symbol lays out data codewords (no length descriptor) in cols columns
// at correction level ecLevel and returns the codeword rows, indicators
// included.
func symbol(data []int, cols, ecLevel int) [][]int {
	ec := 1 << (ecLevel + 1)
	n := len(data) + 1
	rows := (n + ec + cols - 1) / cols
	rows = max(rows, 3)
	pad := rows*cols - n - ec
	cw := append([]int{n + pad}, data...)
	for range pad {
		cw = append(cw, latchText)
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
		row := []int{left}
		row = append(row, cw[r*cols:(r+1)*cols]...)
		grid = append(grid, append(row, right))
	}
	return grid
}

// render draws grid with module width x pixels, row height 3x, and a
// quiet zone of q modules.
func render(grid [][]int, x, q int) *image.Gray {
	cols := len(grid[0]) - 2
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
			add(patterns[r%3][c], 17)
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
