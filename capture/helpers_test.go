package capture

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// Quadrant colours of quadImage, far enough apart to survive JPEG.
var (
	red   = color.RGBA{220, 30, 30, 255}
	green = color.RGBA{30, 200, 40, 255}
	blue  = color.RGBA{30, 40, 220, 255}
	white = color.RGBA{250, 250, 250, 255}
)

// quadImage returns a w×h image whose quadrants are red (top left), green
// (top right), blue (bottom left) and white (bottom right), so that any
// rotation or flip of it can be told from the others.
func quadImage(w, h int) *image.RGBA {
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := red
			switch {
			case x >= w/2 && y < h/2:
				c = green
			case x < w/2 && y >= h/2:
				c = blue
			case x >= w/2 && y >= h/2:
				c = white
			}
			m.SetRGBA(x, y, c)
		}
	}
	return m
}

func mustJPEG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustPNG(t testing.TB, m image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testdata(t testing.TB, name string) []byte {
	t.Helper()
	return mustRead(t, filepath.Join("testdata", name))
}

// tiffEntry is one IFD0 entry for buildTIFF. A value of up to 4 bytes is
// stored inline; a longer one goes after the IFD and the entry points to
// it. With ptr set, value is appended after the IFD whatever its length
// and the entry holds its offset (a sub-IFD pointer).
type tiffEntry struct {
	tag, typ uint16
	count    uint32
	value    []byte
	ptr      bool
}

// byteOrder is what binary.LittleEndian and binary.BigEndian both are.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// buildTIFF lays out a TIFF block: header, IFD0 at offset 8, then the
// values that do not fit inline.
func buildTIFF(bo byteOrder, entries ...tiffEntry) []byte {
	var head []byte
	if bo.String() == "LittleEndian" {
		head = []byte("II*\x00")
	} else {
		head = []byte("MM\x00*")
	}
	head = bo.AppendUint32(head, 8)
	ifd := bo.AppendUint16(nil, uint16(len(entries)))
	dataAt := 8 + 2 + 12*len(entries) + 4
	var data []byte
	for _, e := range entries {
		ifd = bo.AppendUint16(ifd, e.tag)
		ifd = bo.AppendUint16(ifd, e.typ)
		ifd = bo.AppendUint32(ifd, e.count)
		if len(e.value) <= 4 && !e.ptr {
			ifd = append(ifd, append(e.value, make([]byte, 4-len(e.value))...)...)
			continue
		}
		ifd = bo.AppendUint32(ifd, uint32(dataAt+len(data)))
		data = append(data, e.value...)
	}
	ifd = bo.AppendUint32(ifd, 0) // no IFD1
	return append(append(head, ifd...), data...)
}

func short(bo byteOrder, v uint16) []byte { return bo.AppendUint16(nil, v) }

// exifBlock builds the TIFF block a phone might write: orientation (0 for
// none), Software ("" for none) and a GPS IFD holding GPSVersionID.
func exifBlock(bo byteOrder, orientation int, software string, gps bool) []byte {
	var es []tiffEntry
	if orientation != 0 {
		es = append(es, tiffEntry{tag: tagOrientation, typ: 3, count: 1, value: short(bo, uint16(orientation))})
	}
	if software != "" {
		s := append([]byte(software), 0)
		es = append(es, tiffEntry{tag: tagSoftware, typ: 2, count: uint32(len(s)), value: s})
	}
	if gps {
		gpsIFD := bo.AppendUint16(nil, 1)
		gpsIFD = bo.AppendUint16(gpsIFD, 0) // GPSVersionID
		gpsIFD = bo.AppendUint16(gpsIFD, 1) // BYTE
		gpsIFD = bo.AppendUint32(gpsIFD, 4)
		gpsIFD = append(gpsIFD, 2, 2, 0, 0)
		gpsIFD = bo.AppendUint32(gpsIFD, 0)
		es = append(es, tiffEntry{tag: tagGPSIFD, typ: 4, count: 1, value: gpsIFD, ptr: true})
	}
	return buildTIFF(bo, es...)
}

// withAPP1 inserts an "Exif" APP1 segment holding tiff right after SOI.
func withAPP1(jpg, tiff []byte) []byte {
	payload := append([]byte("Exif\x00\x00"), tiff...)
	seg := []byte{0xFF, 0xE1}
	seg = binary.BigEndian.AppendUint16(seg, uint16(2+len(payload)))
	seg = append(seg, payload...)
	out := append([]byte{}, jpg[:2]...)
	out = append(out, seg...)
	return append(out, jpg[2:]...)
}

// pngChunk encodes one PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[4:]))
}

// withPNGChunk inserts a chunk right after IHDR, where eXIf belongs.
func withPNGChunk(p []byte, typ string, data []byte) []byte {
	at := len(pngSignature) + 8 + 13 + 4 // signature, IHDR
	out := append([]byte{}, p[:at]...)
	out = append(out, pngChunk(typ, data)...)
	return append(out, p[at:]...)
}

// pngBomb returns a valid PNG (correct CRCs, a real zlib stream) that
// claims w×h RGB pixels but holds only a few bytes of image data.
func pngBomb(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB, deflate, no filter, no interlace
	// zlib stream of one empty stored block: decodes, far too short.
	idat := []byte{0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01}
	b := append([]byte{}, pngSignature...)
	b = append(b, pngChunk("IHDR", ihdr)...)
	b = append(b, pngChunk("IDAT", idat)...)
	return append(b, pngChunk("IEND", nil)...)
}

