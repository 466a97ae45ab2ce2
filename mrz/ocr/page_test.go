package ocr

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"testing"
)

// pageScene draws a light card (with dark bars for print) on a noisy,
// shaded table, its corners at q (clockwise), as a phone sees a document
// lying at an angle; generated, never stored.
func pageScene(w, h int, q [4][2]float64, seed uint64) *image.RGBA {
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	// Page coordinates of a frame pixel, through the homography taking
	// the frame's quadrilateral to a 1000 × 700 card.
	hm := solveHomography(q, [4][2]float64{{0, 0}, {1000, 0}, {1000, 700}, {0, 700}})
	for y := range h {
		for x := range w {
			v := 100 + 40*x/w + rng.IntN(21) - 10
			c := color.RGBA{uint8(v), uint8(v * 9 / 10), uint8(v * 8 / 10), 255}
			u, s := applyHomography(hm, float64(x)+0.5, float64(y)+0.5)
			if u >= 0 && s >= 0 && u < 1000 && s < 700 {
				g := uint8(225 + rng.IntN(11))
				c = color.RGBA{g, g, g - 10, 255}
				// Lines of print: bars 20 high every 60, broken into words.
				if int(s)%60 > 30 && int(s)%60 < 50 && u > 60 && u < 940 && int(u)%90 < 70 {
					c = color.RGBA{30, 30, 40, 255}
				}
			}
			out.SetRGBA(x, y, c)
		}
	}
	return out
}

// TestFindPage: the corners of a card on a table, small in the frame,
// turned, or in perspective, are found within 2% of the frame's width;
// a frame of table alone and a frame filled by the page have no page.
func TestFindPage(t *testing.T) {
	for _, c := range []struct {
		name string
		q    [4][2]float64
	}{
		{"small", [4][2]float64{{900, 700}, {1500, 700}, {1500, 1120}, {900, 1120}}},
		{"turned", [4][2]float64{{700, 500}, {1450, 620}, {1380, 1080}, {630, 960}}},
		{"perspective", [4][2]float64{{300, 300}, {1700, 420}, {1700, 1080}, {300, 1200}}},
	} {
		img := pageScene(2000, 1500, c.q, 7)
		g, back := inkGray(img, maxSide)
		q, ok := findPage(NewPyramid(g))
		if !ok {
			t.Errorf("%s: no page found", c.name)
			continue
		}
		// The same corners, up to where the cycle starts.
		bestErr := math.Inf(1)
		for s := range 4 {
			e := 0.0
			for i := range 4 {
				p := q[(i+s)%4]
				e = max(e, math.Hypot(p[0]*back-c.q[i][0], p[1]*back-c.q[i][1]))
			}
			bestErr = min(bestErr, e)
		}
		if bestErr > 0.02*2000 {
			t.Errorf("%s: corners %v, want %v (off by %.0f px)", c.name, q, c.q, bestErr)
		}
	}
	// The table alone, and a page filling the frame.
	for name, img := range map[string]image.Image{
		"table": pageScene(1200, 900, [4][2]float64{{-10, -10}, {-5, -10}, {-5, -5}, {-10, -5}}, 3),
		"full":  pageScene(1200, 900, [4][2]float64{{-5, -5}, {1205, -5}, {1205, 905}, {-5, 905}}, 3),
	} {
		g, _ := inkGray(img, maxSide)
		if q, ok := findPage(NewPyramid(g)); ok {
			t.Errorf("%s: found a page at %v", name, q)
		}
	}
}

// TestWarpPage: the page warped upright has the page's proportions, and
// the homography takes its corners to the quadrilateral's.
func TestWarpPage(t *testing.T) {
	q := [4][2]float64{{300, 300}, {1700, 420}, {1700, 1080}, {300, 1200}}
	img := pageScene(2000, 1500, q, 11)
	g, _ := inkGray(img, maxSide)
	py := NewPyramid(g)
	page, hm := warpPage(py, q)
	if page.w != 1405 || page.h != 900 {
		t.Fatalf("page %d × %d, want 1405 × 900 (the longer edges)", page.w, page.h)
	}
	for i, c := range [4][2]float64{{0, 0}, {1405, 0}, {1405, 900}, {0, 900}} {
		x, y := applyHomography(hm, c[0], c[1])
		if math.Hypot(x-q[i][0], y-q[i][1]) > 1e-6 {
			t.Errorf("corner %d → (%.1f, %.1f), want %v", i, x, y, q[i])
		}
	}
	// The card's paper is light everywhere inside the warped page's
	// margins, the table is gone.
	dark := 0
	for y := 20; y < page.h-20; y += 7 {
		for x := 20; x < 50; x++ {
			if page.pix[y*page.w+x] < 180 {
				dark++
			}
		}
	}
	if dark > 0 {
		t.Errorf("%d table pixels inside the warped page's left margin", dark)
	}
}
