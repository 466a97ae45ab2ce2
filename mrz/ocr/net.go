package ocr

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
)

// Layers are the sizes of the classifier, a multilayer perceptron: the
// normalised cell in, two hidden layers with ReLU, a softmax over the 37
// symbols and None out.
var Layers = []int{CellW * CellH, 160, 96, None + 1}

// Net is the classifier's weights: for each layer, W (out×in, row-major)
// and B (out).
type Net struct {
	W, B [][]float32
}

// modelMagic starts the weights file: a magic, a version, the layer
// sizes, then each layer's W and B as little-endian float32.
const modelMagic = "MRZN0001"

//go:embed model.bin
var modelBin []byte

var (
	defaultNet     *Net
	defaultNetErr  error
	defaultNetOnce sync.Once
)

// model returns the embedded classifier.
func model() (*Net, error) {
	defaultNetOnce.Do(func() { defaultNet, defaultNetErr = DecodeNet(modelBin) })
	return defaultNet, defaultNetErr
}

// EncodeNet writes n in the format DecodeNet reads.
func EncodeNet(n *Net) []byte {
	out := []byte(modelMagic)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(Layers)))
	for _, s := range Layers {
		out = binary.LittleEndian.AppendUint32(out, uint32(s))
	}
	for k := range n.W {
		for _, v := range n.W[k] {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
		}
		for _, v := range n.B[k] {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
		}
	}
	return out
}

// DecodeNet reads weights written by EncodeNet, for the layer sizes of
// this build.
func DecodeNet(b []byte) (*Net, error) {
	if len(b) < len(modelMagic)+4 || string(b[:len(modelMagic)]) != modelMagic {
		return nil, errors.New("ocr: not an MRZ classifier weights file")
	}
	b = b[len(modelMagic):]
	u32 := func() uint32 {
		if len(b) < 4 {
			return 0
		}
		v := binary.LittleEndian.Uint32(b)
		b = b[4:]
		return v
	}
	if n := u32(); int(n) != len(Layers) {
		return nil, fmt.Errorf("ocr: weights have %d layers, want %d", n, len(Layers))
	}
	for _, s := range Layers {
		if got := u32(); int(got) != s {
			return nil, fmt.Errorf("ocr: weights have layer size %d, want %d", got, s)
		}
	}
	n := &Net{}
	for k := 1; k < len(Layers); k++ {
		in, out := Layers[k-1], Layers[k]
		if len(b) < 4*(in*out+out) {
			return nil, errors.New("ocr: weights file is truncated")
		}
		w, bias := make([]float32, in*out), make([]float32, out)
		for i := range w {
			w[i] = math.Float32frombits(u32())
		}
		for i := range bias {
			bias[i] = math.Float32frombits(u32())
		}
		n.W, n.B = append(n.W, w), append(n.B, bias)
	}
	if len(b) != 0 {
		return nil, errors.New("ocr: weights file has trailing bytes")
	}
	return n, nil
}

// Forward runs the classifier on one cell and writes the probability of
// each output into probs (len Layers[last]). acts, when not nil, receives
// the activations of each layer (the training program's backward pass
// reads them); scratch may be nil.
//
// Products are converted to float32 before they are summed, which keeps
// the compiler from fusing them into FMA instructions: the result is then
// bit-for-bit the same on every platform, and so are trained weights.
func (n *Net) Forward(x []float32, probs []float32, acts [][]float32) {
	cur := x
	nz := make([]int32, 0, Layers[0])
	for k := range n.W {
		in, out := Layers[k], Layers[k+1]
		var next []float32
		if acts != nil {
			next = acts[k]
		} else {
			next = make([]float32, out)
		}
		// Paper samples and inactive units are exact zeros, and adding a
		// zero product changes no sum: skip them (the order of the other
		// terms stays, and so does every bit of the result).
		nz = nz[:0]
		for i, v := range cur {
			if v != 0 {
				nz = append(nz, int32(i))
			}
		}
		w := n.W[k]
		for o := range out {
			row := w[o*in : (o+1)*in]
			s := n.B[k][o]
			for _, i := range nz {
				s += float32(row[i] * cur[i])
			}
			if k < len(n.W)-1 && s < 0 {
				s = 0
			}
			next[o] = s
		}
		cur = next
	}
	Softmax(cur, probs)
}

// Softmax writes the softmax of logits into probs.
func Softmax(logits, probs []float32) {
	m := logits[0]
	for _, v := range logits {
		m = max(m, v)
	}
	var sum float32
	for i, v := range logits {
		e := float32(math.Exp(float64(v - m)))
		probs[i] = e
		sum += e
	}
	for i := range probs {
		probs[i] /= sum
	}
}
