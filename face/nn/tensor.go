// Package nn is the small set of neural-network operations that kycd's
// face models need, in pure Go: 2-D convolution (im2col and a blocked,
// parallel matrix multiply), depthwise and depthwise-separable
// convolution, max and average pooling, element-wise activations and
// residual additions, and the loading of TensorFlow.js weight manifests.
//
// Tensors hold one image in height × width × channels order (TensorFlow's
// NHWC with N = 1), and filters are TensorFlow's HWIO, so weights exported
// for TensorFlow.js are used as stored. Padding follows TensorFlow's
// "same" and "valid" rules exactly, including the extra row and column a
// "same" window puts after, not before, when the total is odd.
//
// Every operation is deterministic: the work is split across goroutines
// by output rows, and each output value is summed in the same order
// whatever the number of goroutines, so results do not depend on
// GOMAXPROCS.
package nn

import "fmt"

// Tensor is a dense float32 tensor of shape H × W × C, C varying fastest.
type Tensor struct {
	H, W, C int
	Data    []float32
}

// New returns a zero tensor of shape h × w × c.
func New(h, w, c int) *Tensor {
	return &Tensor{H: h, W: w, C: c, Data: make([]float32, h*w*c)}
}

// At returns the value at row y, column x, channel c.
func (t *Tensor) At(y, x, c int) float32 { return t.Data[(y*t.W+x)*t.C+c] }

// Shape is "HxWxC", for errors and logs.
func (t *Tensor) Shape() string { return fmt.Sprintf("%dx%dx%d", t.H, t.W, t.C) }

// Padding is how a convolution or pooling window treats the border.
type Padding int

const (
	// Valid uses only windows that lie wholly inside the input.
	Valid Padding = iota
	// Same pads so the output has ceil(in/stride) rows and columns; an
	// odd total puts the extra row or column after, as TensorFlow does.
	Same
)

// window returns the output size and the padding before the first
// element for a window of k with stride s over n inputs.
func window(n, k, s int, p Padding) (out, before int) {
	if p == Valid {
		return (n-k)/s + 1, 0
	}
	out = (n + s - 1) / s
	total := max((out-1)*s+k-n, 0)
	return out, total / 2
}
