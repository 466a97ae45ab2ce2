package report

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"strings"
	"testing"

	"kycd/internal/realdata"
)

func TestThumbnailRealPhoto(t *testing.T) {
	data, err := os.ReadFile(realdata.Path(t, "images/doc_td3_deu_passport_specimen.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	jpg, w, h, err := thumbnail(data)
	if err != nil {
		t.Fatal(err)
	}
	// 1874 × 1326 scales to 600 on the long side, keeping the aspect.
	if w != 600 || h != 424 {
		t.Errorf("thumbnail is %d×%d, want 600×424", w, h)
	}
	img, err := jpeg.Decode(bytes.NewReader(jpg))
	if err != nil {
		t.Fatalf("thumbnail is not a JPEG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Errorf("encoded %v, reported %d×%d", b, w, h)
	}
	if len(jpg) > len(data)/2 {
		t.Errorf("thumbnail is %d bytes, the original %d: not much smaller", len(jpg), len(data))
	}
	if dark, total := darkPixels(img); dark*20 < total {
		t.Errorf("thumbnail looks washed out: %d of %d pixels dark", dark, total)
	}
}

// Transparent PNG areas print as paper, and small images are not
// enlarged.
func TestThumbnailTransparentPNG(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 200, 100))
	for x := range 100 {
		for y := range 100 {
			src.Set(x, y, color.NRGBA{0, 0, 0, 255}) // left half black, right half transparent
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, src); err != nil {
		t.Fatal(err)
	}
	jpg, w, h, err := thumbnail(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if w != 200 || h != 100 {
		t.Errorf("small image resized to %d×%d", w, h)
	}
	img, err := jpeg.Decode(bytes.NewReader(jpg))
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _, _ := img.At(170, 50).RGBA(); r < 0xf000 {
		t.Errorf("transparent area printed as %v, want white", img.At(170, 50))
	}
	if r, _, _, _ := img.At(30, 50).RGBA(); r > 0x1000 {
		t.Errorf("black area printed as %v", img.At(30, 50))
	}
}

// shrinkYCbCr must give the same picture as converting first and then
// averaging, for every chroma subsampling JPEG uses.
func TestShrinkYCbCrMatchesRGBA(t *testing.T) {
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422,
		image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410} {
		src := image.NewYCbCr(image.Rect(3, 5, 3+97, 5+61), ratio)
		// Values stay clear of RGB clipping, where averaging before and
		// after the conversion legitimately differ.
		for i := range src.Y {
			src.Y[i] = uint8(60 + i*13%120)
		}
		for i := range src.Cb {
			src.Cb[i], src.Cr[i] = uint8(108+i*7%40), uint8(148-i*11%40)
		}
		rgba := image.NewRGBA(image.Rect(0, 0, 97, 61))
		for y := range 61 {
			for x := range 97 {
				rgba.Set(x, y, src.At(x+3, y+5))
			}
		}
		got, want := shrinkYCbCr(src, 4), shrink(rgba, 4)
		if got.Rect != want.Rect {
			t.Fatalf("%v: size %v, want %v", ratio, got.Rect, want.Rect)
		}
		for i := range got.Pix {
			if d := int(got.Pix[i]) - int(want.Pix[i]); d < -3 || d > 3 {
				t.Fatalf("%v: byte %d is %d, want about %d", ratio, i, got.Pix[i], want.Pix[i])
			}
		}
	}
}

// A capture whose image cannot be decoded still gets its report, with a
// box saying why the image is missing.
func TestKYCPDFBrokenImage(t *testing.T) {
	rep := typicalKYC(t)
	rep.Thumbnails[rep.Captures[1].ID] = []byte("not an image")
	delete(rep.Thumbnails, rep.Captures[2].ID)
	pdf := renderKYC(t, rep)
	path := savePDF(t, "kyc-broken-image", pdf)
	if !havePoppler(t) {
		return
	}
	flow := pdfFlow(t, path)
	mustContain(t, flow, "Image not shown: decode image: image: unknown format",
		"Image not shown: no image stored for capture "+rep.Captures[2].ID, rep.Captures[1].SHA256)
	if strings.Count(flow, "Image not shown") != 2 {
		t.Errorf("want exactly two missing-image boxes")
	}
}

func BenchmarkThumbnail(b *testing.B) {
	data, err := os.ReadFile(realdata.Path(b, "images/doc_td3_deu_passport_specimen.jpg"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, _, err := thumbnail(data); err != nil {
			b.Fatal(err)
		}
	}
}
