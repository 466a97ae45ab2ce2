package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func TestProcessAccepts(t *testing.T) {
	bigJPEG := mustJPEG(t, quadImage(640, 480))
	for _, tt := range []struct {
		name      string
		src       []byte
		limits    Limits
		wantType  string // SourceType
		wantOut   string // ContentType
		wantW     int
		wantH     int
		wantAlpha bool // the source has transparent pixels
	}{
		{name: "jpeg", src: bigJPEG, wantType: "image/jpeg", wantOut: "image/jpeg", wantW: 640, wantH: 480},
		{name: "png", src: mustPNG(t, quadImage(300, 250)), wantType: "image/png", wantOut: "image/png", wantW: 300, wantH: 250},
		{name: "gray png", src: mustPNG(t, image.NewGray(image.Rect(0, 0, 200, 200))), wantType: "image/png", wantOut: "image/png", wantW: 200, wantH: 200},
		{name: "paletted png", src: mustPNG(t, image.NewPaletted(image.Rect(0, 0, 210, 220), color.Palette{color.Black, color.White})), wantType: "image/png", wantOut: "image/png", wantW: 210, wantH: 220},
		{name: "gray jpeg", src: mustJPEG(t, image.NewGray(image.Rect(0, 0, 200, 300))), wantType: "image/jpeg", wantOut: "image/jpeg", wantW: 200, wantH: 300},
		{name: "webp lossy", src: testdata(t, "yellow_rose.lossy.webp"), wantType: "image/webp", wantOut: "image/jpeg", wantW: 400, wantH: 301},
		{name: "webp lossy with alpha", src: testdata(t, "yellow_rose.lossy-with-alpha.webp"), wantType: "image/webp", wantOut: "image/jpeg", wantW: 400, wantH: 301, wantAlpha: true},
		{name: "webp lossless", src: testdata(t, "tux.lossless.webp"), wantType: "image/webp", wantOut: "image/jpeg", wantW: 386, wantH: 395, wantAlpha: true},
		{name: "exactly MaxBytes", src: bigJPEG, limits: Limits{MaxBytes: int64(len(bigJPEG))}, wantType: "image/jpeg", wantOut: "image/jpeg", wantW: 640, wantH: 480},
		{name: "exactly MaxPixels", src: bigJPEG, limits: Limits{MaxPixels: 640 * 480}, wantType: "image/jpeg", wantOut: "image/jpeg", wantW: 640, wantH: 480},
		{name: "exactly MinSide", src: bigJPEG, limits: Limits{MinSide: 480}, wantType: "image/jpeg", wantOut: "image/jpeg", wantW: 640, wantH: 480},
		// A card's two sides side by side, as scanned: under 200 px tall
		// yet legible, so the default lets it through to the reader.
		{name: "card strip 580×184", src: mustJPEG(t, quadImage(580, 184)), wantType: "image/jpeg", wantOut: "image/jpeg", wantW: 580, wantH: 184},
		{name: "progressive, maxScans scans", src: scanBomb(1024, 768, maxScans-1), wantType: "image/jpeg", wantOut: "image/jpeg", wantW: 1024, wantH: 768},
		{name: "trailing bytes after the image", src: append(append([]byte{}, bigJPEG...), "PK\x03\x04 a zip payload"...), wantType: "image/jpeg", wantOut: "image/jpeg", wantW: 640, wantH: 480},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Process(bytes.NewReader(tt.src), tt.limits)
			if err != nil {
				t.Fatalf("Process: %v", err)
			}
			if got.SourceType != tt.wantType || got.ContentType != tt.wantOut {
				t.Errorf("SourceType, ContentType = %s, %s, want %s, %s", got.SourceType, got.ContentType, tt.wantType, tt.wantOut)
			}
			if got.Width != tt.wantW || got.Height != tt.wantH {
				t.Errorf("size %d×%d, want %d×%d", got.Width, got.Height, tt.wantW, tt.wantH)
			}
			if got.SourceSHA256 != hexSHA256(tt.src) || got.SHA256 != hexSHA256(got.Data) {
				t.Errorf("SourceSHA256 or SHA256 does not match the bytes")
			}
			if got.Metadata != (SourceMeta{}) {
				t.Errorf("Metadata = %+v, want none", got.Metadata)
			}
			m := mustDecodeOutput(t, got)
			if tt.wantAlpha {
				// Transparent corners must come out white, not black.
				if c := rgbAt(m, 0, 0); !near(c, color.RGBA{255, 255, 255, 255}) {
					t.Errorf("transparent corner became %v, want white", c)
				}
			}
		})
	}
}

