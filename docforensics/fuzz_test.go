package docforensics

import (
	"image"
	"math"
	"testing"

	"kycd/mrz"
)

// FuzzReaders: any image an applicant can make the gate accept, of any
// size down to one pixel, and any geometry the reader can report, goes
// through every reader without a panic, and the measures stay finite.
func FuzzReaders(f *testing.F) {
	f.Add(uint16(1), uint16(1), []byte{0}, int16(0), int16(0), int16(10), int16(10), 5.0, 0.0)
	f.Add(uint16(300), uint16(140), []byte{10, 200, 30, 255, 0}, int16(20), int16(100), int16(280), int16(130), 6.0, 90.0)
	f.Add(uint16(129), uint16(129), []byte{1, 2, 3}, int16(-5), int16(-5), int16(0), int16(0), 0.0, 271.0)
	f.Fuzz(func(t *testing.T, w, h uint16, pix []byte, x0, y0, x1, y1 int16, pitch, rot float64) {
		w, h = w%400+1, h%400+1
		img := image.NewRGBA(image.Rect(0, 0, int(w), int(h)))
		for i := range img.Pix {
			if len(pix) > 0 {
				img.Pix[i] = pix[i%len(pix)] ^ byte(i*7)
			}
		}
		rf, rm := Rendering(img)
		_, cm := Recapture(img, rm.NoiseFloor)
		for _, v := range []float64{rm.NoiseFloor, rm.UniformShare, rm.NoiseCorrelation, cm.PeakRatio, cm.PeakPeriod} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("a measure is not finite: %+v %+v", rm, cm)
			}
		}
		_ = rf
		r := image.Rect(int(x0), int(y0), int(x1), int(y1))
		for _, format := range []mrz.Format{mrz.TD1, mrz.TD2, mrz.TD3, mrz.MRVA, mrz.MRVB, mrz.FRID} {
			// The measures go into the decision's JSON: never NaN or Inf.
			_, m := Layout(LayoutInput{Format: format, Lines: 2, MRZ: r, PitchPx: pitch, Rotation: rot, Image: img.Bounds(), Portrait: &r})
			for _, v := range []float64{m.BandHeight, m.RoomAbove, m.PortraitHeight, m.PortraitX, m.PortraitAbove} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("a layout measure is not finite: %+v", m)
				}
			}
		}
		PortraitReused(img, r, img, r.Add(image.Pt(1, 1)), pitch)
	})
}
