package capture

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestOrient compares orient's stepping arithmetic with a pixel-by-pixel
// reading of the EXIF definitions, on an image with odd sides and a
// stride wider than its rows.
func TestOrient(t *testing.T) {
	const w, h, stride = 5, 3, 4*5 + 8
	src := make([]byte, stride*h)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	// source gives, for output pixel (x, y), the source pixel it shows.
	source := map[int]func(x, y int) (int, int){
		1: func(x, y int) (int, int) { return x, y },
		2: func(x, y int) (int, int) { return w - 1 - x, y },
		3: func(x, y int) (int, int) { return w - 1 - x, h - 1 - y },
		4: func(x, y int) (int, int) { return x, h - 1 - y },
		5: func(x, y int) (int, int) { return y, x },
		6: func(x, y int) (int, int) { return y, h - 1 - x },
		7: func(x, y int) (int, int) { return w - 1 - y, h - 1 - x },
		8: func(x, y int) (int, int) { return w - 1 - y, x },
	}
	for o := 1; o <= 8; o++ {
		got, ow, oh := orient(src, stride, w, h, o)
		if (o >= 5) != (ow == h && oh == w) || len(got) != 4*ow*oh {
			t.Fatalf("orientation %d: %d×%d, %d bytes", o, ow, oh, len(got))
		}
		for y := range oh {
			for x := range ow {
				sx, sy := source[o](x, y)
				want := src[sy*stride+4*sx:][:4]
				if d := got[4*(y*ow+x):][:4]; !bytes.Equal(d, want) {
					t.Fatalf("orientation %d: pixel (%d,%d) = %v, want source (%d,%d) %v", o, x, y, d, sx, sy, want)
				}
			}
		}
	}
}

// TestOrientInverse: turning by 6 then by 8 gives the original back, and
// so does mirroring twice.
func TestOrientInverse(t *testing.T) {
	const w, h = 7, 4
	src := make([]byte, 4*w*h)
	for i := range src {
		src[i] = byte(i)
	}
	for _, pair := range [][2]int{{6, 8}, {8, 6}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {7, 7}} {
		a, aw, ah := orient(src, 4*w, w, h, pair[0])
		b, bw, bh := orient(a, 4*aw, aw, ah, pair[1])
		if bw != w || bh != h || !bytes.Equal(b, src) {
			t.Errorf("orientation %d then %d is not the identity", pair[0], pair[1])
		}
	}
}
