package capture

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"
)

// format is one accepted upload type and how it is decoded and stored.
type format struct {
	mime   string // what was uploaded
	output string // what is stored: image/jpeg or image/png
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
}

// The decoders are called directly rather than through image.Decode, so the
// format chosen by sniff is the only one that ever sees the bytes: no other
// decoder registered anywhere in the binary gets a say.
var (
	formatJPEG = &format{"image/jpeg", "image/jpeg", jpeg.DecodeConfig, jpeg.Decode}
	formatPNG  = &format{"image/png", "image/png", png.DecodeConfig, png.Decode}
	formatWebP = &format{"image/webp", "image/jpeg", webp.DecodeConfig, webp.Decode}
)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// sniff names the format of b from its magic numbers. A filename or a
// client's Content-Type says nothing reliable, so neither is asked.
// It returns EUnsupportedType for anything but JPEG, PNG and still WebP.
func sniff(b []byte) (*format, error) {
	switch {
	case len(b) == 0:
		return nil, refuse(EUnsupportedType, "The file is empty. Upload a photo as JPEG, PNG or WebP.")
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return formatJPEG, nil
	case bytes.HasPrefix(b, pngSignature):
		return formatPNG, nil
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		if webpAnimated(b) {
			return nil, refuse(EUnsupportedType, "Animated images are not supported. Upload a still photo as JPEG, PNG or WebP.")
		}
		return formatWebP, nil
	case bytes.HasPrefix(b, []byte("%PDF-")):
		return nil, refuse(EUnsupportedType, "PDF files are not supported. Upload the photo or scan as JPEG or PNG.")
	}
	switch isoBrand(b) {
	case "heic":
		// Neither the standard library nor golang.org/x/image decodes HEIC
		// (HEVC in HEIF), and there is no pure-Go HEVC decoder. The cgo-free
		// Go packages that exist (github.com/gen2brain/heic, say) run libheif
		// and libde265 compiled to WebAssembly: megabytes of C codec
		// executing on untrusted bytes, for a format every phone can be
		// told not to produce.
		return nil, refuse(EUnsupportedType, "HEIC photos are not supported; set the camera to 'Most compatible' or upload a JPEG.")
	case "avif":
		return nil, refuse(EUnsupportedType, "AVIF images are not supported. Upload the photo as JPEG, PNG or WebP.")
	}
	return nil, refuse(EUnsupportedType, "This file is not a JPEG, PNG or WebP image. Upload a photo in one of those formats.")
}

// isoBrand reports "heic" or "avif" when b starts with an ISO base media
// "ftyp" box whose major or compatible brands name a HEIF still image
// ("mif1" alone is HEIF, and HEIF from a phone is HEIC), or "" otherwise
// (MP4 and MOV videos have ftyp boxes too).
func isoBrand(b []byte) string {
	if len(b) < 16 || string(b[4:8]) != "ftyp" {
		return ""
	}
	end := min(int(binary.BigEndian.Uint32(b[:4])), len(b))
	brands := [][]byte{b[8:12]} // major brand; b[12:16] is its minor version
	for i := 16; i+4 <= end; i += 4 {
		brands = append(brands, b[i:i+4])
	}
	kind := ""
	for _, br := range brands {
		switch string(br) {
		case "avif", "avis":
			return "avif" // AVIF files list mif1 too: avif decides
		case "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "mif2", "msf1":
			kind = "heic"
		}
	}
	return kind
}
