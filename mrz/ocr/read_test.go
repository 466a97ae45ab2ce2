package ocr

import (
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// modelSHA256 is the SHA-256 of model.bin as `go run ./tools/mrztrain`
// writes it (see that command's doc): retraining with the same program
// must give these very bytes.
const modelSHA256 = "8c67f57e3fd7232b5f5be7f2e739e1a3ff783f12786206db9915e8b0f6464eed"

func TestModelSHA256(t *testing.T) {
	sum := sha256.Sum256(modelBin)
	if got := hex.EncodeToString(sum[:]); got != modelSHA256 {
		t.Fatalf("model.bin has SHA-256 %s, want %s: retrain with tools/mrztrain and record the new sum", got, modelSHA256)
	}
	if _, err := DecodeNet(modelBin); err != nil {
		t.Fatal(err)
	}
}

// rotate turns img by deg degrees clockwise about its centre, on white,
// bilinearly (a multiple of 90 exactly).
func rotate(img image.Image, deg float64) *image.Gray {
	b := img.Bounds()
	src := image.NewGray(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			src.Set(x, y, color.GrayModel.Convert(img.At(x, y)))
		}
	}
	p := planeFromGray(src)
	th := deg * math.Pi / 180
	c, s := math.Cos(th), math.Sin(th)
	w, h := float64(p.w), float64(p.h)
	ow := int(math.Round(math.Abs(w*c) + math.Abs(h*s)))
	oh := int(math.Round(math.Abs(w*s) + math.Abs(h*c)))
	out := image.NewGray(image.Rect(0, 0, ow, oh))
	for y := range oh {
		for x := range ow {
			// Back from the output to the source: rotate by −deg.
			dx, dy := float64(x)+0.5-float64(ow)/2, float64(y)+0.5-float64(oh)/2
			sx := c*dx + s*dy + w/2 - 0.5
			sy := -s*dx + c*dy + h/2 - 0.5
			v := float32(255)
			if sx >= -0.5 && sy >= -0.5 && sx <= w-0.5 && sy <= h-0.5 {
				v = p.at(sx, sy)
			}
			out.Pix[y*out.Stride+x] = uint8(min(max(v+0.5, 0), 255))
		}
	}
	return out
}

// TestReadTurnedAndTilted reads one photo turned by quarter turns and
// tilted both ways: the same zone comes out.
func TestReadTurnedAndTilted(t *testing.T) {
	dir, gt := loadTruth(t)
	var want []string
	for _, g := range gt {
		if g.Image == "doc_td3_ltu_passport_specimen.jpg" {
			want = g.MRZ
		}
	}
	img := decodeFile(t, filepath.Join(dir, "doc_td3_ltu_passport_specimen.jpg"))
	for _, deg := range []float64{90, 180, 270, 12, -12, 197} {
		r, err := Read(rotate(img, deg), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusRead || !slices.Equal(r.Lines, want) {
			t.Errorf("turned %v°: %v", deg, r)
			continue
		}
		// Rotation is the lines' angle: the page turned clockwise by deg.
		if d := math.Abs(math.Mod(r.Rotation-deg+720+180, 360) - 180); d > 3 {
			t.Errorf("turned %v°: rotation %.1f", deg, r.Rotation)
		}
	}
}

// TestReadBlank: no zone on a blank or noisy page.
func TestReadBlank(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 640, 480))
	for i := range g.Pix {
		g.Pix[i] = uint8(200 + (i*7919)%37)
	}
	r, err := Read(g, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != StatusNotFound || r.Hint != HintNoZone {
		t.Fatalf("blank page: %v", r)
	}
}

// FuzzRead: any image, however small or strange, gives a result.
func FuzzRead(f *testing.F) {
	f.Add(uint16(40), uint16(30), []byte{0, 255, 128})
	f.Add(uint16(1), uint16(1), []byte{7})
	f.Add(uint16(300), uint16(5), []byte{0, 0, 255, 255})
	f.Fuzz(func(t *testing.T, w, h uint16, pix []byte) {
		w, h = w%700+1, h%700+1
		g := image.NewGray(image.Rect(0, 0, int(w), int(h)))
		for i := range g.Pix {
			if len(pix) > 0 {
				g.Pix[i] = pix[i%len(pix)]
			}
		}
		if _, err := Read(g, time.Now()); err != nil {
			t.Fatal(err)
		}
	})
}
