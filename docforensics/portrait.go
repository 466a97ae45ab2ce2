package docforensics

import (
	"fmt"
	"image"
	"math"
	"math/bits"

	xdraw "golang.org/x/image/draw"
)

// PortraitMeasures compare the document's portrait with the selfie.
type PortraitMeasures struct {
	// Descriptor is the face descriptors' distance (-1: not given).
	Descriptor float64 `json:"descriptorDistance"`
	// HashBits is how many of the 64 bits of the aligned faces'
	// difference hashes differ (the closer of as-is and mirrored).
	HashBits int `json:"hashBits"`
	// Correlation is the pixel correlation of the aligned faces, 32×32
	// grey (the higher of as-is and mirrored): 1 is the same photograph.
	Correlation float64 `json:"correlation"`
}

// Thresholds of PortraitReused, set on the calibration half (split by
// person) of the same-person pairs of the shared face photos: two real
// photos of one person never came this close (see portrait_test.go).
const (
	MaxReuseDescriptor  = 0.20
	MaxReuseHashBits    = 4
	MinReuseCorrelation = 0.92
)

// PortraitReused compares the document's portrait (docFace, its aligned
// crop in doc) with the selfie's (selfieFace in selfie) and returns a
// DOCUMENT_PORTRAIT_REUSED finding when they are the same photograph.
// descriptorDistance < 0 when no descriptor was computed. A real
// passport's photo was taken months or years before the selfie.
func PortraitReused(doc image.Image, docFace image.Rectangle, selfie image.Image, selfieFace image.Rectangle, descriptorDistance float64) ([]Finding, PortraitMeasures) {
	m := PortraitMeasures{Descriptor: round4(descriptorDistance), HashBits: 64}
	a, b := faceThumb(doc, docFace), faceThumb(selfie, selfieFace)
	if a != nil && b != nil {
		mb := mirror(b)
		m.Correlation = round4(max(correlation(a, b), correlation(a, mb)))
		m.HashBits = min(bits.OnesCount64(thumbHash(a)^thumbHash(b)), bits.OnesCount64(thumbHash(a)^thumbHash(mb)))
	}
	var out []Finding
	if descriptorDistance >= 0 && descriptorDistance <= MaxReuseDescriptor {
		out = append(out, finding(CodePortraitReused, "descriptorDistance", descriptorDistance, MaxReuseDescriptor,
			"The selfie's face and the document's portrait are nearer (distance %.2f) than two real photos of one person ever are (above %.2f): the portrait is the selfie's photograph.", descriptorDistance, MaxReuseDescriptor))
	}
	if m.Correlation >= MinReuseCorrelation {
		out = append(out, finding(CodePortraitReused, "correlation", m.Correlation, MinReuseCorrelation,
			"The document's portrait is the selfie's picture, pixel for pixel (correlation %.2f after alignment, two photos of one person stay below %.2f).", m.Correlation, MinReuseCorrelation))
	}
	if a != nil && b != nil && m.HashBits <= MaxReuseHashBits {
		out = append(out, Finding{Code: CodePortraitReused, Measure: "hashBits", Value: float64(m.HashBits), Limit: MaxReuseHashBits,
			Message: fmt.Sprintf("The document's portrait and the selfie's face have the same perceptual hash (%d of 64 bits differ): one photograph.", m.HashBits)})
	}
	return out, m
}

const thumb = 32

// faceThumb is the face's aligned crop as a 32×32 grey thumbnail; nil
// when the crop is empty.
func faceThumb(img image.Image, r image.Rectangle) []float64 {
	r = r.Intersect(img.Bounds())
	if r.Dx() < 8 || r.Dy() < 8 {
		return nil
	}
	dst := image.NewGray(image.Rect(0, 0, thumb, thumb))
	xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, r, xdraw.Src, nil)
	out := make([]float64, thumb*thumb)
	for i, v := range dst.Pix {
		out[i] = float64(v)
	}
	return out
}

func mirror(a []float64) []float64 {
	out := make([]float64, len(a))
	for y := range thumb {
		for x := range thumb {
			out[y*thumb+x] = a[y*thumb+thumb-1-x]
		}
	}
	return out
}

// correlation is the Pearson correlation of two thumbnails.
func correlation(a, b []float64) float64 {
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(len(a))
	mb /= float64(len(b))
	var num, da, db float64
	for i := range a {
		num += (a[i] - ma) * (b[i] - mb)
		da += (a[i] - ma) * (a[i] - ma)
		db += (b[i] - mb) * (b[i] - mb)
	}
	if da == 0 || db == 0 {
		return 0
	}
	return num / math.Sqrt(da*db)
}

// thumbHash is the 64-bit difference hash of a thumbnail (9×8 cells).
func thumbHash(a []float64) uint64 {
	var cell [8][9]float64
	for y := range thumb {
		for x := range thumb {
			cell[y*8/thumb][x*9/thumb] += a[y*thumb+x]
		}
	}
	var h uint64
	for y := range 8 {
		for x := range 8 {
			if cell[y][x]/float64(cellArea(x)) > cell[y][x+1]/float64(cellArea(x+1)) {
				h |= 1 << (y*8 + x)
			}
		}
	}
	return h
}

// cellArea is how many thumbnail columns fall in hash column x.
func cellArea(x int) int {
	n := 0
	for c := range thumb {
		if c*9/thumb == x {
			n++
		}
	}
	return n
}
