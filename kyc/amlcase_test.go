package kyc

import (
	"bytes"
	"testing"
)

// TestSARContentType: the type of a SAR copy comes from its bytes; HTML,
// SVG, scripts and empty files are refused whatever their name.
func TestSARContentType(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
	}{
		{"%PDF-1.7\n...", "application/pdf"},
		{"\x89PNG\r\n\x1a\n....", "image/png"},
		{"\xff\xd8\xff\xe0..JFIF", "image/jpeg"},
		{"<?xml version=\"1.0\"?><report/>", "application/xml"},
		{"\xef\xbb\xbf<?xml version=\"1.0\"?><report/>", "application/xml"},
		{"<html><script>alert(1)</script>", ""},
		{"<svg xmlns=\"http://www.w3.org/2000/svg\"/>", ""},
		{"<?xml-stylesheet?>", ""},
		{" %PDF-1.7", ""},
		{"", ""},
		{"MZ\x90\x00", ""},
	} {
		if got := SARContentType([]byte(tt.in)); got != tt.want {
			t.Errorf("SARContentType(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzSARContentType: any bytes give one of the four types or "", and a
// type is only given when the bytes start with its signature.
func FuzzSARContentType(f *testing.F) {
	for _, s := range []string{"%PDF-1.4", "\x89PNG\r\n\x1a\n", "\xff\xd8\xff", "<?xml ", "<html>"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		switch got := SARContentType(b); got {
		case "":
		case "application/pdf":
			if !bytes.HasPrefix(b, []byte("%PDF-")) {
				t.Fatalf("%q taken for a PDF", b)
			}
		case "image/png", "image/jpeg":
			if len(b) < 3 {
				t.Fatalf("%q taken for %s", b, got)
			}
		case "application/xml":
			if !bytes.Contains(b[:min(len(b), 9)], []byte("<?xml")) {
				t.Fatalf("%q taken for XML", b)
			}
		default:
			t.Fatalf("unknown type %q", got)
		}
	})
}
