package face

import (
	"image"
	"image/color"
	"math"

	"kycd/face/nn"
)

// rgbReader reads one pixel's red, green and blue (0-255, not
// premultiplied) at x, y counted from the image's top-left corner.
type rgbReader func(x, y int) (r, g, b uint8)

// newRGBReader returns a reader for img, with direct access to the pixel
// arrays of the layouts the JPEG and PNG decoders produce. Only a few
// hundred thousand pixels are read per face, so nothing is converted up
// front. Transparent pixels give their colour channels as stored, as
// face-api.js does when it drops the alpha channel.
func newRGBReader(img image.Image) rgbReader {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.YCbCr:
		return func(x, y int) (uint8, uint8, uint8) {
			yi := m.YOffset(b.Min.X+x, b.Min.Y+y)
			ci := m.COffset(b.Min.X+x, b.Min.Y+y)
			return color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
		}
	case *image.NRGBA:
		return func(x, y int) (uint8, uint8, uint8) {
			i := m.PixOffset(b.Min.X+x, b.Min.Y+y)
			return m.Pix[i], m.Pix[i+1], m.Pix[i+2]
		}
	case *image.RGBA:
		return func(x, y int) (uint8, uint8, uint8) {
			i := m.PixOffset(b.Min.X+x, b.Min.Y+y)
			if a := m.Pix[i+3]; a != 0xff && a != 0 {
				c := color.NRGBAModel.Convert(m.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				return c.R, c.G, c.B
			}
			return m.Pix[i], m.Pix[i+1], m.Pix[i+2]
		}
	case *image.Gray:
		return func(x, y int) (uint8, uint8, uint8) {
			v := m.Pix[m.PixOffset(b.Min.X+x, b.Min.Y+y)]
			return v, v, v
		}
	}
	return func(x, y int) (uint8, uint8, uint8) {
		c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
		return c.R, c.G, c.B
	}
}

// region is a crop of the image in pixels: TensorFlow's slice of rows
// [Y, Y+H) and columns [X, X+W).
type region struct{ X, Y, W, H int }

// squareInput is face-api.js's NetInput.toBatchTensor for an image tensor:
// the crop r of the image, padded with zeros to a square (after the image
// when centered is false; split around it, the larger half after, when
// true), resized to size × size by TensorFlow's bilinear resize (no
// aligned corners, no half-pixel centres; so no anti-aliasing when
// shrinking) unless it already is that size. The values stay 0-255.
//
// The padded, full-size square is never built: each output pixel reads
// the up to four source pixels it interpolates.
func squareInput(px rgbReader, r region, size int, centered bool) *nn.Tensor {
	side := max(r.W, r.H)
	// Where the crop sits in the padded square.
	offX, offY := 0, 0
	if centered {
		diff := abs(r.W - r.H)
		before := diff - int(math.Round(float64(diff)*0.5))
		if r.W < r.H {
			offX = before
		} else {
			offY = before
		}
	}
	at := func(sx, sy int) (float64, float64, float64) {
		x, y := sx-offX, sy-offY
		if x < 0 || y < 0 || x >= r.W || y >= r.H {
			return 0, 0, 0
		}
		cr, cg, cb := px(r.X+x, r.Y+y)
		return float64(cr), float64(cg), float64(cb)
	}
	out := nn.New(size, size, 3)
	if side == size {
		for y := range size {
			for x := range size {
				cr, cg, cb := at(x, y)
				o := (y*size + x) * 3
				out.Data[o], out.Data[o+1], out.Data[o+2] = float32(cr), float32(cg), float32(cb)
			}
		}
		return out
	}
	ratio := float64(side) / float64(size)
	x0s, x1s := make([]int, size), make([]int, size)
	fxs := make([]float64, size)
	for x := range size {
		src := ratio * float64(x)
		x0s[x] = max(0, int(math.Floor(src)))
		x1s[x] = min(side-1, int(math.Ceil(src)))
		fxs[x] = src - float64(x0s[x])
	}
	for y := range size {
		src := ratio * float64(y)
		y0 := max(0, int(math.Floor(src)))
		y1 := min(side-1, int(math.Ceil(src)))
		fy := src - float64(y0)
		for x := range size {
			fx := fxs[x]
			tlR, tlG, tlB := at(x0s[x], y0)
			trR, trG, trB := at(x1s[x], y0)
			blR, blG, blB := at(x0s[x], y1)
			brR, brG, brB := at(x1s[x], y1)
			o := (y*size + x) * 3
			out.Data[o] = lerp2(tlR, trR, blR, brR, fx, fy)
			out.Data[o+1] = lerp2(tlG, trG, blG, brG, fx, fy)
			out.Data[o+2] = lerp2(tlB, trB, blB, brB, fx, fy)
		}
	}
	return out
}

// lerp2 interpolates as TensorFlow.js's resizeBilinear kernel does, in
// the same order of operations.
func lerp2(tl, tr, bl, br, fx, fy float64) float32 {
	top := tl + (tr-tl)*fx
	bottom := bl + (br-bl)*fx
	return float32(top + (bottom-top)*fy)
}

// normalize is face-api.js's input normalisation: subtract the per-channel
// mean, then divide by 255.
func normalize(t *nn.Tensor, mean [3]float32) *nn.Tensor {
	return t.SubChannels(mean).Div(255)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
