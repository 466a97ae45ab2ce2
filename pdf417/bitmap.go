package pdf417

import (
	"image"
	"image/draw"
	"math"
)

// bitmap is a binarized image, 1 for dark, with the grey levels and the
// per-pixel threshold it came from: scan lines sample those between
// pixels, so modules of two pixels or less keep their sub-pixel edges.
type bitmap struct {
	w, h int
	b    []byte
	g    []uint8 // luminance
	t    []uint8 // threshold: dark below
}

// dark samples the image at (x, y) by bilinear interpolation and tells
// whether it is below the interpolated threshold.
//
// Scan lines run between run boundaries (pixel i spans x in [i, i+1)) on
// rows named by their index, so x moves half a pixel to pixel centres.
func (m *bitmap) dark(x, y float64) byte {
	x -= 0.5
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	if x0 < 0 || y0 < 0 || x0+1 >= m.w || y0+1 >= m.h {
		return m.at(int(math.Round(x)), int(math.Round(y)))
	}
	fx, fy := x-float64(x0), y-float64(y0)
	i := y0*m.w + x0
	j := i + m.w
	d00 := float64(int(m.g[i]) - int(m.t[i]))
	d01 := float64(int(m.g[i+1]) - int(m.t[i+1]))
	d10 := float64(int(m.g[j]) - int(m.t[j]))
	d11 := float64(int(m.g[j+1]) - int(m.t[j+1]))
	v := (d00+(d01-d00)*fx)*(1-fy) + (d10+(d11-d10)*fx)*fy
	if v < 0 {
		return 1
	}
	return 0
}

func (m *bitmap) at(x, y int) byte {
	if x < 0 || y < 0 || x >= m.w || y >= m.h {
		return 0
	}
	return m.b[y*m.w+x]
}

// shrink reduces g by the integer factor f, averaging f×f blocks.
func shrink(g *image.Gray, f int) *image.Gray {
	if f <= 1 {
		return g
	}
	w, h := g.Rect.Dx()/f, g.Rect.Dy()/f
	s := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			sum := 0
			for dy := range f {
				row := g.Pix[(y*f+dy)*g.Stride+x*f:]
				for dx := range f {
					sum += int(row[dx])
				}
			}
			s.Pix[y*s.Stride+x] = uint8(sum / (f * f))
		}
	}
	return s
}

// toGray converts to luminance with fast paths for what image decoders
// return; transparent pixels are paper, composited over white.
func toGray(img image.Image) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	g := image.NewGray(image.Rect(0, 0, w, h))
	lum := func(r, gg, bb, a uint32) uint8 {
		// 8-bit premultiplied channels over white, BT.601 weights.
		y := (299*r + 587*gg + 114*bb) / 1000
		return uint8(y + 255 - a)
	}
	switch m := img.(type) {
	case *image.Gray:
		for y := range h {
			copy(g.Pix[y*w:(y+1)*w], m.Pix[(y+b.Min.Y-m.Rect.Min.Y)*m.Stride+(b.Min.X-m.Rect.Min.X):])
		}
	case *image.YCbCr:
		for y := range h {
			copy(g.Pix[y*w:(y+1)*w], m.Y[(y+b.Min.Y-m.Rect.Min.Y)*m.YStride+(b.Min.X-m.Rect.Min.X):])
		}
	case *image.RGBA:
		for y := range h {
			row := m.Pix[(y+b.Min.Y-m.Rect.Min.Y)*m.Stride+4*(b.Min.X-m.Rect.Min.X):]
			for x := range w {
				p := row[4*x : 4*x+4]
				g.Pix[y*w+x] = lum(uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3]))
			}
		}
	case *image.NRGBA:
		for y := range h {
			row := m.Pix[(y+b.Min.Y-m.Rect.Min.Y)*m.Stride+4*(b.Min.X-m.Rect.Min.X):]
			for x := range w {
				p := row[4*x : 4*x+4]
				a := uint32(p[3])
				g.Pix[y*w+x] = lum(uint32(p[0])*a/255, uint32(p[1])*a/255, uint32(p[2])*a/255, a)
			}
		}
	default:
		for i := range g.Pix {
			g.Pix[i] = 255
		}
		draw.Draw(g, g.Bounds(), img, b.Min, draw.Over)
	}
	return g
}

// binarizeLocal marks a pixel dark when it is darker than the mean of its
// neighbourhood: it copes with uneven light, glare and shadows across a
// card, where one global threshold does not. The window is wider than the
// start pattern's eight-module bar at any resolution worth reading.
func binarizeLocal(g *image.Gray) *bitmap {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	r := max(12, min(w, h)/10)
	integral := make([]int64, (w+1)*(h+1))
	for y := range h {
		var rs int64
		for x := range w {
			rs += int64(g.Pix[y*g.Stride+x])
			integral[(y+1)*(w+1)+x+1] = integral[y*(w+1)+x+1] + rs
		}
	}
	m := newBitmap(g)
	for y := range h {
		y0, y1 := max(0, y-r), min(h, y+r+1)
		for x := range w {
			x0, x1 := max(0, x-r), min(w, x+r+1)
			sum := integral[y1*(w+1)+x1] - integral[y0*(w+1)+x1] - integral[y1*(w+1)+x0] + integral[y0*(w+1)+x0]
			n := int64((y1 - y0) * (x1 - x0))
			m.t[y*w+x] = uint8(sum * 95 / (n * 100))
			if m.g[y*w+x] < m.t[y*w+x] {
				m.b[y*w+x] = 1
			}
		}
	}
	return m
}

// binarizeGlobal thresholds at Otsu's level: for clean scans and renders
// whose bars are wider than the local window would suit.
func binarizeGlobal(g *image.Gray) *bitmap {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	var hist [256]int
	for y := range h {
		for _, v := range g.Pix[y*g.Stride : y*g.Stride+w] {
			hist[v]++
		}
	}
	total := w * h
	var sumAll float64
	for i, c := range hist {
		sumAll += float64(i * c)
	}
	var sumB, wB float64
	best, thr, mid := -1.0, 128, 128.0
	for i, c := range hist {
		wB += float64(c)
		if wB == 0 {
			continue
		}
		wF := float64(total) - wB
		if wF == 0 {
			break
		}
		sumB += float64(i * c)
		mB, mF := sumB/wB, (sumAll-sumB)/wF
		if v := wB * wF * (mB - mF) * (mB - mF); v > best {
			// Sampling between pixels needs the level halfway between
			// the two classes, not the class boundary (0 on a bilevel image).
			best, thr, mid = v, i, (mB+mF)/2
		}
	}
	m := newBitmap(g)
	for i, v := range m.g {
		m.t[i] = uint8(mid + 0.5)
		if int(v) <= thr {
			m.b[i] = 1
		}
	}
	return m
}

func newBitmap(g *image.Gray) *bitmap {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	m := &bitmap{w: w, h: h, b: make([]byte, w*h), g: make([]uint8, w*h), t: make([]uint8, w*h)}
	for y := range h {
		copy(m.g[y*w:(y+1)*w], g.Pix[y*g.Stride:])
	}
	return m
}

// rotate90 returns m turned a quarter clockwise.
func (m *bitmap) rotate90() *bitmap {
	r := &bitmap{w: m.h, h: m.w, b: make([]byte, len(m.b)), g: make([]uint8, len(m.b)), t: make([]uint8, len(m.b))}
	for y := range m.h {
		for x := range m.w {
			j := x*r.w + (m.h - 1 - y)
			r.b[j], r.g[j], r.t[j] = m.b[y*m.w+x], m.g[y*m.w+x], m.t[y*m.w+x]
		}
	}
	return r
}