// mustDecodeOutput decodes Data with the standard decoder of its
// ContentType and checks it against Width and Height.
func mustDecodeOutput(t testing.TB, got *Image) image.Image {
	t.Helper()
	var m image.Image
	var err error
	switch got.ContentType {
	case "image/jpeg":
		m, err = jpeg.Decode(bytes.NewReader(got.Data))
	case "image/png":
		m, err = png.Decode(bytes.NewReader(got.Data))
	default:
		t.Fatalf("ContentType %q", got.ContentType)
	}
	if err != nil {
		t.Fatalf("output does not decode: %v", err)
	}
	if b := m.Bounds(); b.Dx() != got.Width || b.Dy() != got.Height {
		t.Fatalf("output decodes to %v, Image says %d×%d", b, got.Width, got.Height)
	}
	return m
}

func TestProcessRefuses(t *testing.T) {
	photo := mustJPEG(t, quadImage(640, 480))
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, quadImage(300, 300), nil); err != nil {
		t.Fatal(err)
	}
	ftyp := func(brands ...string) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(8+4*len(brands)+4))
		b = append(b, "ftyp"+brands[0]+"\x00\x00\x00\x00"+strings.Join(brands[1:], "")...)
		return append(b, make([]byte, 64)...) // then a meta box, say
	}
	rose := testdata(t, "yellow_rose.lossy.webp")
	for _, tt := range []struct {
		name     string
		src      []byte
		limits   Limits
		wantCode string
		wantMsg  string // part of the message
	}{
		{name: "one byte over MaxBytes", src: photo, limits: Limits{MaxBytes: int64(len(photo)) - 1}, wantCode: ETooLarge, wantMsg: "larger than"},
		{name: "over the default MaxBytes", src: append([]byte{0xFF, 0xD8, 0xFF}, make([]byte, 10<<20)...), wantCode: ETooLarge, wantMsg: "larger than 10 MB"},
		{name: "empty", src: nil, wantCode: EUnsupportedType, wantMsg: "empty"},
		{name: "gif", src: gifBuf.Bytes(), wantCode: EUnsupportedType, wantMsg: "not a JPEG, PNG or WebP"},
		{name: "pdf", src: []byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), wantCode: EUnsupportedType, wantMsg: "PDF"},
		{name: "text", src: []byte("just some text, named photo.jpg"), wantCode: EUnsupportedType, wantMsg: "not a JPEG"},
		{name: "svg", src: []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="900" height="600"><script>alert(1)</script></svg>`), wantCode: EUnsupportedType, wantMsg: "not a JPEG"},
		{name: "html", src: []byte("<!DOCTYPE html><html><body><img src=x onerror=alert(1)></body></html>"), wantCode: EUnsupportedType, wantMsg: "not a JPEG"},
		{name: "heic from an iPhone", src: ftyp("heic", "mif1", "MiHB", "MiHE", "MiPr", "miaf", "heic", "tmap"), wantCode: EUnsupportedType, wantMsg: "HEIC photos are not supported; set the camera to 'Most compatible' or upload a JPEG."},
		{name: "heif mif1 with heic", src: ftyp("mif1", "mif1", "heic"), wantCode: EUnsupportedType, wantMsg: "HEIC"},
		{name: "heix", src: ftyp("heix", "mif1", "heix"), wantCode: EUnsupportedType, wantMsg: "HEIC"},
		{name: "avif", src: ftyp("avif", "mif1", "miaf", "MA1B"), wantCode: EUnsupportedType, wantMsg: "AVIF"},
		{name: "mp4 video", src: ftyp("isom", "isom", "iso2", "mp41"), wantCode: EUnsupportedType, wantMsg: "not a JPEG"},
		{name: "animated webp", src: webpFile(vp8x(0x02, 400, 301), riffChunk("ANIM", make([]byte, 6))), wantCode: EUnsupportedType, wantMsg: "Animated"},
		{name: "png bomb 100000×100000", src: pngBomb(100000, 100000), wantCode: ETooManyPixels, wantMsg: "100000×100000"},
		{name: "png bomb under maxSide", src: pngBomb(19000, 19000), wantCode: ETooManyPixels},
		{name: "png strip over maxSide", src: pngBomb(30000, 300), wantCode: ETooManyPixels},
		{name: "webp canvas 16384×16384", src: webpFile(vp8x(0, 16384, 16384), firstChunk(t, rose)), wantCode: ETooManyPixels},
		{name: "jpeg over MaxPixels", src: photo, limits: Limits{MaxPixels: 640*480 - 1}, wantCode: ETooManyPixels, wantMsg: "640×480"},
		{name: "jpeg too narrow", src: mustJPEG(t, quadImage(110, 400)), wantCode: ETooSmall, wantMsg: "110×400"},
		{name: "png too low", src: mustPNG(t, quadImage(400, 119)), wantCode: ETooSmall, wantMsg: "at least 120 pixels"},
		{name: "webp too small", src: testdata(t, "yellow_rose.lossy.webp"), limits: Limits{MinSide: 302}, wantCode: ETooSmall},
		{name: "jpeg cut in half", src: photo[:len(photo)/2], wantCode: ECorrupt, wantMsg: "damaged or incomplete"},
		{name: "jpeg cut in half, EOI appended", src: append(bytes.Clone(photo[:len(photo)/2]), 0xFF, 0xD9), wantCode: ECorrupt},
		{name: "jpeg without EOI", src: photo[:len(photo)-2], wantCode: ECorrupt},
		{name: "jpeg header only", src: photo[:200], wantCode: ECorrupt},
		{name: "png cut in half", src: func() []byte { p := mustPNG(t, quadImage(300, 300)); return p[:len(p)/2] }(), wantCode: ECorrupt},
		{name: "png with empty image data", src: pngBomb(300, 300), wantCode: ECorrupt},
		{name: "png zero width", src: pngBomb(0, 300), wantCode: ECorrupt},
		{name: "webp cut in half", src: rose[:len(rose)/2], wantCode: ECorrupt},
		{name: "webp header only", src: rose[:30], wantCode: ECorrupt},
		{name: "webp VP8X size differs from frame", src: webpFile(vp8x(0, 500, 301), firstChunk(t, rose)), wantCode: ECorrupt},
		{name: "jpeg with 101 scans", src: manyScans(t, 101), wantCode: ECorrupt},
		{name: "progressive scan bomb", src: scanBomb(4000, 3000, 1000), wantCode: ECorrupt},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Process(bytes.NewReader(tt.src), tt.limits)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Process = %v, %v, want an *Error", got, err)
			}
			if e.Code != tt.wantCode || !strings.Contains(e.Message, tt.wantMsg) {
				t.Errorf("Error = %s / %q, want %s / …%q…", e.Code, e.Message, tt.wantCode, tt.wantMsg)
			}
			if !strings.HasSuffix(e.Message, ".") {
				t.Errorf("message %q does not end with a period", e.Message)
			}
		})
	}
}

// manyScans returns a baseline grayscale JPEG whose one scan is repeated
// n times in all. image/jpeg decodes such a file, each scan anew.
func manyScans(t testing.TB, n int) []byte {
	t.Helper()
	j := mustJPEG(t, image.NewGray(image.Rect(0, 0, 256, 256)))
	sos := bytes.Index(j, []byte{0xFF, 0xDA})
	eoi := len(j) - 2
	out := append([]byte{}, j[:eoi]...)
	for range n - 1 {
		out = append(out, j[sos:eoi]...)
	}
	return append(out, 0xFF, 0xD9)
}

func TestProcessManyScansUnderLimit(t *testing.T) {
	// The limit must not cost a legitimate multi-scan file its upload.
	if _, err := Process(bytes.NewReader(manyScans(t, maxScans)), Limits{}); err != nil {
		t.Fatalf("Process with %d scans: %v", maxScans, err)
	}
}

func TestProcessBombAllocatesLittle(t *testing.T) {
	bomb := pngBomb(100000, 100000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := Process(bytes.NewReader(bomb), Limits{})
	runtime.ReadMemStats(&after)
	if ErrorCode(err) != ETooManyPixels {
		t.Fatalf("Process = %v, want %s", err, ETooManyPixels)
	}
	// 30 GB if the pixels were allocated; the read buffer and the header
	// parse are a few KB.
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("refusing the bomb allocated %d bytes", n)
	}
}

func TestProcessReadError(t *testing.T) {
	cause := errors.New("connection reset")
	_, err := Process(iotest.ErrReader(cause), Limits{})
	if !errors.Is(err, cause) {
		t.Fatalf("Process = %v, want it to wrap %v", err, cause)
	}
	var e *Error
	if errors.As(err, &e) {
		t.Errorf("a read error came back as a refusal: %v", e)
	}
}

func TestProcessReadsAtMostMaxBytesPlusOne(t *testing.T) {
	r := &countingReader{}
	_, err := Process(r, Limits{MaxBytes: 1000})
	if ErrorCode(err) != ETooLarge {
		t.Fatalf("Process = %v, want %s", err, ETooLarge)
	}
	if r.n != 1001 {
		t.Errorf("read %d bytes, want 1001", r.n)
	}
}

// countingReader is an endless JPEG-looking stream that counts what is read.
type countingReader struct{ n int }

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 0xFF
	}
	r.n += len(p)
	return len(p), nil
}

// TestProcessEXIF: a phone photo with orientation 6, GPS and an editor's
// Software tag comes out upright, with its metadata reported and gone.
func TestProcessEXIF(t *testing.T) {
	for _, bo := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		t.Run(bo.String(), func(t *testing.T) {
			tiff := exifBlock(bo, 6, "Adobe Photoshop 25.0 (Windows)", true)
			src := withAPP1(mustJPEG(t, quadImage(300, 200)), tiff)
			got, err := Process(bytes.NewReader(src), Limits{})
			if err != nil {
				t.Fatalf("Process: %v", err)
			}
			want := SourceMeta{HadEXIF: true, HadGPS: true, Software: "Adobe Photoshop 25.0 (Windows)", Orientation: 6}
			if got.Metadata != want {
				t.Errorf("Metadata = %+v, want %+v", got.Metadata, want)
			}
			if got.Width != 200 || got.Height != 300 {
				t.Errorf("size %d×%d, want 200×300 (turned)", got.Width, got.Height)
			}
			if bytes.Contains(got.Data, []byte("Exif")) || bytes.Contains(got.Data, []byte("Photoshop")) {
				t.Errorf("output still carries the EXIF block")
			}
			if info := inspectJPEG(got.Data); info.exif != nil {
				t.Errorf("output has an APP1 EXIF segment")
			}
			m := mustDecodeOutput(t, got)
			// Rotated 90° clockwise: the red top-left quadrant is now top right.
			if c := rgbAt(m, 150, 75); !near(c, red) {
				t.Errorf("top right is %v, want red", c)
			}
		})
	}
}

// TestProcessOrientations checks every EXIF orientation, in JPEG APP1, PNG
// eXIf and WebP EXIF, by where each quadrant of quadImage ends up.
func TestProcessOrientations(t *testing.T) {
	const w, h = 320, 240
	// Quadrants of the output, top left, top right, bottom left, bottom
	// right, for a source that is red, green / blue, white. Worked out
	// from the EXIF 2.32 pictures of the eight orientations.
	want := map[int][4]color.RGBA{
		1: {red, green, blue, white},
		2: {green, red, white, blue}, // mirrored
		3: {white, blue, green, red}, // rotated 180°
		4: {blue, white, red, green}, // flipped
		5: {red, blue, green, white}, // transposed
		6: {blue, red, white, green}, // rotated 90° clockwise
		7: {white, green, blue, red}, // transversed
		8: {green, white, red, blue}, // rotated 90° anticlockwise
	}
	containers := map[string]func(tiff []byte) []byte{
		"jpeg": func(tiff []byte) []byte { return withAPP1(mustJPEG(t, quadImage(w, h)), tiff) },
		"png":  func(tiff []byte) []byte { return withPNGChunk(mustPNG(t, quadImage(w, h)), "eXIf", tiff) },
	}
	for name, wrap := range containers {
		for o := 1; o <= 8; o++ {
			t.Run(name+"/"+string(rune('0'+o)), func(t *testing.T) {
				src := wrap(exifBlock(binary.LittleEndian, o, "", false))
				got, err := Process(bytes.NewReader(src), Limits{})
				if err != nil {
					t.Fatalf("Process: %v", err)
				}
				if got.Metadata.Orientation != o {
					t.Errorf("Orientation = %d, want %d", got.Metadata.Orientation, o)
				}
				wantW, wantH := w, h
				if o >= 5 {
					wantW, wantH = h, w
				}
				if got.Width != wantW || got.Height != wantH {
					t.Fatalf("size %d×%d, want %d×%d", got.Width, got.Height, wantW, wantH)
				}
				m := mustDecodeOutput(t, got)
				at := [4]image.Point{{wantW / 4, wantH / 4}, {3 * wantW / 4, wantH / 4}, {wantW / 4, 3 * wantH / 4}, {3 * wantW / 4, 3 * wantH / 4}}
				for i, p := range at {
					if c := rgbAt(m, p.X, p.Y); !near(c, want[o][i]) {
						t.Errorf("quadrant %d at %v is %v, want %v", i, p, c, want[o][i])
					}
				}
			})
		}
	}
}

func TestProcessWebPEXIF(t *testing.T) {
	rose := testdata(t, "yellow_rose.lossy.webp")
	tiff := exifBlock(binary.BigEndian, 8, "GIMP 2.10.36", true)
	for _, tt := range []struct {
		name string
		exif []byte
	}{
		{"tiff block", tiff},
		{"with Exif prefix", append([]byte("Exif\x00\x00"), tiff...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := webpFile(vp8x(0x08, 400, 301), firstChunk(t, rose), riffChunk("EXIF", tt.exif))
			got, err := Process(bytes.NewReader(src), Limits{})
			if err != nil {
				t.Fatalf("Process: %v", err)
			}
			want := SourceMeta{HadEXIF: true, HadGPS: true, Software: "GIMP 2.10.36", Orientation: 8}
			if got.Metadata != want {
				t.Errorf("Metadata = %+v, want %+v", got.Metadata, want)
			}
			if got.Width != 301 || got.Height != 400 {
				t.Errorf("size %d×%d, want 301×400", got.Width, got.Height)
			}
			mustDecodeOutput(t, got)
		})
	}
}

// TestProcessBadEXIF: a broken EXIF block costs nothing but the metadata
// it fails to give, and the failure is reported, not dropped.
func TestProcessBadEXIF(t *testing.T) {
	tiff := exifBlock(binary.LittleEndian, 6, "Snapseed 2.0", false)
	binary.LittleEndian.PutUint16(tiff[10+2:], 2) // orientation's type: SHORT → ASCII
	src := withAPP1(mustJPEG(t, quadImage(300, 200)), tiff)
	got, err := Process(bytes.NewReader(src), Limits{})
	if err != nil {
		t.Fatalf("Process: %v", err)
	}
	if got.Metadata.Orientation != 0 || got.Metadata.Software != "Snapseed 2.0" || !got.Metadata.HadEXIF {
		t.Errorf("Metadata = %+v", got.Metadata)
	}
	if !strings.Contains(got.Metadata.EXIFError, "orientation") {
		t.Errorf("EXIFError = %q, want it to name the orientation", got.Metadata.EXIFError)
	}
	if got.Width != 300 {
		t.Errorf("an unreadable orientation turned the image")
	}
}

func TestErrorCode(t *testing.T) {
	cause := errors.New("unexpected EOF")
	e := error(&Error{Code: ECorrupt, Message: "x.", Err: cause})
	if ErrorCode(fmt.Errorf("upload: %w", e)) != ECorrupt || !errors.Is(e, cause) {
		t.Errorf("ErrorCode or Unwrap lost the code or the cause")
	}
	if ErrorCode(errors.New("other")) != "" {
		t.Errorf("ErrorCode of a plain error is not empty")
	}
}
