// Package docforensics reads a document image for signs that it is not a
// photograph of a real document taken now: a rendering (drawn on a
// computer), a recapture (a screen or a print photographed again), a
// layout that does not follow ICAO 9303 for the format its MRZ declares,
// a portrait that is the very photograph of the selfie, or a published
// specimen. Every function is a pure function of its inputs; each problem
// is a Finding with a stable code and the measurement that triggered it.
//
// The package tells evidence, not truth: a careful forger who adds sensor
// noise, photographs a print under real light, or follows the ICAO layout
// passes these readers. docs/decisions.md ("What kycd proves, and what it
// cannot") lists what each reader catches on the attack suite.
package docforensics

import (
	"fmt"
	"image"
)

// Finding codes.
const (
	CodeLooksRendered  = "DOCUMENT_LOOKS_RENDERED"
	CodeRecaptured     = "DOCUMENT_RECAPTURED"
	CodeLayoutMismatch = "DOCUMENT_LAYOUT_MISMATCH"
	CodePortraitReused = "DOCUMENT_PORTRAIT_REUSED"
	CodeSpecimen       = "DOCUMENT_SPECIMEN"
)

// Finding is one problem a reader saw: its code, the measurement (name,
// value, the limit it crossed) and a sentence for people.
type Finding struct {
	Code    string  `json:"code"`
	Measure string  `json:"measure"`
	Value   float64 `json:"value"`
	Limit   float64 `json:"limit"`
	Message string  `json:"message"`
}

func finding(code, measure string, value, limit float64, format string, args ...any) Finding {
	return Finding{Code: code, Measure: measure, Value: round4(value), Limit: limit, Message: fmt.Sprintf(format, args...)}
}

func round4(v float64) float64 {
	if v < 0 {
		return -round4(-v)
	}
	return float64(int64(v*10000+0.5)) / 10000
}

// grayPlane is a luma plane in float32, 0-255.
type grayPlane struct {
	w, h int
	pix  []float32
}

func (g *grayPlane) at(x, y int) float32 { return g.pix[y*g.w+x] }

// lumaOf returns img's luma (BT.601) at its own resolution: the readers
// look at the pixels as stored, since scaling averages away the sensor
// noise and the screen grid they look for.
func lumaOf(img image.Image) *grayPlane {
	b := img.Bounds()
	g := &grayPlane{w: b.Dx(), h: b.Dy(), pix: make([]float32, b.Dx()*b.Dy())}
	switch m := img.(type) {
	case *image.YCbCr:
		for y := range g.h {
			for x := range g.w {
				g.pix[y*g.w+x] = float32(m.Y[m.YOffset(b.Min.X+x, b.Min.Y+y)])
			}
		}
	case *image.RGBA: // PNG uploads, and the tests' drawings
		for y := range g.h {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := range g.w {
				g.pix[y*g.w+x] = float32(0.299*float64(row[4*x]) + 0.587*float64(row[4*x+1]) + 0.114*float64(row[4*x+2]))
			}
		}
	case *image.NRGBA: // opaque once stored: the values are the colours
		for y := range g.h {
			row := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := range g.w {
				g.pix[y*g.w+x] = float32(0.299*float64(row[4*x]) + 0.587*float64(row[4*x+1]) + 0.114*float64(row[4*x+2]))
			}
		}
	case *image.Gray:
		for y := range g.h {
			for x := range g.w {
				g.pix[y*g.w+x] = float32(m.Pix[y*m.Stride+x])
			}
		}
	default:
		for y := range g.h {
			for x := range g.w {
				r, gg, bb, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
				g.pix[y*g.w+x] = float32(0.299*float64(r>>8) + 0.587*float64(gg>>8) + 0.114*float64(bb>>8))
			}
		}
	}
	return g
}
