package ocr

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
)

// The classifier is a small convolutional network over the normalised
// cell (CellH×CellW, ink 1, paper 0):
//
//	conv 3×3, Conv1 channels, ReLU → max-pool 2×2
//	conv 3×3, Conv2 channels, ReLU → max-pool 2×2
//	dense Hidden units, ReLU → dense, softmax over the 37 symbols and None
//
// Convolutions see a glyph's strokes wherever the cell frames them, so a
// glyph a little off the cell's centre (a geometry estimate a fraction of
// a pitch off, a printer's jitter) is still the same glyph to it; a
// multilayer perceptron over raw pixels learns every position apart.
const (
	Conv1  = 12
	Conv2  = 24
	Hidden = 96
)

// Sizes after each pooling (rounded up: the last row and column pool
// alone).
const (
	h1, w1 = (CellH + 1) / 2, (CellW + 1) / 2
	h2, w2 = (h1 + 1) / 2, (w1 + 1) / 2
	flat   = h2 * w2 * Conv2
)

// Layers describes the architecture in the weights file's header: the
// cell's height and width, the channels of the two convolutions, the
// hidden units and the outputs.
var Layers = []int{CellH, CellW, Conv1, Conv2, Hidden, None + 1}

// Net holds the weights of the four layers: W[0] and W[1] are the
// convolutions, indexed ((ky·3+kx)·in + c)·out + o (channels last); W[2]
// and W[3] the dense layers, out×in row-major. B are the biases.
type Net struct {
	W, B [][]float32
	// hiddenT is W[2] turned in×out, for the vector unit (denseT); set
	// only on a net whose weights no longer change (see freeze).
	hiddenT []float32
}

// freeze prepares n for reading on the vector unit; n's weights must not
// change afterwards (the embedded model's never do; a net in training
// does, and runs the plain loops).
func (n *Net) freeze() {
	if !hasVectorSums || Hidden%24 != 0 {
		return
	}
	t := make([]float32, flat*Hidden)
	for o := range Hidden {
		for i := range flat {
			t[i*Hidden+o] = n.W[2][o*flat+i]
		}
	}
	n.hiddenT = t
}

// shapes are the (len W, len B) of each layer.
var shapes = [4][2]int{
	{9 * 1 * Conv1, Conv1},
	{9 * Conv1 * Conv2, Conv2},
	{flat * Hidden, Hidden},
	{Hidden * (None + 1), None + 1},
}

// NewNet returns a network of the current architecture with zero weights.
func NewNet() *Net {
	n := &Net{}
	for _, s := range shapes {
		n.W = append(n.W, make([]float32, s[0]))
		n.B = append(n.B, make([]float32, s[1]))
	}
	return n
}

// FanIn is the number of inputs of each unit of layer k (for
// initialisation).
func FanIn(k int) int {
	return [4]int{9, 9 * Conv1, flat, Hidden}[k]
}

// modelMagic starts the weights file: a magic, the number of header
// values, the header (Layers), then each layer's W and B as little-endian
// float32.
const modelMagic = "MRZC0001"

//go:embed model.bin
var modelBin []byte

var (
	defaultNet     *Net
	defaultNetErr  error
	defaultNetOnce sync.Once
)

// model returns the embedded classifier.
func model() (*Net, error) {
	defaultNetOnce.Do(func() {
		defaultNet, defaultNetErr = DecodeNet(modelBin)
		if defaultNetErr == nil {
			defaultNet.freeze()
		}
	})
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

// DecodeNet reads weights written by EncodeNet, for the architecture of
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
		return nil, fmt.Errorf("ocr: weights have %d header values, want %d", n, len(Layers))
	}
	for i, s := range Layers {
		if got := u32(); int(got) != s {
			return nil, fmt.Errorf("ocr: weights have %d at header value %d, want %d", got, i, s)
		}
	}
	n := NewNet()
	for k := range n.W {
		if len(b) < 4*(len(n.W[k])+len(n.B[k])) {
			return nil, errors.New("ocr: weights file is truncated")
		}
		for i := range n.W[k] {
			n.W[k][i] = math.Float32frombits(u32())
		}
		for i := range n.B[k] {
			n.B[k][i] = math.Float32frombits(u32())
		}
	}
	if len(b) != 0 {
		return nil, errors.New("ocr: weights file has trailing bytes")
	}
	return n, nil
}

