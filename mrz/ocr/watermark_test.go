package ocr

import (
	"math/rand/v2"
	"testing"
)

// TestSquareFilter compares the linear-time filters (rows by runMax,
// columns by colMax's blocks) with the greatest and least over each
// square counted out, on random planes of sizes around the block size.
func TestSquareFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		w, h, r := 1+rng.IntN(30), 1+rng.IntN(30), rng.IntN(7)
		p := newPlane(w, h)
		for i := range p.pix {
			p.pix[i] = float32(rng.IntN(256))
		}
		for _, grow := range []bool{true, false} {
			q := newPlane(w, h)
			copy(q.pix, p.pix)
			squareFilter(q, r, grow)
			for y := range h {
				for x := range w {
					want := p.pix[y*w+x]
					for yy := max(0, y-r); yy <= min(h-1, y+r); yy++ {
						for xx := max(0, x-r); xx <= min(w-1, x+r); xx++ {
							if v := p.pix[yy*w+xx]; (v > want) == grow && v != want {
								want = v
							}
						}
					}
					if got := q.pix[y*w+x]; got != want {
						t.Fatalf("%d×%d r %d grow %v at (%d,%d): %v, want %v", w, h, r, grow, x, y, got, want)
					}
				}
			}
		}
	}
}
