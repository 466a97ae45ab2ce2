package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

// fuzzLimits keep each input cheap, so the fuzzer spends its time on
// structure rather than on decoding big pictures.
var fuzzLimits = Limits{MaxBytes: 1 << 20, MaxPixels: 1 << 20, MinSide: 1}

// FuzzProcess: no input makes Process panic, return something other than
// an *Error or an Image, or return an Image that breaks the limits, keeps
// metadata or does not decode to what it says.
func FuzzProcess(f *testing.F) {
	f.Add(mustJPEG(f, quadImage(16, 8)))
	f.Add(withAPP1(mustJPEG(f, quadImage(16, 8)), exifBlock(binary.LittleEndian, 6, "Photoshop", true)))
	f.Add(mustPNG(f, quadImage(5, 7)))
	f.Add(withPNGChunk(mustPNG(f, quadImage(5, 7)), "eXIf", exifBlock(binary.BigEndian, 7, "", false)))
	f.Add(mustPNG(f, image.NewPaletted(image.Rect(0, 0, 3, 3), color.Palette{color.Black, color.White})))
	f.Add(pngBomb(100000, 100000))
	f.Add(pngBomb(8, 8))
	f.Add(manyScans(f, 2))
	f.Add(testdata(f, "yellow_rose.lossy.webp"))
	f.Add(testdata(f, "tux.lossless.webp"))
	f.Add(testdata(f, "yellow_rose.lossy-with-alpha.webp"))
	f.Add([]byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"))
	f.Add([]byte("GIF89a"))
	f.Fuzz(func(t *testing.T, src []byte) {
		got, err := Process(bytes.NewReader(src), fuzzLimits)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			switch e.Code {
			case ETooLarge, EUnsupportedType, ETooManyPixels, ETooSmall, ECorrupt:
			default:
				t.Fatalf("unknown code %q", e.Code)
			}
			if e.Message == "" {
				t.Fatalf("refusal %s has no message", e.Code)
			}
			return
		}
		if got.Width > maxSide || got.Height > maxSide || int64(got.Width)*int64(got.Height) > fuzzLimits.MaxPixels ||
			min(got.Width, got.Height) < fuzzLimits.MinSide {
			t.Fatalf("accepted %d×%d, outside %+v", got.Width, got.Height, fuzzLimits)
		}
		if got.SHA256 != hexSHA256(got.Data) || got.SourceSHA256 != hexSHA256(src) {
			t.Fatalf("hashes do not match the bytes")
		}
		if o := got.Metadata.Orientation; o < 0 || o > 8 {
			t.Fatalf("Orientation %d", o)
		}
		var m image.Image
		switch got.ContentType {
		case "image/jpeg":
			if inspectJPEG(got.Data).exif != nil {
				t.Fatalf("output keeps an EXIF segment")
			}
			m, err = jpeg.Decode(bytes.NewReader(got.Data))
		case "image/png":
			if pngEXIF(got.Data) != nil {
				t.Fatalf("output keeps an eXIf chunk")
			}
			m, err = png.Decode(bytes.NewReader(got.Data))
		default:
			t.Fatalf("ContentType %q", got.ContentType)
		}
		if err != nil {
			t.Fatalf("output does not decode: %v", err)
		}
		if b := m.Bounds(); b.Dx() != got.Width || b.Dy() != got.Height {
			t.Fatalf("output is %v, Image says %d×%d", b, got.Width, got.Height)
		}
	})
}
