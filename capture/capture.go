// Package capture checks and sanitises the identity-document photos and
// selfies that applicants upload. Every upload is untrusted: its type is
// sniffed from its bytes, its size and pixel count are bounded before any
// pixel is decoded, and only its pixels are kept, re-encoded, so EXIF, GPS,
// XMP, ICC profiles, comments and anything hidden after the image data are
// gone from what is stored. What the metadata said is returned beside it.
package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/jpeg"
	"image/png"
	"io"
)

// Limits bound what an upload may cost. A zero field takes its default.
//
// Memory follows MaxPixels: decoding 40 MP takes 60-160 MB, and a
// progressive JPEG keeps 256 bytes of coefficients per 8×8 block and
// component besides (190 MB measured for 40 MP grey, ~0.6 GB for colour
// without subsampling). Callers bound how many uploads run at once.
type Limits struct {
	MaxBytes  int64 // default 10 MiB
	MaxPixels int64 // default 40,000,000 (8000×5000)
	MinSide   int   // default 200 px: smaller is useless for verification
}

// Defaults of Limits.
const (
	DefaultMaxBytes  = 10 << 20
	DefaultMaxPixels = 40_000_000
	DefaultMinSide   = 200
)

const (
	// maxSide bounds each side on its own: a 40000×1000 strip fits the
	// pixel budget but is no photo of a document or a face.
	maxSide = 20000
	// maxScans bounds the SOS markers of a JPEG. A progressive scan can be
	// a few dozen bytes of EOB runs that still make image/jpeg walk every
	// block of the image (libjpeg-turbo's "LJT-01-003"): ~12 ms per scan
	// at 40 MP here, so 10 MB of them would take half an hour of CPU, and
	// 100 take 2 s. Encoders write 1 to 3 scans for baseline and about 10
	// for progressive; 100 leaves room for odd scan scripts.
	maxScans = 100
	// jpegQuality keeps the fine print and the MRZ of a document sharp
	// after one more generation of JPEG.
	jpegQuality = 92
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultMaxPixels
	}
	if l.MinSide <= 0 {
		l.MinSide = DefaultMinSide
	}
	return l
}

// Image is an upload that was accepted, decoded and re-encoded.
type Image struct {
	// Data is the re-encoded image: JPEG (quality 92) for JPEG and WebP
	// uploads, PNG for PNG uploads (screenshots and scans stay lossless).
	// Only pixels were encoded, so it carries no metadata at all.
	Data          []byte
	ContentType   string // of Data: image/jpeg or image/png
	Width, Height int    // of Data, after orientation
	SHA256        string // hex of Data

	SourceType   string     // what was uploaded: image/jpeg, image/png or image/webp
	SourceSHA256 string     // hex of the uploaded bytes, to spot the same file uploaded twice
	Metadata     SourceMeta // what the upload said about itself
}

// SourceMeta is what the upload's EXIF block said, read before it was
// discarded. Editing software and location are signals for later checks.
type SourceMeta struct {
	HadEXIF     bool
	HadGPS      bool   // IFD0 pointed to a GPS IFD
	Software    string // EXIF Software tag, cleaned of control characters
	Orientation int    // EXIF orientation 1-8, 0 when absent; already applied to Data
	EXIFError   string // why part of the EXIF block was unreadable; "" when all of it was
}

// Process reads an upload from r, at most l.MaxBytes+1 bytes of it, and
// returns it sanitised. A refused upload gives an *Error with code
// ETooLarge, EUnsupportedType, ETooManyPixels, ETooSmall or ECorrupt.
// An error reading r is returned wrapped, not as *Error: it is no fault of
// the file. Process is safe for concurrent use; each call holds the upload,
// its decoded pixels and the output in memory at once.
func Process(r io.Reader, l Limits) (*Image, error) {
	l = l.withDefaults()
	src, err := io.ReadAll(io.LimitReader(r, l.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("capture: read upload: %w", err)
	}
	if int64(len(src)) > l.MaxBytes {
		return nil, refuse(ETooLarge, "The file is larger than %s. Upload a smaller photo.", sizeText(l.MaxBytes))
	}
	f, err := sniff(src)
	if err != nil {
		return nil, err
	}
	if err := checkSize(f, src, l); err != nil {
		return nil, err
	}
	meta, err := readMeta(f, src)
	if err != nil {
		return nil, err
	}
	img, err := f.decode(bytes.NewReader(src))
	if err != nil {
		// Decoders may hand back part of an image with the error; a
		// document with its lower half missing must never pass.
		return nil, corrupt(fmt.Errorf("decode %s: %w", f.mime, err))
	}
	out := upright(img, meta.Orientation, f.output)
	var buf bytes.Buffer
	if f.output == "image/png" {
		err = png.Encode(&buf, out)
	} else {
		err = jpeg.Encode(&buf, out, &jpeg.Options{Quality: jpegQuality})
	}
	if err != nil {
		return nil, fmt.Errorf("capture: encode %s: %w", f.output, err)
	}
	b := out.Bounds()
	return &Image{
		Data:         buf.Bytes(),
		ContentType:  f.output,
		Width:        b.Dx(),
		Height:       b.Dy(),
		SHA256:       hexSHA256(buf.Bytes()),
		SourceType:   f.mime,
		SourceSHA256: hexSHA256(src),
		Metadata:     meta,
	}, nil
}

// checkSize reads the dimensions from the header alone and refuses the
// image before a pixel buffer is allocated: a few hundred bytes of PNG
// can claim 100000×100000 pixels.
func checkSize(f *format, src []byte, l Limits) error {
	cfg, err := f.config(bytes.NewReader(src))
	if err != nil {
		return corrupt(fmt.Errorf("decode %s header: %w", f.mime, err))
	}
	w, h := cfg.Width, cfg.Height
	if w <= 0 || h <= 0 {
		return corrupt(fmt.Errorf("%s header gives %d×%d pixels", f.mime, w, h))
	}
	if w > maxSide || h > maxSide || int64(w)*int64(h) > l.MaxPixels {
		return refuse(ETooManyPixels,
			"The image is too large (%d×%d pixels). Upload one of at most %.0f megapixels, with no side over %d pixels.",
			w, h, float64(l.MaxPixels)/1e6, maxSide)
	}
	if w < l.MinSide || h < l.MinSide {
		return refuse(ETooSmall,
			"The image is too small (%d×%d pixels). Each side must be at least %d pixels: take the photo closer or at a higher resolution.",
			w, h, l.MinSide)
	}
	return nil
}

// readMeta reads the EXIF block of the upload, and for a JPEG refuses more
// scans than maxScans.
func readMeta(f *format, src []byte) (SourceMeta, error) {
	var exif []byte
	switch f {
	case formatJPEG:
		info := inspectJPEG(src)
		if info.scans > maxScans {
			return SourceMeta{}, corrupt(fmt.Errorf("jpeg has %d scans, over %d", info.scans, maxScans))
		}
		exif = info.exif
	case formatPNG:
		exif = pngEXIF(src)
	case formatWebP:
		exif = webpEXIF(src)
	}
	if exif == nil {
		return SourceMeta{}, nil
	}
	info, err := parseEXIF(exif)
	meta := SourceMeta{
		HadEXIF:     true,
		HadGPS:      info.HasGPS,
		Software:    info.Software,
		Orientation: info.Orientation,
	}
	if err != nil {
		meta.EXIFError = err.Error()
	}
	return meta, nil
}

func hexSHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
