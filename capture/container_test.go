package capture

import (
	"bytes"
	"encoding/binary"
	"image"
	"testing"
)

func TestInspectJPEG(t *testing.T) {
	plain := mustJPEG(t, image.NewGray(image.Rect(0, 0, 64, 64)))
	tiff := exifBlock(binary.LittleEndian, 6, "", false)
	app := func(marker byte, payload string) []byte {
		return append([]byte{0xFF, marker}, append(binary.BigEndian.AppendUint16(nil, uint16(2+len(payload))), payload...)...)
	}
	// insert puts segs right after SOI.
	insert := func(segs ...[]byte) []byte {
		out := append([]byte{}, plain[:2]...)
		for _, s := range segs {
			out = append(out, s...)
		}
		return append(out, plain[2:]...)
	}
	sos := bytes.Index(plain, []byte{0xFF, 0xDA})
	for _, tt := range []struct {
		name      string
		b         []byte
		wantEXIF  bool
		wantScans int
	}{
		{name: "plain", b: plain, wantScans: 1},
		{name: "exif", b: withAPP1(plain, tiff), wantEXIF: true, wantScans: 1},
		{name: "exif after JFIF and XMP", b: insert(app(0xE0, "JFIF\x00\x01\x02"), app(0xE1, "http://ns.adobe.com/xap/1.0/\x00<x/>"), app(0xE1, "Exif\x00\x00"+string(tiff))), wantEXIF: true, wantScans: 1},
		{name: "XMP only", b: insert(app(0xE1, "http://ns.adobe.com/xap/1.0/\x00<x/>")), wantScans: 1},
		{name: "fill bytes and junk between segments", b: insert([]byte{0xFF, 0xFF, 0xFF}, app(0xFE, "comment"), []byte("junk")), wantScans: 1},
		{name: "three scans", b: manyScans(t, 3), wantScans: 3},
		{name: "scan hidden in entropy data is not one", b: append(append([]byte{}, plain[:sos+14]...), append([]byte{0xFF, 0x00, 0xDA, 0xFF, 0xD3}, plain[sos+14:]...)...), wantScans: 1},
		{name: "nothing after EOI counts", b: append(append([]byte{}, plain...), manyScans(t, 5)...), wantScans: 1},
		{name: "segment length past the end", b: append(append([]byte{}, plain[:2]...), 0xFF, 0xE1, 0xFF, 0xFF, 'E'), wantScans: 0},
		{name: "segment length 1", b: append(append([]byte{}, plain[:2]...), 0xFF, 0xE1, 0x00, 0x01, 0xFF, 0xDA), wantScans: 0},
		{name: "SOI only", b: []byte{0xFF, 0xD8}, wantScans: 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := inspectJPEG(tt.b)
			if (got.exif != nil) != tt.wantEXIF || got.scans != tt.wantScans {
				t.Fatalf("inspectJPEG: exif %v, scans %d, want %v, %d", got.exif != nil, got.scans, tt.wantEXIF, tt.wantScans)
			}
			if tt.wantEXIF && !bytes.Equal(got.exif, tiff) {
				t.Errorf("exif block = %q, want %q", got.exif, tiff)
			}
		})
	}
}

func TestPNGEXIF(t *testing.T) {
	p := mustPNG(t, quadImage(8, 8))
	tiff := exifBlock(binary.BigEndian, 3, "", false)
	iend := len(p) - 12
	late := append(append(append([]byte{}, p[:iend]...), pngChunk("eXIf", tiff)...), p[iend:]...)
	for _, tt := range []struct {
		name string
		b    []byte
		want []byte
	}{
		{"none", p, nil},
		{"after IHDR", withPNGChunk(p, "eXIf", tiff), tiff},
		{"after a tEXt", withPNGChunk(withPNGChunk(p, "eXIf", tiff), "tEXt", []byte("Software\x00GIMP")), tiff},
		{"after IDAT is ignored", late, nil},
		{"chunk length past the end", append(append([]byte{}, pngSignature...), 0x7F, 0xFF, 0xFF, 0xFF, 'e', 'X', 'I', 'f'), nil},
	} {
		if got := pngEXIF(tt.b); !bytes.Equal(got, tt.want) {
			t.Errorf("%s: pngEXIF = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestWebPEXIF(t *testing.T) {
	tiff := exifBlock(binary.LittleEndian, 6, "", false)
	for _, tt := range []struct {
		name string
		b    []byte
		want []byte
	}{
		{"none", webpFile(riffChunk("VP8 ", []byte("xyz"))), nil},
		{"after an odd-sized chunk", webpFile(vp8x(0x08, 1, 1), riffChunk("ICCP", []byte("odd")), riffChunk("EXIF", tiff)), tiff},
		{"with Exif prefix", webpFile(riffChunk("EXIF", append([]byte("Exif\x00\x00"), tiff...))), tiff},
		{"chunk length past the end", webpFile([]byte("EXIF\xff\xff\xff\xffII*\x00")), nil},
		{"chunk length 2^32-1 before it", webpFile([]byte("XMP \xff\xff\xff\xff"), riffChunk("EXIF", tiff)), nil},
	} {
		if got := webpEXIF(tt.b); !bytes.Equal(got, tt.want) {
			t.Errorf("%s: webpEXIF = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// FuzzContainers: the metadata walkers never panic, and what they return
// lies inside their input.
func FuzzContainers(f *testing.F) {
	f.Add(withAPP1(mustJPEG(f, quadImage(16, 16)), exifBlock(binary.LittleEndian, 6, "x", true)))
	f.Add(withPNGChunk(mustPNG(f, quadImage(4, 4)), "eXIf", exifBlock(binary.BigEndian, 3, "", false)))
	f.Add(webpFile(vp8x(0x08, 1, 1), riffChunk("EXIF", []byte("II*\x00"))))
	f.Add(manyScans(f, 3))
	f.Fuzz(func(t *testing.T, b []byte) {
		inside := func(s []byte) {
			if !within(b, s) {
				t.Fatalf("returned slice is not inside the input")
			}
		}
		info := inspectJPEG(b)
		inside(info.exif)
		if info.scans > len(b)/2 {
			t.Fatalf("%d scans in %d bytes", info.scans, len(b))
		}
		inside(pngEXIF(b))
		inside(webpEXIF(b))
		_ = isoBrand(b)
		_ = webpAnimated(b)
	})
}

// within reports whether s is a subslice of b.
func within(b, s []byte) bool {
	if len(s) == 0 {
		return true
	}
	for i := range b {
		if &b[i] == &s[0] {
			return i+len(s) <= len(b)
		}
	}
	return false
}
