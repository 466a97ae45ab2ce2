package nn

import (
	"fmt"
	"runtime"
)

// Conv2D convolves x with filter (TensorFlow HWIO: kh × kw × x.C × cout)
// at the given stride and padding. It lays the windows of a few output
// pixels out as rows (im2col) and multiplies them by the filter seen as a
// (kh·kw·cin) × cout matrix; each value is summed over the window in
// (row, column, input channel) order, as TensorFlow.js's CPU kernel does.
// A 1×1 filter at stride 1 is one matrix multiply over x as it is.
func Conv2D(x *Tensor, filter *Param, stride int, pad Padding) *Tensor {
	kh, kw, cin, cout := filter.dims4()
	if cin != x.C {
		panic(fmt.Sprintf("nn: conv %s: filter wants %d channels, input %s", filter.Name, cin, x.Shape()))
	}
	oh, top := window(x.H, kh, stride, pad)
	ow, left := window(x.W, kw, stride, pad)
	out := New(oh, ow, cout)
	if kh == 1 && kw == 1 && stride == 1 {
		MatMul(out.Data, x.Data, filter.Data, oh*ow, cin, cout)
		return out
	}
	k := kh * kw * cin
	m := oh * ow
	parallel(m, taskRows(m), func(lo, hi int) {
		cols := make([]float32, (hi-lo)*k)
		for r := lo; r < hi; r++ {
			oy, ox := r/ow, r%ow
			row := cols[(r-lo)*k : (r-lo+1)*k]
			for ky := range kh {
				iy := oy*stride - top + ky
				seg := row[ky*kw*cin : (ky+1)*kw*cin]
				if iy < 0 || iy >= x.H {
					clear(seg)
					continue
				}
				// Inside the image the window's row is one run of memory.
				if ix := ox*stride - left; ix >= 0 && ix+kw <= x.W {
					copy(seg, x.Data[(iy*x.W+ix)*cin:(iy*x.W+ix+kw)*cin])
					continue
				}
				for kx := range kw {
					ix := ox*stride - left + kx
					dst := seg[kx*cin : (kx+1)*cin]
					if ix < 0 || ix >= x.W {
						clear(dst)
						continue
					}
					copy(dst, x.Data[(iy*x.W+ix)*cin:])
				}
			}
		}
		matMulRows(out.Data[lo*cout:hi*cout], cols, filter.Data, 0, hi-lo, k, cout)
	})
	return out
}

// taskRows is how many output pixels one im2col task takes: enough to
// amortise the task, few enough to give every core several tasks.
func taskRows(m int) int {
	per := m / (4 * runtime.GOMAXPROCS(0))
	return min(64, max(2, per/2*2))
}

// DepthwiseConv2D convolves each channel of x with its own kh × kw filter
// (TensorFlow layout kh × kw × C × 1), at the given stride and padding.
func DepthwiseConv2D(x *Tensor, filter *Param, stride int, pad Padding) *Tensor {
	kh, kw, c, mult := filter.dims4()
	if c != x.C || mult != 1 {
		panic(fmt.Sprintf("nn: depthwise %s: filter %v for input %s", filter.Name, filter.Shape, x.Shape()))
	}
	oh, top := window(x.H, kh, stride, pad)
	ow, left := window(x.W, kw, stride, pad)
	out := New(oh, ow, c)
	parallel(oh, 1, func(lo, hi int) {
		for oy := lo; oy < hi; oy++ {
			for ox := range ow {
				dst := out.Data[(oy*ow+ox)*c : (oy*ow+ox+1)*c]
				for ky := range kh {
					iy := oy*stride - top + ky
					if iy < 0 || iy >= x.H {
						continue
					}
					for kx := range kw {
						ix := ox*stride - left + kx
						if ix < 0 || ix >= x.W {
							continue
						}
						src := x.Data[(iy*x.W+ix)*c : (iy*x.W+ix+1)*c]
						w := filter.Data[(ky*kw+kx)*c : (ky*kw+kx+1)*c]
						src, w = src[:len(dst)], w[:len(dst)]
						for i := range dst {
							dst[i] += src[i] * w[i]
						}
					}
				}
			}
		}
	})
	return out
}

// SeparableConv2D is TensorFlow's separableConv2d: a depthwise
// convolution at the given stride and padding, then a 1×1 pointwise one.
func SeparableConv2D(x *Tensor, depthwise, pointwise *Param, stride int, pad Padding) *Tensor {
	return Conv2D(DepthwiseConv2D(x, depthwise, stride, pad), pointwise, 1, Valid)
}
