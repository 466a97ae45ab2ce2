package capture

import (
	"bytes"
	"image"
	"math/rand/v2"
	"testing"
)

// turn applies placement to the 4-byte pixels of a w×h image, as resample
// does.
func turn(src []byte, w, h, o int) (dst []byte, ow, oh int) {
	start, dx, dy, ow, oh := placement(o, w, h)
	dst = make([]byte, 4*ow*oh)
	for y := range h {
		for x := range w {
			off := start + x*dx + y*dy
			copy(dst[off:off+4], src[4*(y*w+x):])
		}
	}
	return dst, ow, oh
}

// TestPlacement compares placement's stepping arithmetic with a
// pixel-by-pixel reading of the EXIF definitions, on an image with odd
// sides.
func TestPlacement(t *testing.T) {
	const w, h = 5, 3
	src := make([]byte, 4*w*h)
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
		got, ow, oh := turn(src, w, h, o)
		if (o >= 5) != (ow == h && oh == w) {
			t.Fatalf("orientation %d: %d×%d", o, ow, oh)
		}
		for y := range oh {
			for x := range ow {
				sx, sy := source[o](x, y)
				want := src[4*(sy*w+sx):][:4]
				if d := got[4*(y*ow+x):][:4]; !bytes.Equal(d, want) {
					t.Fatalf("orientation %d: pixel (%d,%d) = %v, want source (%d,%d) %v", o, x, y, d, sx, sy, want)
				}
			}
		}
	}
}

// TestPlacementInverse: turning by 6 then by 8 gives the original back,
// and so does mirroring twice.
func TestPlacementInverse(t *testing.T) {
	const w, h = 7, 4
	src := make([]byte, 4*w*h)
	for i := range src {
		src[i] = byte(i)
	}
	for _, pair := range [][2]int{{6, 8}, {8, 6}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {7, 7}} {
		a, aw, ah := turn(src, w, h, pair[0])
		b, bw, bh := turn(a, aw, ah, pair[1])
		if bw != w || bh != h || !bytes.Equal(b, src) {
			t.Errorf("orientation %d then %d is not the identity", pair[0], pair[1])
		}
	}
}

// TestResampleMeans: scaling by area averaging gives each output pixel the
// exact mean of what it covers, including fractional overlaps.
func TestResampleMeans(t *testing.T) {
	// 3×2 source to 2×1: output pixel 0 covers source columns 0 and half
	// of 1, over both rows.
	src := image.NewRGBA(image.Rect(0, 0, 3, 2))
	vals := []uint8{0, 90, 180, 30, 120, 210}
	for i, v := range vals {
		src.Pix[4*i], src.Pix[4*i+1], src.Pix[4*i+2], src.Pix[4*i+3] = v, v, v, 255
	}
	out := resample(src, 2, 1, 1, false)
	// (0 + 90/2 + 30 + 120/2) / 3 = 45, (180 + 90/2 + 210 + 120/2) / 3 = 165
	if got := [2]uint8{out.Pix[0], out.Pix[4]}; got != [2]uint8{45, 165} {
		t.Errorf("means %v, want [45 165]", got)
	}
	// Flattening onto white: a fully transparent pixel becomes white.
	clear(src.Pix)
	out = resample(src, 1, 1, 6, true)
	if got := out.Pix[:4]; !bytes.Equal(got, []byte{255, 255, 255, 255}) {
		t.Errorf("transparent flattened to %v, want white", got)
	}
}

func TestStoredSize(t *testing.T) {
	for _, tt := range []struct {
		w, h   int
		max    int64
		ww, wh int
	}{
		{4032, 3024, DefaultMaxStoredPixels, 4032, 3024}, // a 12 MP phone photo is kept
		{4608, 3456, DefaultMaxStoredPixels, 4096, 3072}, // 16 MP comes down to 4096×3072
		{3456, 4608, DefaultMaxStoredPixels, 3072, 4096},
		{1000, 1000, 250_000, 500, 500},
		{20000, 3, 1000, 1000, 1}, // a strip keeps one row
	} {
		w, h := storedSize(tt.w, tt.h, tt.max)
		if w != tt.ww || h != tt.wh || int64(w)*int64(h) > tt.max {
			t.Errorf("storedSize(%d, %d, %d) = %d×%d, want %d×%d", tt.w, tt.h, tt.max, w, h, tt.ww, tt.wh)
		}
	}
}
