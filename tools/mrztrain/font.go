package main

import (
	_ "embed"
	"fmt"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// ocrbTTF and ocrbSharpTTF are OCR-B and its sharp-cornered cut from
// Debian's fonts-ocr-b (public domain and permissive: see font/COPYRIGHT),
// cut down to the 37 MRZ symbols and converted to TrueType by
// font/subset.pe, because sfnt cannot draw the '<' of the CFF originals.
// Printers render OCR-B with rounder or sharper corners; the reader must
// not care.
var (
	//go:embed font/ocrb-mrz.ttf
	ocrbTTF []byte
	//go:embed font/ocrb-sharp-mrz.ttf
	ocrbSharpTTF []byte
)

// unitsPerEm of every font used: glyph outlines are loaded at 1000 ppem
// so that one unit is one font unit of OCR-B.
const unitsPerEm = 1000

// ocrbAdvance is the advance of every OCR-B glyph (the font is monospaced).
const ocrbAdvance = 723

// glyph is an outline in font units, y down, origin on the baseline.
type glyph []sfnt.Segment

// fontGlyphs loads the outlines of chars from a TrueType font.
func fontGlyphs(ttf []byte, chars string) (map[rune]glyph, error) {
	f, err := sfnt.Parse(ttf)
	if err != nil {
		return nil, err
	}
	var buf sfnt.Buffer
	out := map[rune]glyph{}
	for _, r := range chars {
		gi, err := f.GlyphIndex(&buf, r)
		if err != nil || gi == 0 {
			return nil, fmt.Errorf("glyph %q missing", r)
		}
		segs, err := f.LoadGlyph(&buf, gi, fixed.I(unitsPerEm), &sfnt.LoadGlyphOptions{})
		if err != nil {
			return nil, fmt.Errorf("glyph %q: %w", r, err)
		}
		out[r] = append(glyph(nil), segs...)
	}
	return out, nil
}

// fonts holds the OCR-B glyphs of the MRZ and, for the print around the
// zone, the Go fonts (BSD licence, part of golang.org/x/image).
type fonts struct {
	ocrb             []map[rune]glyph // regular, sharp
	clutter          []map[rune]glyph
	clutterAdvance   []float64
	clutterAlphabets string
}

func loadFonts() (*fonts, error) {
	const mrzChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<"
	fs := &fonts{clutterAlphabets: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/.-:"}
	for _, ttf := range [][]byte{ocrbTTF, ocrbSharpTTF} {
		g, err := fontGlyphs(ttf, mrzChars)
		if err != nil {
			return nil, err
		}
		if adv, err := advanceOf(ttf, '0'); err != nil || int(adv+0.5) != ocrbAdvance {
			return nil, fmt.Errorf("OCR-B advance %v, want %d (%v)", adv, ocrbAdvance, err)
		}
		fs.ocrb = append(fs.ocrb, g)
	}
	for _, ttf := range [][]byte{goregular.TTF, gomono.TTF} {
		g, err := fontGlyphs(ttf, fs.clutterAlphabets)
		if err != nil {
			return nil, err
		}
		adv, err := advanceOf(ttf, 'n')
		if err != nil {
			return nil, err
		}
		fs.clutter = append(fs.clutter, g)
		fs.clutterAdvance = append(fs.clutterAdvance, adv)
	}
	return fs, nil
}

// advanceOf is the advance of r in font units.
func advanceOf(ttf []byte, r rune) (float64, error) {
	f, err := sfnt.Parse(ttf)
	if err != nil {
		return 0, err
	}
	var buf sfnt.Buffer
	gi, err := f.GlyphIndex(&buf, r)
	if err != nil {
		return 0, err
	}
	adv, err := f.GlyphAdvance(&buf, gi, fixed.I(unitsPerEm), font.HintingNone)
	return float64(adv) / 64, err
}
