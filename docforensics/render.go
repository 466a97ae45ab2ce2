package docforensics

import (
	"image"
	"math"
	"slices"
)

// RenderMeasures are what a camera leaves in the pixels and a renderer
// does not.
type RenderMeasures struct {
	// NoiseFloor is the median spread (standard deviation, in grey
	// levels) of the high-pass residual in the flattest fifth of the 8×8
	// blocks: a sensor leaves noise there, a renderer leaves none.
	NoiseFloor float64 `json:"noiseFloor"`
	// UniformShare is the share of blocks, clipped ones (black or white)
	// left out, whose 64 pixels have exactly the same colour: a fill.
	UniformShare float64 `json:"uniformShare"`
	// NoiseCorrelation is the correlation of horizontally neighbouring
	// residuals in the flat blocks (white noise: −0.4). Recorded, not
	// decided on: after JPEG, noise a forger added measures like a
	// camera's (near 0), so it separates nothing on the suite.
	NoiseCorrelation float64 `json:"noiseCorrelation"`
	// Blocks is how many blocks were measured.
	Blocks int `json:"blocks"`
}

// Thresholds of Rendering, set on the calibration half of the genuine
// document images (see realdata_test.go for both halves' figures).
const (
	// MinNoiseFloor: below it the flat regions carry no sensor noise
	// (the calibration half's least is 0.32; a drawing, even saved as
	// JPEG, measures 0).
	MinNoiseFloor = 0.25
	// MaxUniformShare: above it a good part of the image is flat fill
	// (the calibration half's most is 0.013; drawings 0.05-0.86).
	MaxUniformShare = 0.05
	// minBlocks: fewer measurable blocks say nothing.
	minBlocks = 64
)

// block is one 8×8 block's statistics.
type block struct {
	grad     float64 // mean absolute neighbour difference
	resSD    float64 // spread of the residual
	corrNum  float64 // Σ r(x)·r(x+1)
	corrDen  float64 // Σ r²
	uniform  bool
	clipped  bool
	measured bool
}

// Rendering measures img for a camera's traces and returns the findings
// (DOCUMENT_LOOKS_RENDERED) with the measures. An image too small to
// measure has no finding and Blocks below the minimum.
func Rendering(img image.Image) ([]Finding, RenderMeasures) {
	g := lumaOf(img)
	exact := exactColour(img)
	const bs = 8
	var blocks []block
	for by := 1; by+bs+1 <= g.h; by += bs {
		for bx := 1; bx+bs+1 <= g.w; bx += bs {
			blocks = append(blocks, measureBlock(g, exact, bx, by, bs))
		}
	}
	var m RenderMeasures
	var flat []block
	uniform, counted := 0, 0
	for _, b := range blocks {
		if b.clipped {
			continue
		}
		counted++
		if b.uniform {
			uniform++
		}
		flat = append(flat, b)
	}
	m.Blocks = counted
	if counted < minBlocks {
		return nil, m
	}
	m.UniformShare = float64(uniform) / float64(counted)
	slices.SortFunc(flat, func(a, b block) int {
		switch {
		case a.grad < b.grad:
			return -1
		case a.grad > b.grad:
			return 1
		}
		return 0
	})
	flat = flat[:max(len(flat)/5, 1)]
	sds := make([]float64, len(flat))
	var num, den float64
	for i, b := range flat {
		sds[i] = b.resSD
		num += b.corrNum
		den += b.corrDen
	}
	slices.Sort(sds)
	m.NoiseFloor = sds[len(sds)/2]
	if den > 0 {
		m.NoiseCorrelation = num / den
	}
	var out []Finding
	if m.NoiseFloor < MinNoiseFloor {
		out = append(out, finding(CodeLooksRendered, "noiseFloor", m.NoiseFloor, MinNoiseFloor,
			"The flat regions of the document image carry no sensor noise (residual %.2f grey levels, a photograph shows at least %.2f): it looks drawn, not photographed.", m.NoiseFloor, MinNoiseFloor))
	}
	if m.UniformShare > MaxUniformShare {
		out = append(out, finding(CodeLooksRendered, "uniformShare", m.UniformShare, MaxUniformShare,
			"%.0f%% of the document image is perfectly uniform fill (a photograph shows at most %.0f%%): it looks drawn, not photographed.", 100*m.UniformShare, 100*MaxUniformShare))
	}
	return out, m
}

// measureBlock computes one block's statistics; the residual is each
// pixel minus the mean of its four neighbours.
func measureBlock(g *grayPlane, exact func(x0, y0, n int) bool, bx, by, bs int) block {
	var b block
	var sum, sum2, grad float64
	n := 0
	lo, hi := float32(255), float32(0)
	for y := by; y < by+bs; y++ {
		for x := bx; x < bx+bs; x++ {
			v := g.at(x, y)
			lo, hi = min(lo, v), max(hi, v)
			r := float64(v - (g.at(x-1, y)+g.at(x+1, y)+g.at(x, y-1)+g.at(x, y+1))/4)
			sum += r
			sum2 += r * r
			grad += math.Abs(float64(g.at(x+1, y)-v)) + math.Abs(float64(g.at(x, y+1)-v))
			if x+1 < bx+bs {
				r1 := float64(g.at(x+1, y) - (g.at(x, y)+g.at(x+2, y)+g.at(x+1, y-1)+g.at(x+1, y+1))/4)
				b.corrNum += r * r1
			}
			b.corrDen += r * r
			n++
		}
	}
	mean := sum / float64(n)
	b.resSD = math.Sqrt(max(sum2/float64(n)-mean*mean, 0))
	b.corrDen -= float64(n) * mean * mean
	b.corrNum *= float64(bs) / float64(bs-1) // as many products as squares
	b.grad = grad / float64(n)
	b.clipped = hi <= 4 || lo >= 251
	b.uniform = hi == lo && exact(bx, by, bs)
	return b
}

// exactColour returns a test of whether an n×n block of img at (x0, y0)
// (relative to its bounds) has one exact colour in every channel.
func exactColour(img image.Image) func(x0, y0, n int) bool {
	b := img.Bounds()
	return func(x0, y0, n int) bool {
		r0, g0, b0, _ := img.At(b.Min.X+x0, b.Min.Y+y0).RGBA()
		for y := y0; y < y0+n; y++ {
			for x := x0; x < x0+n; x++ {
				r, g, bb, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
				if r != r0 || g != g0 || bb != b0 {
					return false
				}
			}
		}
		return true
	}
}
