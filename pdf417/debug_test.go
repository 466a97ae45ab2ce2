package pdf417

import (
	"image"
	"os"
	"testing"
)

func TestDebugFile(t *testing.T) {
	name := os.Getenv("PDF417_DEBUG")
	if name == "" {
		t.Skip()
	}
	f, _ := os.Open(name)
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	g := gray(img, maxSide)
	debugf = t.Logf
	defer func() { debugf = nil }()
	for bi, bz := range []func(*image.Gray) *bitmap{binarizeGlobal, binarizeLocal} {
		bm := bz(g)
		for rot := range 4 {
			if rot > 0 {
				bm = bm.rotate90()
			}
			starts := group(findHits(bm, startWidths))
			stops := group(findHits(bm, stopWidths))
			t.Logf("bin %d rot %d: %d starts %d stops", bi, rot, len(starts), len(stops))
			for _, s := range starts[:min(3, len(starts))] {
				l := fit(s.hits, func(h hit) float64 { return h.x0 })
				t.Logf("  start %d hits %+v", len(s.hits), l)
			}
			for _, s := range stops[:min(3, len(stops))] {
				l := fit(s.hits, func(h hit) float64 { return h.x1 })
				t.Logf("  stop %d hits %+v", len(s.hits), l)
			}
			res, err := decodeBitmap(bm, true)
			t.Logf("  -> %v %v", len(res), err)
		}
	}
}
