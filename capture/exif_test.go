package capture

import (
	"encoding/binary"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestParseEXIF(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	orientation := func(bo byteOrder, typ uint16, count uint32, v []byte) tiffEntry {
		return tiffEntry{tag: tagOrientation, typ: typ, count: count, value: v}
	}
	software := func(typ uint16, s string) tiffEntry {
		return tiffEntry{tag: tagSoftware, typ: typ, count: uint32(len(s)), value: []byte(s)}
	}
	// pointAt returns a Software entry whose value offset is off, whatever
	// it points at.
	pointAt := func(bo byteOrder, off, count uint32) []byte {
		b := buildTIFF(bo, software(2, "placeholder"))
		bo.PutUint32(b[10+4:], count)
		bo.PutUint32(b[10+8:], off)
		return b
	}
	for _, tt := range []struct {
		name    string
		b       []byte
		want    exifInfo
		wantErr string // part of the error; "" for none
	}{
		{name: "little endian", b: exifBlock(le, 6, "Adobe Photoshop Lightroom Classic 13.0", true),
			want: exifInfo{Orientation: 6, Software: "Adobe Photoshop Lightroom Classic 13.0", HasGPS: true}},
		{name: "big endian", b: exifBlock(be, 3, "iOS 17.1", false), want: exifInfo{Orientation: 3, Software: "iOS 17.1"}},
		{name: "nothing we read", b: buildTIFF(le, tiffEntry{tag: 0x010F, typ: 2, count: 6, value: []byte("Apple\x00")}), want: exifInfo{}},
		{name: "empty IFD", b: buildTIFF(be), want: exifInfo{}},
		{name: "software inline", b: buildTIFF(le, software(2, "GI\x00")), want: exifInfo{Software: "GI"}},
		{name: "software of 4 bytes inline", b: buildTIFF(be, software(2, "Pixl")), want: exifInfo{Software: "Pixl"}},
		{name: "software undefined type", b: buildTIFF(le, software(7, "Snapseed")), want: exifInfo{Software: "Snapseed"}},
		{name: "software with controls", b: buildTIFF(le, software(2, "Evil\r\nFAKE LOG LINE\x1b[31m\u202egpj.exe\x00junk")),
			want: exifInfo{Software: "EvilFAKE LOG LINE[31mgpj.exe"}},
		{name: "software wrong type", b: buildTIFF(le, tiffEntry{tag: tagSoftware, typ: 4, count: 1, value: []byte{1, 2, 3, 4}}), wantErr: "software has type 4"},
		{name: "software past the end", b: pointAt(le, 1000, 20), wantErr: "past the end"},
		{name: "software offset overflows 32 bits", b: pointAt(be, 0xFFFFFFF0, 0x20), wantErr: "past the end"},
		{name: "software count huge", b: pointAt(le, 8, 0xFFFFFFFF), wantErr: "past the end"},
		{name: "orientation long", b: buildTIFF(be, orientation(be, 4, 1, be.AppendUint32(nil, 8))), want: exifInfo{Orientation: 8}},
		{name: "orientation 0", b: exifBlock(le, 0, "", false), want: exifInfo{}},
		{name: "orientation 9", b: buildTIFF(le, orientation(le, 3, 1, short(le, 9))), wantErr: "orientation 9 out of range"},
		{name: "orientation 65535", b: buildTIFF(be, orientation(be, 3, 1, short(be, 0xFFFF))), wantErr: "out of range"},
		{name: "orientation count 2", b: buildTIFF(le, orientation(le, 3, 2, []byte{6, 0, 6, 0})), wantErr: "count 2"},
		{name: "orientation bad, software good", b: buildTIFF(le, orientation(le, 3, 1, short(le, 0)), software(2, "Photos 1.0")),
			want: exifInfo{Software: "Photos 1.0"}, wantErr: "orientation 0"},
		{name: "first duplicate wins", b: buildTIFF(le, orientation(le, 3, 1, short(le, 6)), orientation(le, 3, 1, short(le, 1))),
			want: exifInfo{Orientation: 6}},
		{name: "GPS pointer anywhere", b: buildTIFF(be, tiffEntry{tag: tagGPSIFD, typ: 4, count: 1, value: be.AppendUint32(nil, 0xFFFFFFFF)}),
			want: exifInfo{HasGPS: true}},
		{name: "empty", b: nil, wantErr: "shorter than a TIFF header"},
		{name: "seven bytes", b: []byte("II*\x00\x08\x00\x00"), wantErr: "shorter"},
		{name: "not TIFF", b: []byte("GIF89a\x00\x00\x00\x00"), wantErr: "bad TIFF header"},
		{name: "IFD0 past the end", b: []byte("II*\x00\x00\x01\x00\x00"), wantErr: "IFD0 offset 256 past the end"},
		{name: "IFD0 offset 2^32-1", b: []byte("MM\x00*\xFF\xFF\xFF\xFF\x00\x00"), wantErr: "past the end"},
		{name: "IFD0 at its own header", b: []byte("II*\x00\x00\x00\x00\x00"), wantErr: "claims"},
		{name: "IFD0 count larger than the block", b: func() []byte {
			b := exifBlock(le, 6, "", false)
			le.PutUint16(b[8:], 5000)
			return b
		}(), want: exifInfo{Orientation: 6}, wantErr: "claims 5000 entries"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseEXIF(tt.b)
			if got != tt.want {
				t.Errorf("parseEXIF = %+v, want %+v", got, tt.want)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestCleanText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Adobe Photoshop 25.1 (Windows)", "Adobe Photoshop 25.1 (Windows)"},
		{"  padded  \x00\x00\x00", "padded"},
		{"Canon\x00 hidden after NUL", "Canon"},
		{"bad \xff\xfe utf8", "bad  utf8"},
		{"Lightroom\u200b\u202e", "Lightroom"},
		{"Pixelmator Pro 3.5 — Grafik", "Pixelmator Pro 3.5 — Grafik"},
		{strings.Repeat("x", 300), strings.Repeat("x", maxSoftware)},
		{strings.Repeat("x", maxSoftware-1) + "é", strings.Repeat("x", maxSoftware-1)}, // é would be cut in half
	} {
		if got := cleanText(tt.in); got != tt.want {
			t.Errorf("cleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzEXIF: no input makes parseEXIF panic or return a value that later
// code could trip on.
func FuzzEXIF(f *testing.F) {
	f.Add(exifBlock(binary.LittleEndian, 6, "Adobe Photoshop 25.0 (Windows)", true))
	f.Add(exifBlock(binary.BigEndian, 8, "iOS 17.1", true))
	f.Add(buildTIFF(binary.BigEndian, tiffEntry{tag: tagSoftware, typ: 2, count: 3, value: []byte("ab\x00")}))
	f.Add([]byte("II*\x00\x08\x00\x00\x00\xff\xff"))
	f.Add([]byte("MM\x00*\x00\x00\x00\x08\x00\x01\x01\x31\x00\x02\xff\xff\xff\xff\xff\xff\xff\xf0"))
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := parseEXIF(b)
		if info.Orientation < 0 || info.Orientation > 8 {
			t.Fatalf("Orientation %d", info.Orientation)
		}
		s := info.Software
		if len(s) > maxSoftware || !utf8.ValidString(s) || strings.TrimSpace(s) != s {
			t.Fatalf("Software %q", s)
		}
		for _, r := range s {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("Software %q has %U", s, r)
			}
		}
		if err == nil && len(b) < 8 {
			t.Fatalf("no error for %d bytes", len(b))
		}
	})
}
