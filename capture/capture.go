// Package capture checks and sanitises the identity-document photos and
// selfies that applicants upload. Every upload is untrusted: its type is
// sniffed from its bytes; its size, pixel count and the memory decoding it
// will take are bounded before any pixel is decoded (and, through a Gate,
// the decodes running at once); and only its pixels are kept, scaled to a
// bounded size and re-encoded, so EXIF, GPS, XMP, ICC profiles, comments
// and anything hidden after the image data are gone from what is stored.
// What the metadata said is returned beside it.
package capture

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"runtime"
)

// Limits bound what an upload may cost. A zero field takes its default.
type Limits struct {
	MaxBytes  int64 // default 10 MiB
	MaxPixels int64 // default 16,000,000: what phone cameras write
	// MinSide bounds each side from below. Default 120 px: a card whose
	// MRZ has 8 px per character (the least the reader reads) is about
	// 150 px tall, and a scan of a card's two sides side by side can be
	// under 200 px tall yet legible. Whether a larger image is sharp and
	// large enough is for the reader's retake hint and the quality
	// checks to say, from what they measure.
	MinSide int
	// MaxMemory bounds the memory one upload may take to process, as cost
	// estimates it from the headers before decoding: the decoded pixels
	// at their depth (8 bytes a pixel for 16-bit RGBA), a progressive
	// JPEG's coefficients, the normalised copy and the encoded output.
	// Default 128 MiB: a 16 MP phone JPEG turned upright and scaled takes
	// about 95 MB.
	MaxMemory int64
	// MaxStoredPixels bounds the stored image: a larger upload is scaled
	// down once, here, so that the engine, reports and thumbnails never
	// handle it at full size. Default 12,582,912 (4096×3072), so a 12 MP
	// phone photo is stored as taken.
	MaxStoredPixels int64
}

// Defaults of Limits.
const (
	DefaultMaxBytes        = 10 << 20
	DefaultMaxPixels       = 16_000_000
	DefaultMinSide         = 120
	DefaultMaxMemory       = 128 << 20
	DefaultMaxStoredPixels = 4096 * 3072
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
	if l.MaxMemory <= 0 {
		l.MaxMemory = DefaultMaxMemory
	}
	if l.MaxStoredPixels <= 0 {
		l.MaxStoredPixels = DefaultMaxStoredPixels
	}
	return l
}

