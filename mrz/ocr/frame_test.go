package ocr

import (
	"image"
	"image/color"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// inFrame pastes img at (x0, y0) of a w×h frame of noisy table-grey, as a
// phone photo of a document lying on a table shows it.
func inFrame(img image.Image, w, h, x0, y0 int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := uint8(110 + (x*7+y*13+(x*y)%17)%23)
			out.SetRGBA(x, y, color.RGBA{v, v * 9 / 10, v * 8 / 10, 255})
		}
	}
	b := img.Bounds()
	for y := range b.Dy() {
		for x := range b.Dx() {
			out.Set(x0+x, y0+y, img.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return out
}

// TestReadSmallInLargeFrame: a card taking 40% of the frame's width
// (characters about 4 pixels at the usual detection scale) is found by
// the finer look and read exactly; before, no zone was found.
func TestReadSmallInLargeFrame(t *testing.T) {
	dir, gt := loadTruth(t)
	const name = "doc_td1_gbr_residence_permit_sample.png"
	var want []string
	for _, g := range gt {
		if g.Image == name {
			want = g.MRZ
		}
	}
	img := decodeFile(t, filepath.Join(dir, name))
	b := img.Bounds()
	w := b.Dx() * 5 / 2
	frame := inFrame(img, w, w*3/4, w/2, w*3/4-b.Dy()-w/10)
	r, err := Read(frame, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusRead || !slices.Equal(r.Lines, want) {
		t.Fatalf("card at 40%% of a %d px frame: %s %s %v", w, r.Status, r.Hint, r.Lines)
	}
}