// Trace holds the activations of one forward pass: the training
// program's backward pass reads them, and reusing one spares the
// allocations.
type Trace struct {
	C1     []float32 // conv 1 after ReLU, CellH×CellW×Conv1
	P1     []float32 // pooled, h1×w1×Conv1
	A1     []int32   // index into C1 of each P1 maximum
	C2     []float32 // conv 2 after ReLU, h1×w1×Conv2
	P2     []float32 // pooled, h2×w2×Conv2: the dense layer's input
	A2     []int32
	H      []float32 // hidden units after ReLU
	Logits []float32
	// scratch of the vector unit's convolution, kept rather than zeroed
	// on the stack at every call
	acc *accumScratch
}

// NewTrace allocates the activations of one pass.
func NewTrace() *Trace {
	return &Trace{
		C1: make([]float32, CellH*CellW*Conv1), P1: make([]float32, h1*w1*Conv1), A1: make([]int32, h1*w1*Conv1),
		C2: make([]float32, h1*w1*Conv2), P2: make([]float32, flat), A2: make([]int32, flat),
		H: make([]float32, Hidden), Logits: make([]float32, None+1),
	}
}

// Forward runs the classifier on one cell (CellH×CellW, row-major) and
// writes the probability of each output into probs (len None+1). tr
// receives the activations; nil allocates a scratch trace.
//
// Products are converted to float32 before they are summed, which keeps
// the compiler from fusing them into FMA instructions: the result is then
// bit-for-bit the same on every platform, and so are trained weights.
func (n *Net) Forward(x []float32, probs []float32, tr *Trace) {
	if tr == nil {
		tr = NewTrace()
	}
	if tr.acc == nil {
		tr.acc = new(accumScratch)
	}
	conv3(x, CellH, CellW, 1, n.W[0], n.B[0], Conv1, tr.C1, tr.acc)
	pool2(tr.C1, CellH, CellW, Conv1, tr.P1, tr.A1)
	conv3(tr.P1, h1, w1, Conv1, n.W[1], n.B[1], Conv2, tr.C2, tr.acc)
	pool2(tr.C2, h1, w1, Conv2, tr.P2, tr.A2)
	if n.hiddenT != nil {
		denseT(tr.P2, n.hiddenT, n.B[2], tr.H)
	} else {
		dense(tr.P2, n.W[2], n.B[2], tr.H, true)
	}
	dense(tr.H, n.W[3], n.B[3], tr.Logits, false)
	Softmax(tr.Logits, probs)
}

