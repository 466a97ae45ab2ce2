package nn

import "math"

// MaxPool takes the maximum of each k × k window at the given stride. With
// Same padding the padded positions are ignored, as in TensorFlow.
func MaxPool(x *Tensor, k, stride int, pad Padding) *Tensor {
	return pool(x, k, stride, pad, true)
}

// AvgPool averages each k × k window at the given stride, over the
// positions inside the input (TensorFlow's rule for Same padding).
func AvgPool(x *Tensor, k, stride int, pad Padding) *Tensor {
	return pool(x, k, stride, pad, false)
}

func pool(x *Tensor, k, stride int, pad Padding, isMax bool) *Tensor {
	oh, top := window(x.H, k, stride, pad)
	ow, left := window(x.W, k, stride, pad)
	out := New(oh, ow, x.C)
	// One float64 accumulator per channel: TensorFlow.js sums an average in
	// a JavaScript number, a double.
	parallel(oh, 1, func(lo, hi int) {
		acc := make([]float64, x.C)
		for oy := lo; oy < hi; oy++ {
			for ox := range ow {
				for c := range acc {
					if isMax {
						acc[c] = math.Inf(-1)
					} else {
						acc[c] = 0
					}
				}
				n := 0
				for ky := range k {
					iy := oy*stride - top + ky
					if iy < 0 || iy >= x.H {
						continue
					}
					for kx := range k {
						ix := ox*stride - left + kx
						if ix < 0 || ix >= x.W {
							continue
						}
						n++
						src := x.Data[(iy*x.W+ix)*x.C : (iy*x.W+ix+1)*x.C]
						for c, v := range src {
							if isMax {
								acc[c] = max(acc[c], float64(v))
							} else {
								acc[c] += float64(v)
							}
						}
					}
				}
				dst := out.Data[(oy*ow+ox)*x.C : (oy*ow+ox+1)*x.C]
				for c := range dst {
					if isMax {
						dst[c] = float32(acc[c])
					} else {
						dst[c] = float32(acc[c] / float64(n))
					}
				}
			}
		}
	})
	return out
}

// Mean averages each channel over all rows and columns.
func Mean(x *Tensor) []float32 {
	acc := make([]float64, x.C)
	for i := 0; i < len(x.Data); i += x.C {
		for c, v := range x.Data[i : i+x.C] {
			acc[c] += float64(v)
		}
	}
	out := make([]float32, x.C)
	n := float64(x.H * x.W)
	for c := range out {
		out[c] = float32(acc[c] / n)
	}
	return out
}

// PadAfter returns x with rows zero rows appended at the bottom and cols
// zero columns at the right.
func PadAfter(x *Tensor, rows, cols int) *Tensor {
	out := New(x.H+rows, x.W+cols, x.C)
	for y := range x.H {
		copy(out.Data[y*out.W*x.C:], x.Data[y*x.W*x.C:(y+1)*x.W*x.C])
	}
	return out
}

// PadChannels returns x with zero channels appended up to c.
func PadChannels(x *Tensor, c int) *Tensor {
	out := New(x.H, x.W, c)
	for i := range x.H * x.W {
		copy(out.Data[i*c:], x.Data[i*x.C:(i+1)*x.C])
	}
	return out
}

// ResizeBilinear scales x to h × w as TensorFlow.js's resizeBilinear does
// with alignCorners and halfPixelCenters false: output row r samples the
// input at r·(in/out), between the rows floor and ceil of that (the last
// row repeated), interpolated in double precision in the kernel's order
// of operations. Shrinking this way skips input pixels; it does not
// average them.
func ResizeBilinear(x *Tensor, h, w int) *Tensor {
	out := New(h, w, x.C)
	ys := bilinearTaps(x.H, h)
	xs := bilinearTaps(x.W, w)
	for oy, ty := range ys {
		for ox, tx := range xs {
			tl := x.Data[(ty.lo*x.W+tx.lo)*x.C:]
			tr := x.Data[(ty.lo*x.W+tx.hi)*x.C:]
			bl := x.Data[(ty.hi*x.W+tx.lo)*x.C:]
			br := x.Data[(ty.hi*x.W+tx.hi)*x.C:]
			dst := out.Data[(oy*w+ox)*x.C : (oy*w+ox+1)*x.C]
			for c := range dst {
				top := float64(tl[c]) + (float64(tr[c])-float64(tl[c]))*tx.frac
				bottom := float64(bl[c]) + (float64(br[c])-float64(bl[c]))*tx.frac
				dst[c] = float32(top + (bottom-top)*ty.frac)
			}
		}
	}
	return out
}

type tap struct {
	lo, hi int
	frac   float64
}

func bilinearTaps(in, out int) []tap {
	ratio := float64(in) / float64(out)
	taps := make([]tap, out)
	for i := range taps {
		src := ratio * float64(i)
		lo := max(0, int(math.Floor(src)))
		taps[i] = tap{lo: lo, hi: min(in-1, int(math.Ceil(src))), frac: src - float64(lo)}
	}
	return taps
}