// zeroPNG returns a valid, all-zero PNG of w×h pixels of the given colour
// type (6: RGBA, 2: RGB, 0: grey) and bit depth: a decompression bomb that
// is a few hundred KB however many megabytes its pixels take.
func zeroPNG(t testing.TB, w, h int, colorType, depth byte) []byte {
	t.Helper()
	channels := map[byte]int{0: 1, 2: 3, 4: 2, 6: 4}[colorType]
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, depth, colorType, 0, 0, 0)
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	row := make([]byte, 1+w*channels*int(depth)/8) // filter type 0, then zeros
	for range h {
		if _, err := zw.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	b := append([]byte{}, pngSignature...)
	b = append(b, pngChunk("IHDR", ihdr)...)
	b = append(b, pngChunk("IDAT", z.Bytes())...)
	return append(b, pngChunk("IEND", nil)...)
}

// riffChunk encodes one RIFF chunk, padded to an even length.
func riffChunk(fourcc string, data []byte) []byte {
	b := append([]byte(fourcc), binary.LittleEndian.AppendUint32(nil, uint32(len(data)))...)
	b = append(b, data...)
	if len(data)%2 == 1 {
		b = append(b, 0)
	}
	return b
}

// webpFile wraps chunks in a RIFF WEBP header.
func webpFile(chunks ...[]byte) []byte {
	var body []byte
	for _, c := range chunks {
		body = append(body, c...)
	}
	b := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(4+len(body)))...)
	b = append(b, "WEBP"...)
	return append(b, body...)
}

// vp8x returns a VP8X chunk with flags for a w×h canvas.
func vp8x(flags byte, w, h int) []byte {
	d := []byte{flags, 0, 0, 0}
	for _, v := range []int{w - 1, h - 1} {
		d = append(d, byte(v), byte(v>>8), byte(v>>16))
	}
	return riffChunk("VP8X", d)
}

// firstChunk returns the first RIFF chunk of a simple-format WebP, whole.
func firstChunk(t testing.TB, webp []byte) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(webp[16:]))
	return webp[12 : 20+n+n%2]
}

// rgbAt returns the colour at (x, y) as 8-bit RGB.
func rgbAt(m image.Image, x, y int) color.RGBA {
	r, g, b, _ := m.At(x, y).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
}

// near reports whether two colours are within JPEG's error of each other.
func near(a, b color.RGBA) bool {
	d := func(x, y uint8) int { return max(int(x), int(y)) - min(int(x), int(y)) }
	return d(a.R, b.R) < 40 && d(a.G, b.G) < 40 && d(a.B, b.B) < 40
}

// scanBomb returns a valid progressive grayscale w×h JPEG (sides multiples
// of 8) with one DC scan and acScans AC scans. Each AC scan is a few dozen
// bytes of EOB runs of 32767 blocks, yet image/jpeg walks every block of
// the image for it: at 40 MP that is ~12 ms per scan here, so 10 MB of them
// would take about half an hour. This is libjpeg-turbo's LJT-01-003.
func scanBomb(w, h, acScans int) []byte {
	b := []byte{0xFF, 0xD8}
	b = append(b, 0xFF, 0xDB, 0x00, 0x43, 0x00) // DQT: table 0, all ones
	b = append(b, bytes.Repeat([]byte{1}, 64)...)
	b = append(b, 0xFF, 0xC2, 0x00, 0x0B, 0x08, byte(h>>8), byte(h), byte(w>>8), byte(w), 0x01, 0x01, 0x11, 0x00)
	dht := func(class, symbol byte) []byte { // one code, "0", for symbol
		return append(append([]byte{0xFF, 0xC4, 0x00, 20, class << 4, 1}, make([]byte, 15)...), symbol)
	}
	b = append(b, dht(0, 0x00)...) // DC: difference 0
	b = append(b, dht(1, 0xE0)...) // AC: EOB run of 2^14 + 14 bits
	blocks := (w / 8) * (h / 8)
	var dc, ac bitWriter
	for range blocks {
		dc.put(0, 1)
	}
	for left := blocks; left > 0; left -= 32767 {
		ac.put(0, 1)
		ac.put(0x3FFF, 14)
	}
	b = append(b, 0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00) // Ss=0 Se=0
	b = append(b, dc.flush()...)
	acData := ac.flush()
	for range acScans {
		b = append(b, 0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x01, 0x3F, 0x00) // Ss=1 Se=63
		b = append(b, acData...)
	}
	return append(b, 0xFF, 0xD9)
}

// bitWriter writes JPEG entropy-coded bits, stuffing 0x00 after 0xFF.
type bitWriter struct {
	out []byte
	acc byte
	n   int
}

func (w *bitWriter) put(v uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		w.acc = w.acc<<1 | byte(v>>i&1)
		if w.n++; w.n == 8 {
			w.out = append(w.out, w.acc)
			if w.acc == 0xFF {
				w.out = append(w.out, 0x00)
			}
			w.acc, w.n = 0, 0
		}
	}
}

// flush pads the last byte with ones, as the standard says.
func (w *bitWriter) flush() []byte {
	for w.n != 0 {
		w.put(1, 1)
	}
	return w.out
}
