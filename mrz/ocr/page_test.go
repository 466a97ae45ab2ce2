package ocr

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"
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
	// The longer edges, 1405 and 900, and a margin of 56 (4% of 1405).
	if page.w != 1517 || page.h != 1012 {
		t.Fatalf("page %d × %d, want 1517 × 1012 (the longer edges and a margin)", page.w, page.h)
	}
	for i, c := range [4][2]float64{{56, 56}, {1461, 56}, {1461, 956}, {56, 956}} {
		x, y := applyHomography(hm, c[0], c[1])
		if math.Hypot(x-q[i][0], y-q[i][1]) > 1e-6 {
			t.Errorf("corner %d → (%.1f, %.1f), want %v", i, x, y, q[i])
		}
	}
	// The card's paper is light everywhere inside the page's own left
	// margin: the table is outside it.
	dark := 0
	for y := 76; y < page.h-76; y += 7 {
		for x := 76; x < 106; x++ {
			if page.pix[y*page.w+x] < 180 {
				dark++
			}
		}
	}
	if dark > 0 {
		t.Errorf("%d table pixels inside the warped page's left margin", dark)
	}
}

// TestReadAtUsualScaleFindsPage: the portal's upload-time read (the usual
// scale only) of a card at 40% of a large frame's width, turned and
// in perspective, reads it on the page it finds; before, no zone was
// found at that scale. A tuning-half photo (bench/mrz's split).
func TestReadAtUsualScaleFindsPage(t *testing.T) {
	dir, gt := loadTruth(t)
	const name = "doc_td1_gbr_residence_permit_sample.png"
	var want []string
	for _, g := range gt {
		if g.Image == name {
			want = g.MRZ
		}
	}
	src := planeFromGray(grayOf(decodeFile(t, filepath.Join(dir, name))))
	// The card at 40% of the frame's width, its right edge 15% shorter.
	fw := src.w * 5 / 2
	fh := fw * 3 / 4
	x0, y0 := float64(fw)*0.45, float64(fh)*0.4
	sw, sh := float64(src.w), float64(src.h)
	q := [4][2]float64{{x0, y0}, {x0 + sw, y0 + 0.075*sh}, {x0 + sw, y0 + 0.925*sh}, {x0, y0 + sh}}
	hm := solveHomography(q, [4][2]float64{{0, 0}, {sw, 0}, {sw, sh}, {0, sh}})
	frame := image.NewGray(image.Rect(0, 0, fw, fh))
	for y := range fh {
		for x := range fw {
			v := uint8(110 + (x*7+y*13+(x*y)%17)%23)
			if u, s := applyHomography(hm, float64(x)+0.5, float64(y)+0.5); u >= 0 && s >= 0 && u < sw && s < sh {
				v = uint8(min(max(src.at(u-0.5, s-0.5)+0.5, 0), 255))
			}
			frame.Pix[y*frame.Stride+x] = v
		}
	}
	r, err := ReadAtUsualScale(frame, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusRead || !slices.Equal(r.Lines, want) {
		t.Fatalf("card at 40%% of a %d px frame: %s %s %v", fw, r.Status, r.Hint, r.Lines)
	}
	// The zone's box is given in the frame's pixels: inside the card.
	if !r.Box.Overlaps(image.Rect(int(x0), int(y0), int(x0+sw), int(y0+sh))) || r.Box.Min.X < int(x0)-20 {
		t.Errorf("zone box %v, card at (%.0f, %.0f) %.0f × %.0f", r.Box, x0, y0, sw, sh)
	}
}

// TestSmallPageWithoutZone: a small card without a zone in a large frame
// (print, no MRZ) says too_small, come closer, rather than no_zone.
func TestSmallPageWithoutZone(t *testing.T) {
	img := pageScene(2400, 1800, [4][2]float64{{1200, 900}, {1800, 900}, {1800, 1320}, {1200, 1320}}, 5)
	r, err := ReadAtUsualScale(img, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusNotFound || r.Hint != HintTooSmall {
		t.Fatalf("%s %s, want not_found too_small", r.Status, r.Hint)
	}
}

// FuzzFindPage feeds any pixels (a photo is untrusted input) to the page
// search and, when it finds a page, to the warp: no panic, corners inside
// the picture (give or take the erosion's growth), a page of bounded size.
func FuzzFindPage(f *testing.F) {
	f.Add(uint8(120), uint8(90), []byte{0, 255, 17, 200, 3})
	f.Add(uint8(64), uint8(64), []byte{255})
	f.Add(uint8(200), uint8(150), []byte{100}) // a page: a light block on gray
	f.Fuzz(func(t *testing.T, w, h uint8, data []byte) {
		W, H := 64+int(w), 64+int(h)
		g := image.NewGray(image.Rect(0, 0, W, H))
		for i := range g.Pix {
			if len(data) > 0 {
				g.Pix[i] = data[(i*7+i/W)%len(data)]
			}
		}
		// A bright block, so that some inputs have a page to find.
		for y := H / 4; y < H*3/4; y++ {
			for x := W / 4; x < W*3/4; x++ {
				g.Pix[y*W+x] |= 0xe0
			}
		}
		py := NewPyramid(g)
		q, ok := findPage(py)
		if !ok {
			return
		}
		for _, c := range q {
			if math.IsNaN(c[0]) || math.IsNaN(c[1]) || c[0] < -16 || c[1] < -16 || c[0] > float64(W+16) || c[1] > float64(H+16) {
				t.Fatalf("corner %v outside the %d × %d picture", c, W, H)
			}
		}
		page, _ := warpPage(py, q)
		if page.w > maxPageSide || page.h > maxPageSide {
			t.Fatalf("page %d × %d", page.w, page.h)
		}
	})
}

// TestFuzzFindPageSeesPages: FuzzFindPage's third seed (264 × 214, gray
// 100 with its light block) is a page the search finds, so that the warp
// is fuzzed too.
func TestFuzzFindPageSeesPages(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 264, 214))
	for i := range g.Pix {
		g.Pix[i] = 100
	}
	for y := 214 / 4; y < 214*3/4; y++ {
		for x := 264 / 4; x < 264*3/4; x++ {
			g.Pix[y*264+x] |= 0xe0
		}
	}
	if _, ok := findPage(NewPyramid(g)); !ok {
		t.Fatal("the page seed has no page: the fuzz target would never reach the warp")
	}
}