// conv3 is a 3×3 convolution with zero padding and ReLU, channels last:
// in is h×w×ci, out h×w×co. Each output sums its bias and then the
// products of its non-zero inputs in a fixed order (input row, column,
// channel: convScatter's order), so the result is the same bit for bit
// however the loops run; paper and inactive units are exact zeros, most
// of a cell, and adding a zero product changes no sum.
func conv3(in []float32, h, w, ci int, wt, b []float32, co int, out []float32, sc *accumScratch) {
	if (co == 12 || co == 24) && ci <= maxAccumIn && h*w <= maxAccumPixels && h*w*ci <= maxAccumInputs &&
		hasVectorSums && len(wt) >= 9*ci*co && len(b) >= co && sc != nil {
		convAccum(in, h, w, ci, wt, b, co, out, sc)
		return
	}
	if co%12 != 0 {
		convScatter(in, h, w, ci, wt, b, co, out)
		return
	}
	// Without the vector unit (or its scratch: a net in training),
	// twelve outputs at a time summed in registers rather than in memory.
	for oy := range h {
		for ox := range w {
			dst := out[(oy*w+ox)*co : (oy*w+ox+1)*co]
			for g := 0; g < co; g += 12 {
				a0, a1, a2, a3, a4, a5 := b[g], b[g+1], b[g+2], b[g+3], b[g+4], b[g+5]
				a6, a7, a8, a9, a10, a11 := b[g+6], b[g+7], b[g+8], b[g+9], b[g+10], b[g+11]
				for y := max(0, oy-1); y <= min(h-1, oy+1); y++ {
					ky := y + 1 - oy
					for x := max(0, ox-1); x <= min(w-1, ox+1); x++ {
						kx := x + 1 - ox
						src := in[(y*w+x)*ci : (y*w+x+1)*ci]
						base := (ky*3+kx)*ci*co + g
						for c, v := range src {
							if v == 0 {
								continue
							}
							k := base + c*co
							r := (*[12]float32)(wt[k : k+12])
							a0 += float32(v * r[0])
							a1 += float32(v * r[1])
							a2 += float32(v * r[2])
							a3 += float32(v * r[3])
							a4 += float32(v * r[4])
							a5 += float32(v * r[5])
							a6 += float32(v * r[6])
							a7 += float32(v * r[7])
							a8 += float32(v * r[8])
							a9 += float32(v * r[9])
							a10 += float32(v * r[10])
							a11 += float32(v * r[11])
						}
					}
				}
				d := (*[12]float32)(dst[g : g+12])
				d[0], d[1], d[2], d[3], d[4], d[5] = max(a0, 0), max(a1, 0), max(a2, 0), max(a3, 0), max(a4, 0), max(a5, 0)
				d[6], d[7], d[8], d[9], d[10], d[11] = max(a6, 0), max(a7, 0), max(a8, 0), max(a9, 0), max(a10, 0), max(a11, 0)
			}
		}
	}
}

// The bounds of convAccum's lists: input channels, input pixels, and
// input values (both layers of the net are within them).
const (
	maxAccumIn     = 16
	maxAccumPixels = CellH * CellW
	maxAccumInputs = 1024
)

// accumScratch holds convAccum's lists.
type accumScratch struct {
	start [maxAccumPixels + 1]int32
	nzv   [maxAccumInputs]float32
	nzc   [maxAccumInputs]int32
	vals  [9 * maxAccumIn]float32
	idx   [9 * maxAccumIn]int32
}

// convAccum is conv3 with 12 or 24 outputs summed on the vector unit
// (see accum24): per output pixel, the non-zero inputs of its 3×3
// neighbourhood in conv3's order, and the rows of weights they take.
func convAccum(in []float32, h, w, ci int, wt, b []float32, co int, out []float32, sc *accumScratch) {
	acc := accum24
	if co == 12 {
		acc = accum12
	}
	// Each input pixel's non-zero channels, once: nine outputs read them.
	m := int32(0)
	for p := range h * w {
		sc.start[p] = m
		for c, v := range in[p*ci : (p+1)*ci] {
			if v != 0 {
				sc.nzv[m], sc.nzc[m] = v, int32(c)
				m++
			}
		}
	}
	sc.start[h*w] = m
	for oy := range h {
		for ox := range w {
			n := 0
			for y := max(0, oy-1); y <= min(h-1, oy+1); y++ {
				for x := max(0, ox-1); x <= min(w-1, ox+1); x++ {
					// Row (ky·3+kx)·ci + c of the weights, < 9·ci.
					tap := int32(((y+1-oy)*3 + (x + 1 - ox)) * ci)
					p := y*w + x
					for j := sc.start[p]; j < sc.start[p+1]; j++ {
						sc.vals[n], sc.idx[n] = sc.nzv[j], tap+sc.nzc[j]
						n++
					}
				}
			}
			dst := out[(oy*w+ox)*co : (oy*w+ox+1)*co]
			copy(dst, b[:co])
			acc(dst, wt, sc.vals[:n], sc.idx[:n], co)
			relu(dst)
		}
	}
}

