// Package forgery draws forged identity documents for the attack tests
// of kycd: what a forger with an image editor makes (a background, a
// title, a face cut from a photo, a valid MRZ for a made-up person set in
// OCR-B), optionally damaged to look photographed (noise, JPEG, a
// perspective warp), shown through a screen or printed in halftone. It
// is only imported by tests; no forged image is ever committed.
package forgery

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"time"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"kycd/mrz"
)

// refTime resolves the MRZ's two-digit years in Check.
var refTime = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// Spec is one forged document.
type Spec struct {
	Format mrz.Format // TD1 (its back: MRZ, no portrait), TD2 or TD3
	Person Person
	Face   image.Image // pasted in the portrait zone (TD2, TD3)
	// Layout "icao" places the zones where ICAO 9303 puts them; "free"
	// puts the portrait on the right, too small, and the MRZ higher, as
	// an editor's user who never measured a passport does.
	Layout     string
	Background string // "flat", "gradient" or "guilloche"
	Title      string
	TitleFont  []byte  // TrueType; nil draws no title
	OCRB       []byte  // TrueType OCR-B for the MRZ
	Scale      float64 // pixels per millimetre
	Seed       uint64
}

// sizes are the ICAO 9303 document sizes in millimetres.
var sizes = map[mrz.Format][2]float64{mrz.TD1: {85.6, 54}, mrz.TD2: {105, 74}, mrz.TD3: {125, 88}}

// Draw renders the document: a pixel-exact drawing, as an editor saves it.
func Draw(s Spec) (*image.RGBA, error) {
	lines := MRZ(s.Format, s.Person)
	if err := Check(lines); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(s.Seed, 24))
	sz := sizes[s.Format]
	w, h := int(sz[0]*s.Scale), int(sz[1]*s.Scale)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	base := color.RGBA{uint8(225 + rng.IntN(25)), uint8(210 + rng.IntN(30)), uint8(180 + rng.IntN(40)), 255}
	background(img, s.Background, base, rng)
	mm := func(v float64) int { return int(v * s.Scale) }
	ink := color.RGBA{40, 40, 60, 255}
	if s.TitleFont != nil && s.Title != "" {
		if err := text(img, s.TitleFont, s.Title, 4.5*s.Scale, mm(sz[0]*0.25), mm(sz[1]*0.11), ink); err != nil {
			return nil, err
		}
		viz := []string{"Surname / Nom", s.Person.Surname, "Given names / Prénoms", s.Person.Given, "Date of birth", s.Person.Birth}
		if s.Format == mrz.TD1 {
			viz = nil // the back of a card: the zone, no personal data
		}
		for i, l := range viz {
			if err := text(img, s.TitleFont, l, 2.6*s.Scale, mm(sz[0]*0.36), mm(sz[1]*(0.2+0.055*float64(i))), ink); err != nil {
				return nil, err
			}
		}
	}
	mrzBottom := sz[1] - 6
	if s.Face != nil && s.Format != mrz.TD1 {
		fx, fy, fw, fh := 5.0, sz[1]*0.2, sz[0]*0.26, sz[1]*0.45
		if s.Layout == "free" {
			fx, fy, fw, fh = sz[0]*0.76, sz[1]*0.14, sz[0]*0.16, sz[1]*0.28
		}
		xdraw.CatmullRom.Scale(img, image.Rect(mm(fx), mm(fy), mm(fx+fw), mm(fy+fh)), s.Face, faceCrop(s.Face), draw.Over, nil)
	}
	if s.Layout == "free" {
		mrzBottom = sz[1] * 0.62
	}
	pitch := 2.54 * s.Scale
	gap := 4.5 * s.Scale
	left := (sz[0]*s.Scale - float64(len(lines[0]))*pitch) / 2
	// The zone is kept clear of the background's pattern, as on a real
	// document: the reader would not read it otherwise.
	clear := image.Rect(0, int(mrzBottom*s.Scale-float64(len(lines))*gap-pitch), w, min(h, int(mrzBottom*s.Scale+pitch)))
	draw.Draw(img, clear, &image.Uniform{base}, image.Point{}, draw.Src)
	for i, l := range lines {
		y := mrzBottom*s.Scale - float64(len(lines)-1-i)*gap
		if err := monoText(img, s.OCRB, l, pitch, left, y); err != nil {
			return nil, err
		}
	}
	return img, nil
}

// faceCrop is the square-ish middle of a face photo, portrait shaped.
func faceCrop(f image.Image) image.Rectangle {
	b := f.Bounds()
	w := min(b.Dx(), b.Dy()*4/5)
	h := w * 5 / 4
	x0, y0 := b.Min.X+(b.Dx()-w)/2, b.Min.Y+max(0, (b.Dy()-h)/3)
	return image.Rect(x0, y0, x0+w, min(y0+h, b.Max.Y))
}

func background(img *image.RGBA, kind string, c color.RGBA, rng *rand.Rand) {
	b := img.Bounds()
	draw.Draw(img, b, &image.Uniform{c}, image.Point{}, draw.Src)
	switch kind {
	case "gradient":
		for y := range b.Dy() {
			for x := range b.Dx() {
				t := float64(x)/float64(b.Dx())*0.6 + float64(y)/float64(b.Dy())*0.4
				img.SetRGBA(x, y, color.RGBA{uint8(float64(c.R) * (1 - 0.15*t)), uint8(float64(c.G) * (1 - 0.1*t)), uint8(min(255, float64(c.B)*(1+0.1*t))), 255})
			}
		}
	case "guilloche":
		// Interlaced sine curves, as security printing draws them.
		line := color.RGBA{c.R - 40, c.G - 25, c.B, 255}
		for k := range 24 {
			amp := float64(b.Dy()) * (0.05 + 0.1*rng.Float64())
			period := float64(b.Dx()) / float64(2+rng.IntN(5))
			phase, y0 := rng.Float64()*2*math.Pi, float64(b.Dy())*float64(k)/24
			for x := range b.Dx() * 4 {
				fx := float64(x) / 4
				y := y0 + amp*math.Sin(2*math.Pi*fx/period+phase)
				if yy := int(y); yy >= 0 && yy < b.Dy() {
					img.SetRGBA(int(fx), yy, line)
				}
			}
		}
	}
}

// text draws s with the TrueType font at size px, baseline at (x, y).
func text(img *image.RGBA, ttf []byte, s string, size float64, x, y int, c color.Color) error {
	f, err := opentype.Parse(ttf)
	if err != nil {
		return err
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return err
	}
	defer face.Close()
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, y)}
	d.DrawString(s)
	return nil
}

// monoText draws an MRZ line with OCR-B, one character every pitch
// pixels (OCR-B's advance is 0.723 em, so the size follows the pitch).
func monoText(img *image.RGBA, ttf []byte, s string, pitch, left, baseline float64) error {
	f, err := opentype.Parse(ttf)
	if err != nil {
		return err
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: pitch / 0.723, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return err
	}
	defer face.Close()
	d := font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: face}
	for i, r := range s {
		d.Dot = fixed.Point26_6{X: fixed.Int26_6((left + float64(i)*pitch) * 64), Y: fixed.Int26_6(baseline * 64)}
		d.DrawString(string(r))
	}
	return nil
}
