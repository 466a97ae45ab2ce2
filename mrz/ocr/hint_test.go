package ocr

import (
	"image"
	"image/draw"
	"math"
	"path/filepath"
	"testing"
	"time"
)

// grayOf copies img into a gray image at the origin.
func grayOf(img image.Image) *image.Gray {
	b := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(g, g.Rect, img, b.Min, draw.Src)
	return g
}

// blurGray is a Gaussian blur of standard deviation sigma (three box
// passes each way).
func blurGray(g *image.Gray, sigma float64) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	cur := make([]float64, w*h)
	for i, v := range g.Pix {
		cur[i] = float64(v)
	}
	r := int(math.Round(math.Sqrt(12*sigma*sigma/3+1)-1) / 2)
	tmp := make([]float64, w*h)
	for range 3 {
		for y := range h {
			for x := range w {
				var s float64
				for k := -r; k <= r; k++ {
					s += cur[y*w+min(max(x+k, 0), w-1)]
				}
				tmp[y*w+x] = s / float64(2*r+1)
			}
		}
		for y := range h {
			for x := range w {
				var s float64
				for k := -r; k <= r; k++ {
					s += tmp[min(max(y+k, 0), h-1)*w+x]
				}
				cur[y*w+x] = s / float64(2*r+1)
			}
		}
	}
	out := image.NewGray(g.Rect)
	for i, v := range cur {
		out.Pix[i] = uint8(min(max(v+0.5, 0), 255))
	}
	return out
}

// TestRetakeHints damages one shared photo whose zone is read as the
// damage a phone photo suffers, and checks the reader asks for the retake
// that fixes it rather than the generic "show the zone": the zone cut by
// the frame's edge, the whole picture out of focus, a white glare
// hiding the middle of the lines.
func TestRetakeHints(t *testing.T) {
	if testing.Short() {
		t.Skip("reads several photos")
	}
	dir, _ := loadTruth(t)
	img := grayOf(decodeFile(t, filepath.Join(dir, "doc_td3_ltu_passport_specimen.jpg")))
	ref := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clean, err := Read(img, ref)
	if err != nil || clean.Status != StatusRead {
		t.Fatalf("undamaged photo: %v, %v", clean, err)
	}
	box := clean.Box

	// The picture ends in the middle of the zone's lines.
	cut := img.SubImage(image.Rect(0, 0, box.Min.X+box.Dx()*2/3, img.Rect.Max.Y)).(*image.Gray)

	// Out of focus: a blur of a third of a character's width.
	blurred := blurGray(img, float64(box.Dx())/44/3)

	// A glare: the middle third of the lines washed out to near white.
	glare := grayOf(img)
	gx0, gx1 := box.Min.X+box.Dx()/3, box.Min.X+box.Dx()*2/3
	cx, cy := float64(gx0+gx1)/2, float64(box.Min.Y+box.Max.Y)/2
	rx, ry := float64(gx1-gx0)/2, float64(box.Dy())*0.8
	for y := glare.Rect.Min.Y; y < glare.Rect.Max.Y; y++ {
		for x := glare.Rect.Min.X; x < glare.Rect.Max.X; x++ {
			dx, dy := (float64(x)-cx)/rx, (float64(y)-cy)/ry
			if a := 1.2 * math.Exp(-(dx*dx+dy*dy)*1.5); a > 0.02 {
				i := y*glare.Stride + x
				v := float64(glare.Pix[i])
				glare.Pix[i] = uint8(min(255, v+(255-v)*min(a, 1)))
			}
		}
	}

	for _, c := range []struct {
		name string
		img  image.Image
		want Hint
	}{
		{"cut off", cut, HintCutOff},
		{"glare", glare, HintGlare},
		{"blurred", blurred, HintBlurry},
	} {
		r, err := Read(c.img, ref)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == StatusRead {
			t.Logf("%s: still read (%v)", c.name, r)
			continue
		}
		if r.Hint != c.want {
			t.Errorf("%s: %v, want hint %s", c.name, r, c.want)
		}
	}
}

// TestNoZoneHint: when no zone is found, lines of print cut by the frame
// ask to move back, two bars one above the other (glyphs blurred into
// each other) ask to hold still, anything else asks for the zone's side.
func TestNoZoneHint(t *testing.T) {
	bar := func(x0, y0, w, h int) blob {
		return blob{x0: x0, y0: y0, x1: x0 + w - 1, y1: y0 + h - 1, n: w * h, cx: float64(x0) + float64(w-1)/2, cy: float64(y0) + float64(h-1)/2}
	}
	if !barStack([]blob{bar(20, 100, 400, 14), bar(22, 125, 396, 14)}) {
		t.Error("two bars one line-spacing apart: not a blurred zone")
	}
	if barStack([]blob{bar(20, 100, 400, 14), bar(22, 300, 396, 14)}) {
		t.Error("two bars far apart taken for a zone")
	}
	if barStack([]blob{bar(20, 100, 400, 14), bar(200, 125, 100, 14)}) {
		t.Error("a long bar over a short one taken for a zone")
	}
	for _, c := range []struct {
		cut, bars bool
		blur      float64
		want      Hint
	}{{true, true, 3, HintCutOff}, {false, true, 0, HintBlurry}, {false, false, 3, HintBlurry}, {false, false, 1, HintNoZone}} {
		if got := noZoneHint(c.cut, c.bars, c.blur); got != c.want {
			t.Errorf("noZoneHint(%v, %v, %v) = %s, want %s", c.cut, c.bars, c.blur, got, c.want)
		}
	}
}
