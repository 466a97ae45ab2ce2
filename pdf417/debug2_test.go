package pdf417

import (
	"image"
	"os"
	"testing"
)

func TestDebugLine(t *testing.T) {
	name := os.Getenv("PDF417_DEBUG")
	if name == "" {
		t.Skip()
	}
	f, _ := os.Open(name)
	img, _, _ := image.Decode(f)
	bm := binarizeGlobal(gray(img, maxSide))
	var s []byte
	for x := 0; x < 60; x++ {
		s = append(s, '0'+bm.b[20*bm.w+x])
	}
	t.Logf("bits %s", s)
	s = s[:0]
	for x := 0.0; x < 30; x += 1.0 / 3 {
		s = append(s, '0'+bm.dark(x, 20))
	}
	t.Logf("dark %s g %v t %v", s, bm.g[20*bm.w:20*bm.w+30], bm.t[20*bm.w])
	r, _ := readLine(bm, point{4, 20}, point{294, 20}, 13, nil)
	t.Logf("%+v", r)
}
