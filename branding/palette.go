package branding

import (
	"fmt"
	"math"
	"strconv"

	"kycd/kyc"
)

// Palette is what the portal and the e-mail paint with a brand colour.
// Every pair meant to be read together has a contrast of at least 4.5:1
// (WCAG 2 AA for body text), whatever the colour: a pale yellow brand gets
// black text on its buttons, and its links and outlines use a darkened
// shade of it.
type Palette struct {
	Brand      string // the colour as given: header bar and primary buttons
	OnBrand    string // text on Brand: #ffffff or #000000
	BrandHover string // primary buttons under the pointer
	Ink        string // Brand darkened until readable on white and on Tint: links, outlines, secondary buttons
	Tint       string // a light wash of Brand: selected choices, secondary buttons under the pointer
}

// minContrast is WCAG AA for normal text; a little margin covers rounding.
const minContrast = 4.6

// NewPalette derives the palette of a #rrggbb colour. ok is false for a
// colour that is not kyc.ValidColor.
func NewPalette(color string) (Palette, bool) {
	if !kyc.ValidColor(color) {
		return Palette{}, false
	}
	c := parseHex(color)
	p := Palette{Brand: color}
	white, black := [3]float64{1, 1, 1}, [3]float64{0, 0, 0}
	if Contrast(c, white) >= Contrast(c, black) {
		p.OnBrand = "#ffffff"
	} else {
		p.OnBrand = "#000000"
	}
	// Hover moves away from the text colour, keeping or raising contrast.
	if p.OnBrand == "#ffffff" {
		p.BrandHover = toHex(mix(c, black, 0.18))
	} else {
		p.BrandHover = toHex(mix(c, white, 0.25))
	}
	tint := mix(c, white, 0.9)
	ink := c
	for i := 0; i < 100 && (Contrast(ink, white) < minContrast || Contrast(ink, tint) < minContrast); i++ {
		ink = mix(ink, black, 0.06)
	}
	p.Ink, p.Tint = toHex(ink), toHex(tint)
	return p, true
}

// Contrast is the WCAG 2 contrast ratio of two sRGB colours (components in
// [0,1]): from 1 (the same) to 21 (black on white).
func Contrast(a, b [3]float64) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// ContrastHex is Contrast of two #rrggbb colours.
func ContrastHex(a, b string) float64 { return Contrast(parseHex(a), parseHex(b)) }

func luminance(c [3]float64) float64 {
	lin := func(v float64) float64 {
		if v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c[0]) + 0.7152*lin(c[1]) + 0.0722*lin(c[2])
}

func mix(a, b [3]float64, t float64) [3]float64 {
	return [3]float64{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
}

func parseHex(s string) [3]float64 {
	var c [3]float64
	for i := range 3 {
		v, _ := strconv.ParseUint(s[1+2*i:3+2*i], 16, 8)
		c[i] = float64(v) / 255
	}
	return c
}

// toHex rounds to the nearest 8-bit sRGB colour. Rounding can cost a
// hundredth of contrast, which minContrast's margin covers.
func toHex(c [3]float64) string {
	b := func(v float64) int { return int(math.Round(math.Max(0, math.Min(1, v)) * 255)) }
	return fmt.Sprintf("#%02x%02x%02x", b(c[0]), b(c[1]), b(c[2]))
}
