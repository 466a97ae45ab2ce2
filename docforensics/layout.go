package docforensics

import (
	"fmt"
	"image"
	"math"

	"kycd/mrz"
)

// LayoutInput is what the layout reader needs of one document image: the
// MRZ as read (format, lines, box, character pitch, rotation; only a zone
// that was read: the box of an unreadable one may be anything) and the
// portrait found on the same image, all in the image's pixels.
type LayoutInput struct {
	Format   mrz.Format
	Lines    int
	MRZ      image.Rectangle
	PitchPx  float64
	Rotation float64 // degrees clockwise, as ocr.Result has it
	Image    image.Rectangle
	Portrait *image.Rectangle // nil: none found
}

// LayoutMeasures are the geometry of the document in MRZ character
// pitches (2.54 mm on every ICAO 9303 document, so the unit is the same
// on a card and on a passport page, at any resolution).
type LayoutMeasures struct {
	Measured bool `json:"measured"`
	// BandHeight is the MRZ band's height in pitches.
	BandHeight float64 `json:"bandHeight"`
	// Room is the document's height the image shows above the MRZ's
	// bottom, as a share of the height ICAO gives the format: a real
	// document shows (almost) all of it, a drawing with the zone placed
	// where it does not belong shows less, or much more.
	RoomAbove float64 `json:"roomAbove"`
	// PortraitHeight is the portrait's face box height in pitches;
	// PortraitX its centre across the MRZ (0 its left end, 1 its right);
	// PortraitAbove how far above the MRZ's top its bottom is, in
	// pitches. Zero when no portrait was found or the format has none
	// beside the MRZ (TD1's zone is on the back).
	PortraitHeight float64 `json:"portraitHeight,omitempty"`
	PortraitX      float64 `json:"portraitX,omitempty"`
	PortraitAbove  float64 `json:"portraitAbove,omitempty"`
}

// Range is an accepted interval of a layout measure.
type Range struct{ Lo, Hi float64 }

// layoutRanges are the accepted ranges, set on the calibration half of
// the genuine document images whose MRZ was read (see realdata_test.go
// for both halves): the least and most measured there, widened by 15%
// (band height, room above, portrait height: ratios) or by a fixed
// margin (positions). No upper bound on the room above: a photo shows
// background, a scan may show both sides of a card.
var layoutRanges = map[string]Range{
	"bandHeight2":    {Lo: 3.86 * 0.85, Hi: 4.92 * 1.15},  // two-line zones: 3.86-4.92
	"bandHeight3":    {Lo: 5.31 * 0.85, Hi: 5.80 * 1.15},  // TD1: 5.31-5.80
	"roomAbove":      {Lo: 0.853 * 0.85, Hi: math.Inf(1)}, // 0.853-2.03
	"portraitHeight": {Lo: 6.50 * 0.75, Hi: 11.72 * 1.25},
	"portraitX":      {Lo: 0.131 - 0.1, Hi: 0.175 + 0.1},
	"portraitAbove":  {Lo: 2.15 - 2, Hi: 9.57 + 2},
}

// docHeightMM is each format's height in millimetres (ICAO 9303-4/5/6/7):
// TD1 53.98, TD2 and MRV-B 74, TD3 88, MRV-A 80.
var docHeightMM = map[mrz.Format]float64{mrz.TD1: 53.98, mrz.TD2: 74, mrz.MRVB: 74, mrz.TD3: 88, mrz.MRVA: 80}

// Layout measures the document's geometry against its format and
// returns a DOCUMENT_LAYOUT_MISMATCH finding for each measure outside its
// range. A zone not read upright (nor at a right angle), or a format
// without ICAO dimensions, is not measured.
func Layout(in LayoutInput) ([]Finding, LayoutMeasures) {
	var m LayoutMeasures
	h, ok := docHeightMM[in.Format]
	if !ok || !(in.PitchPx >= 1) || math.IsInf(in.PitchPx, 0) || math.IsNaN(in.Rotation) || math.IsInf(in.Rotation, 0) || in.MRZ.Empty() {
		return nil, m
	}
	turn := int(math.Round(in.Rotation/90)) * 90
	if math.Abs(in.Rotation-float64(turn)) > 8 {
		return nil, m
	}
	mz, img := upright(in.MRZ, in.Image, turn), upright(in.Image, in.Image, turn)
	m.Measured = true
	p := in.PitchPx
	// A zone turned by a few degrees has a box taller than its band.
	res := (in.Rotation - float64(turn)) * math.Pi / 180
	m.BandHeight = round4(max(float64(mz.Dy())-float64(mz.Dx())*math.Abs(math.Sin(res)), 0) / math.Cos(res) / p)
	m.RoomAbove = round4(float64(mz.Max.Y-img.Min.Y) / p / (h / 2.54))
	if in.Portrait != nil && in.Format != mrz.TD1 {
		f := upright(*in.Portrait, in.Image, turn)
		m.PortraitHeight = round4(float64(f.Dy()) / p)
		m.PortraitX = round4((float64(f.Min.X+f.Max.X)/2 - float64(mz.Min.X)) / float64(mz.Dx()))
		m.PortraitAbove = round4(float64(mz.Min.Y-f.Max.Y) / p)
	}
	band := layoutRanges["bandHeight2"]
	if in.Lines == 3 {
		band = layoutRanges["bandHeight3"]
	}
	var out []Finding
	check := func(name string, v float64, what string) {
		r := layoutRanges[name]
		if name == "bandHeight" {
			r = band
		}
		if v < r.Lo || v > r.Hi {
			limit := r.Lo
			if v > r.Hi {
				limit = r.Hi
			}
			out = append(out, Finding{Code: CodeLayoutMismatch, Measure: name, Value: v, Limit: limit,
				Message: fmt.Sprintf("The %s layout does not match: %s is %.2f, genuine %s documents measure %.2f to %.2f.", in.Format, what, v, in.Format, r.Lo, r.Hi)})
		}
	}
	check("bandHeight", m.BandHeight, "the MRZ band's height in character pitches")
	check("roomAbove", m.RoomAbove, "the document height above the MRZ, as a share of the format's")
	if m.PortraitHeight > 0 {
		check("portraitHeight", m.PortraitHeight, "the portrait's height in character pitches")
		check("portraitX", m.PortraitX, "the portrait's position across the MRZ (0 left, 1 right)")
		check("portraitAbove", m.PortraitAbove, "the gap between the portrait and the MRZ in character pitches")
	}
	return out, m
}

// upright maps r, a rectangle in an image with bounds b whose page is
// turned clockwise by turn degrees, into the upright page's frame.
func upright(r, b image.Rectangle, turn int) image.Rectangle {
	r = r.Sub(b.Min)
	w, h := b.Dx(), b.Dy()
	switch (turn%360 + 360) % 360 {
	case 90: // the page's top on the image's right: u = y, v = w − x
		return image.Rect(r.Min.Y, w-r.Max.X, r.Max.Y, w-r.Min.X)
	case 180:
		return image.Rect(w-r.Max.X, h-r.Max.Y, w-r.Min.X, h-r.Min.Y)
	case 270: // the page's top on the image's left: u = h − y, v = x
		return image.Rect(h-r.Max.Y, r.Min.X, h-r.Min.Y, r.Max.X)
	}
	return r
}