// Image is an upload that was accepted, decoded and re-encoded.
type Image struct {
	// Data is the re-encoded image: JPEG (quality 92) for JPEG and WebP
	// uploads, PNG for PNG uploads (screenshots and scans stay lossless),
	// 8 bits per channel, at most Limits.MaxStoredPixels. Only pixels were
	// encoded, so it carries no metadata at all.
	Data          []byte
	ContentType   string // of Data: image/jpeg or image/png
	Width, Height int    // of Data, after orientation and scaling
	SHA256        string // hex of Data

	SourceType   string     // what was uploaded: image/jpeg, image/png or image/webp
	SourceSHA256 string     // hex of the uploaded bytes, to spot the same file uploaded twice
	SourceWidth  int        // of the upload's pixels as encoded (before orientation)
	SourceHeight int        //
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
// the file. Process is safe for concurrent use but bounds nothing across
// calls; servers use a Gate.
func Process(r io.Reader, l Limits) (*Image, error) {
	l = l.withDefaults()
	src, err := io.ReadAll(io.LimitReader(r, l.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("capture: read upload: %w", err)
	}
	u, err := prepare(src, l, 0)
	if err != nil {
		return nil, err
	}
	return u.finish()
}

// upload is an upload whose headers passed the limits, priced and ready
// to decode.
type upload struct {
	src   []byte
	f     *format
	meta  SourceMeta
	cfg   image.Config
	l     Limits
	cost  int64 // estimated peak bytes of finish: price.peak()
	price price
}

// prepare checks everything about the upload src that can be checked
// without decoding pixels. maxMemory, when positive and under
// l.MaxMemory, bounds the cost instead (a Gate's whole budget).
func prepare(src []byte, l Limits, maxMemory int64) (*upload, error) {
	if int64(len(src)) > l.MaxBytes {
		return nil, refuse(ETooLarge, "The file is larger than %s. Upload a smaller photo.", sizeText(l.MaxBytes))
	}
	f, err := sniff(src)
	if err != nil {
		return nil, err
	}
	cfg, err := checkSize(f, src, l)
	if err != nil {
		return nil, err
	}
	meta, err := readMeta(f, src)
	if err != nil {
		return nil, err
	}
	u := &upload{src: src, f: f, meta: meta, cfg: cfg, l: l}
	stored := storedPixels(cfg, l)
	u.price = cost(f, src, cfg, meta.Orientation, stored, !plainModel(cfg.ColorModel, f.output))
	u.cost = u.price.peak()
	budget := l.MaxMemory
	if maxMemory > 0 {
		budget = min(budget, maxMemory)
	}
	if u.cost > budget {
		return nil, &Error{Code: ETooManyPixels, Message: costlyText(f, src, cfg), Costly: true}
	}
	return u, nil
}

// costlyText tells the applicant why an image within the pixel limit
// still costs too much to process, and what to do: the remedy depends on
// the cause, and "upload a JPEG" is no help to someone who did.
func costlyText(f *format, src []byte, cfg image.Config) string {
	size := fmt.Sprintf("%d×%d pixels", cfg.Width, cfg.Height)
	switch {
	case depthText(cfg.ColorModel) != "":
		return fmt.Sprintf("The image is too large to process (%s%s). Upload a JPEG photo, or one with fewer pixels.",
			size, depthText(cfg.ColorModel))
	case f == formatJPEG && inspectJPEG(src).progressive:
		return fmt.Sprintf("The image is a progressive JPEG of %s, which takes too much memory to process. "+
			"Upload the photo as the camera saved it, or save it as a standard (baseline) JPEG or with fewer pixels.", size)
	case f == formatJPEG:
		return fmt.Sprintf("The image is too large to process (%s, in RGB or CMYK colours). "+
			"Upload the photo as the camera saved it, or one with fewer pixels.", size)
	}
	return fmt.Sprintf("The image is too large to process (%s). Upload a JPEG photo, or one with fewer pixels.", size)
}

// finish decodes, normalises and encodes the upload.
func (u *upload) finish() (*Image, error) {
	img, err := u.decode()
	if err != nil {
		return nil, err
	}
	return u.encode(img)
}

// decode is finish's first stage. When the upload was priced in two
// stages, the decoder's working buffers (a progressive JPEG's
// coefficients) are collected before it returns, so that they are not
// still held, uncollected, when the second stage allocates.
func (u *upload) decode() (image.Image, error) {
	img, err := u.f.decode(bytes.NewReader(u.src))
	if err != nil {
		// Decoders may hand back part of an image with the error; a
		// document with its lower half missing must never pass.
		return nil, corrupt(fmt.Errorf("decode %s: %w", u.f.mime, err))
	}
	if u.price.split {
		runtime.GC()
	}
	return img, nil
}

// encode is finish's second stage: normalise img and encode it.
func (u *upload) encode(img image.Image) (*Image, error) {
	f := u.f
	out := normalise(img, u.meta.Orientation, f.output, u.l.MaxStoredPixels)
	var buf bytes.Buffer
	var err error
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
		SourceSHA256: hexSHA256(u.src),
		SourceWidth:  u.cfg.Width,
		SourceHeight: u.cfg.Height,
		Metadata:     u.meta,
	}, nil
}

// storedPixels is the pixel count the upload is stored at.
func storedPixels(cfg image.Config, l Limits) int64 {
	w, h := storedSize(cfg.Width, cfg.Height, l.MaxStoredPixels)
	return int64(w) * int64(h)
}

// plainModel is plain for a colour model, before decoding: whether the
// decoder's image may be encoded as it is (the alpha of NRGBA and RGBA
// is not known yet, so JPEG output of them counts as needing a copy).
func plainModel(m color.Model, output string) bool {
	switch m {
	case color.YCbCrModel, color.GrayModel, color.CMYKModel:
		return true
	case color.NRGBAModel, color.RGBAModel, color.NYCbCrAModel:
		return output == "image/png"
	}
	_, paletted := m.(color.Palette)
	return paletted && output == "image/png"
}

// depthText names a colour model's depth when it is what makes an image
// costly.
func depthText(m color.Model) string {
	switch m {
	case color.RGBA64Model, color.NRGBA64Model, color.Gray16Model:
		return ", 16 bits per channel"
	}
	return ""
}

// checkSize reads the dimensions from the header alone and refuses the
// image before a pixel buffer is allocated: a few hundred bytes of PNG
// can claim 100000×100000 pixels.
func checkSize(f *format, src []byte, l Limits) (image.Config, error) {
	cfg, err := f.config(bytes.NewReader(src))
	if err != nil {
		return cfg, corrupt(fmt.Errorf("decode %s header: %w", f.mime, err))
	}
	w, h := cfg.Width, cfg.Height
	if w <= 0 || h <= 0 {
		return cfg, corrupt(fmt.Errorf("%s header gives %d×%d pixels", f.mime, w, h))
	}
	if w > maxSide || h > maxSide || int64(w)*int64(h) > l.MaxPixels {
		return cfg, refuse(ETooManyPixels,
			"The image is too large (%d×%d pixels). Upload one of at most %.0f megapixels, with no side over %d pixels.",
			w, h, float64(l.MaxPixels)/1e6, maxSide)
	}
	if w < l.MinSide || h < l.MinSide {
		return cfg, refuse(ETooSmall,
			"The image is too small (%d×%d pixels). Each side must be at least %d pixels: take the photo closer or at a higher resolution.",
			w, h, l.MinSide)
	}
	return cfg, nil
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
