package face

import (
	"image"
	"image/color"
	"math/rand/v2"
	"testing"
)

func TestCascadeUnpacks(t *testing.T) {
	if c := cascade(); c == nil {
		t.Fatal("cascade() = nil")
	}
	// A truncated file must be an error, not a panic inside pigo.
	for _, n := range []int{0, 15, 100, len(facefinder) / 2} {
		if _, err := unpack(facefinder[:n]); err == nil {
			t.Errorf("unpack(%d of %d bytes) = nil error", n, len(facefinder))
		}
	}
}

func TestGrayShrinksByAreaAverage(t *testing.T) {
	// 4×2 image: left 2×2 block black, right 2×2 block white.
	m := image.NewGray(image.Rect(0, 0, 4, 2))
	for y := range 2 {
		m.SetGray(2, y, color.Gray{255})
		m.SetGray(3, y, color.Gray{255})
	}
	g, f := Gray(m, 2)
	if g.Rect.Dx() != 2 || g.Rect.Dy() != 1 || f != 2 {
		t.Fatalf("Gray(4×2, 2) = %v, factor %v; want 2×1, factor 2", g.Rect, f)
	}
	if g.Pix[0] != 0 || g.Pix[1] != 255 {
		t.Errorf("pixels = %v, want [0 255]", g.Pix)
	}
	// Never enlarged.
	if g, f := Gray(m, 100); g.Rect.Dx() != 4 || f != 1 {
		t.Errorf("Gray(4×2, 100) = %v, factor %v; want unchanged", g.Rect, f)
	}
}

func TestGrayLaysTransparencyOverWhite(t *testing.T) {
	// Transparent black (as PNG encoders leave it) must read as white paper.
	n := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	n.SetNRGBA(1, 0, color.NRGBA{255, 0, 0, 255})
	g, _ := Gray(n, 0)
	if g.Pix[0] != 255 {
		t.Errorf("transparent NRGBA pixel = %d, want 255", g.Pix[0])
	}
	if want := color.GrayModel.Convert(color.NRGBA{255, 0, 0, 255}).(color.Gray).Y; g.Pix[1] != want {
		t.Errorf("red NRGBA pixel = %d, want %d", g.Pix[1], want)
	}
	// The generic path (here *image.RGBA64) must agree with the fast paths.
	r := image.NewRGBA64(image.Rect(0, 0, 2, 1))
	r.SetRGBA64(1, 0, color.RGBA64{0xffff, 0, 0, 0xffff})
	g2, _ := Gray(r, 0)
	if g2.Pix[0] != 255 || g2.Pix[1] != g.Pix[1] {
		t.Errorf("RGBA64 pixels = %v, want [255 %d]", g2.Pix, g.Pix[1])
	}
}

func TestTurnAndUnturnAreInverse(t *testing.T) {
	const w, h = 7, 4
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = uint8(i)
	}
	b := image.Rect(10, 20, 10+w, 20+h) // bounds of an "original" not at the origin
	box := Box{X: 1, Y: 2, W: 3, H: 1}  // in b-relative coordinates
	for _, deg := range []int{90, 180, 270} {
		tg := turn(g, deg)
		// Find where the box's top-left pixel went: the turned image holds
		// the same pixel values, so locate them by value.
		want := map[uint8]bool{}
		for y := box.Y; y < box.Y+box.H; y++ {
			for x := box.X; x < box.X+box.W; x++ {
				want[g.Pix[y*w+x]] = true
			}
		}
		var tb Box
		first := true
		for y := range tg.Rect.Dy() {
			for x := range tg.Rect.Dx() {
				if !want[tg.Pix[y*tg.Stride+x]] {
					continue
				}
				if first {
					tb, first = Box{X: x, Y: y, W: 1, H: 1}, false
				}
				tb.W = max(tb.W, x-tb.X+1)
				tb.H = max(tb.H, y-tb.Y+1)
				tb.X, tb.Y = min(tb.X, x), min(tb.Y, y)
			}
		}
		got := unturn(tb, deg, b)
		if exp := (Box{X: 10 + box.X, Y: 20 + box.Y, W: box.W, H: box.H}); got != exp {
			t.Errorf("deg %d: unturn(%+v) = %+v, want %+v", deg, tb, got, exp)
		}
	}
}

func TestNoFacesInNoiseOrFlatImages(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	noise := image.NewGray(image.Rect(0, 0, 640, 480))
	for i := range noise.Pix {
		noise.Pix[i] = uint8(r.IntN(256))
	}
	for name, img := range map[string]image.Image{
		"noise": noise,
		"black": image.NewGray(image.Rect(0, 0, 300, 200)),
		"tiny":  image.NewRGBA(image.Rect(0, 0, 10, 10)),
		"empty": image.NewRGBA(image.Rect(0, 0, 0, 0)),
	} {
		if boxes := Detect(img); len(boxes) != 0 {
			t.Errorf("%s: Detect = %v, want none", name, boxes)
		}
	}
}

func TestSuppressDropsOverlapsAndNested(t *testing.T) {
	boxes := []Box{
		{X: 0, Y: 0, W: 100, H: 100, Score: 50},
		{X: 10, Y: 10, W: 100, H: 100, Score: 40},  // IoU ~0.68 with the first
		{X: 30, Y: 40, W: 30, H: 30, Score: 30},    // inside the first
		{X: 300, Y: 0, W: 100, H: 100, Score: 20},  // elsewhere
		{X: 380, Y: 80, W: 100, H: 100, Score: 10}, // touches the fourth a little
	}
	got := suppress(boxes, overlapIoU)
	if len(got) != 3 || got[0].Score != 50 || got[1].Score != 20 || got[2].Score != 10 {
		t.Errorf("suppress = %+v, want the boxes scored 50, 20 and 10", got)
	}
}
