package ocr

import (
	"image"
	"math"
)

// plane is a gray image in float32, 0 black to 255 white.
type plane struct {
	w, h int
	pix  []float32
}

func newPlane(w, h int) *plane { return &plane{w: w, h: h, pix: make([]float32, w*h)} }

func planeFromGray(g *image.Gray) *plane {
	b := g.Bounds()
	p := newPlane(b.Dx(), b.Dy())
	for y := range p.h {
		row := g.Pix[(y)*g.Stride : y*g.Stride+p.w]
		for x, v := range row {
			p.pix[y*p.w+x] = float32(v)
		}
	}
	return p
}

// at samples p at (x, y) (pixel centres at integers) by bilinear
// interpolation, reading the nearest edge pixel outside the image.
func (p *plane) at(x, y float64) float32 {
	if x < 0 {
		x = 0
	} else if x > float64(p.w-1) {
		x = float64(p.w - 1)
	}
	if y < 0 {
		y = 0
	} else if y > float64(p.h-1) {
		y = float64(p.h - 1)
	}
	x0, y0 := int(x), int(y)
	fx, fy := float32(x-float64(x0)), float32(y-float64(y0))
	x1, y1 := min(x0+1, p.w-1), min(y0+1, p.h-1)
	r0, r1 := p.pix[y0*p.w:], p.pix[y1*p.w:]
	a := r0[x0] + fx*(r0[x1]-r0[x0])
	b := r1[x0] + fx*(r1[x1]-r1[x0])
	return a + fy*(b-a)
}

// half shrinks p by 2 in each direction, averaging 2×2 blocks.
func (p *plane) half() *plane {
	w, h := max(1, p.w/2), max(1, p.h/2)
	q := newPlane(w, h)
	inChunks(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			y0, y1 := min(2*y, p.h-1), min(2*y+1, p.h-1)
			for x := range w {
				x0, x1 := min(2*x, p.w-1), min(2*x+1, p.w-1)
				q.pix[y*w+x] = (p.pix[y0*p.w+x0] + p.pix[y0*p.w+x1] + p.pix[y1*p.w+x0] + p.pix[y1*p.w+x1]) / 4
			}
		}
	})
	return q
}

// Pyramid is an image and its successive halvings. Cells are sampled from
// the level whose pixels are about as large as one sample, so a large
// photo is averaged rather than aliased.
type Pyramid struct{ levels []*plane }

// NewPyramid builds the pyramid of a gray image.
func NewPyramid(g *image.Gray) *Pyramid {
	return pyramidOf(planeFromGray(g))
}

func pyramidOf(p *plane) *Pyramid {
	py := &Pyramid{levels: []*plane{p}}
	for p.w >= 32 && p.h >= 32 && len(py.levels) < 6 {
		p = p.half()
		py.levels = append(py.levels, p)
	}
	return py
}

// sampler returns a function sampling in level-0 coordinates from the
// level whose pixel is at most step level-0 pixels wide.
func (py *Pyramid) sampler(step float64) func(x, y float64) float32 {
	k := 0
	if step > 1 {
		k = min(int(math.Log2(step)), len(py.levels)-1)
	}
	p := py.levels[k]
	s := float64(int(1) << k)
	return func(x, y float64) float32 {
		// Pixel j of level k covers level-0 pixels [j·s, (j+1)·s).
		return p.at((x+0.5)/s-0.5, (y+0.5)/s-0.5)
	}
}