// relu sets the negative values of s to zero (without a branch: which
// way a sum goes is a coin toss the processor cannot guess; a negative
// zero becomes a positive one, which no later layer can tell apart).
func relu(s []float32) {
	for i, v := range s {
		b := math.Float32bits(v)
		s[i] = math.Float32frombits(b &^ uint32(int32(b)>>31))
	}
}

// convScatter is conv3 for any number of outputs: it scatters each
// non-zero input into the outputs it reaches.
func convScatter(in []float32, h, w, ci int, wt, b []float32, co int, out []float32) {
	for p := range h * w {
		copy(out[p*co:(p+1)*co], b)
	}
	for y := range h {
		for x := range w {
			src := in[(y*w+x)*ci : (y*w+x+1)*ci]
			for c, v := range src {
				if v == 0 {
					continue
				}
				for ky := range 3 {
					oy := y + 1 - ky
					if oy < 0 || oy >= h {
						continue
					}
					for kx := range 3 {
						ox := x + 1 - kx
						if ox < 0 || ox >= w {
							continue
						}
						k := ((ky*3+kx)*ci + c) * co
						wr := wt[k : k+co]
						or := out[(oy*w+ox)*co : (oy*w+ox+1)*co]
						wr = wr[:len(or)]
						for o := range or {
							or[o] += float32(v * wr[o])
						}
					}
				}
			}
		}
	}
	for i, v := range out[:h*w*co] {
		if v < 0 {
			out[i] = 0
		}
	}
}

// pool2 takes the maximum of each 2×2 block (the last row or column alone
// when the size is odd) and records where it was.
func pool2(in []float32, h, w, c int, out []float32, arg []int32) {
	oh, ow := (h+1)/2, (w+1)/2
	for oy := range oh {
		for ox := range ow {
			k := (oy*ow + ox) * c
			dst, at := out[k:k+c], arg[k:k+c]
			// The block's pixels in order, every channel at once; a
			// later pixel wins only when strictly greater, so each
			// channel keeps its first maximum, as a channel at a time
			// would.
			first := true
			for y := 2 * oy; y < min(2*oy+2, h); y++ {
				for x := 2 * ox; x < min(2*ox+2, w); x++ {
					i := (y*w + x) * c
					src := in[i : i+c]
					if first {
						copy(dst, src)
						for ch := range at {
							at[ch] = int32(i + ch)
						}
						first = false
						continue
					}
					for ch, v := range src {
						if v > dst[ch] {
							dst[ch], at[ch] = v, int32(i+ch)
						}
					}
				}
			}
		}
	}
}

// dense computes out = W·in + b (W out×in, row-major), with ReLU on
// request, skipping the inputs that are zero.
func dense(in, wt, b, out []float32, relu bool) {
	var nzBuf [flat]int32
	nz := nzBuf[:0]
	for i, v := range in {
		if v != 0 {
			nz = append(nz, int32(i))
		}
	}
	nin := len(in)
	for o := range out {
		row := wt[o*nin : (o+1)*nin]
		s := b[o]
		for _, i := range nz {
			s += float32(row[i] * in[i])
		}
		if relu && s < 0 {
			s = 0
		}
		out[o] = s
	}
}

// denseT is dense with ReLU from weights turned in×out (wt), 24 outputs
// at a time on the vector unit: each output sums its bias and then its
// products over the non-zero inputs in order, as dense does.
func denseT(in, wt, b, out []float32) {
	var vals [flat]float32
	var idx [flat]int32
	n := 0
	for i, v := range in[:flat] {
		if v != 0 {
			vals[n], idx[n] = v, int32(i)
			n++
		}
	}
	no := len(out)
	for g := 0; g+24 <= no; g += 24 {
		dst := out[g : g+24]
		copy(dst, b[g:g+24])
		accum24(dst, wt[g:], vals[:n], idx[:n], no)
		relu(dst)
	}
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
