package ocr

import "math"

// Grad holds gradient sums in the shape of a Net's weights, and the
// scratch of one backward pass. Only the training program
// (tools/mrztrain) uses it; it lives here, beside Forward, so that the
// two passes cannot drift apart.
type Grad struct {
	W, B           [][]float32
	dH, dP2, dC2   []float32
	dP1, dC1       []float32
	dLogits, probs []float32
	tr             *Trace
}

// NewGrad returns zero gradient sums.
func NewGrad() *Grad {
	g := &Grad{
		dH: make([]float32, Hidden), dP2: make([]float32, flat), dC2: make([]float32, h1*w1*Conv2),
		dP1: make([]float32, h1*w1*Conv1), dC1: make([]float32, CellH*CellW*Conv1),
		dLogits: make([]float32, None+1), probs: make([]float32, None+1), tr: NewTrace(),
	}
	for _, s := range shapes {
		g.W = append(g.W, make([]float32, s[0]))
		g.B = append(g.B, make([]float32, s[1]))
	}
	return g
}

// Accumulate runs n on x, adds the gradient of the cross-entropy loss for
// label to g and returns the loss. The order of every sum is fixed.
func (g *Grad) Accumulate(n *Net, x []float32, label int) float32 {
	tr := g.tr
	n.Forward(x, g.probs, tr)
	for o := range g.dLogits {
		g.dLogits[o] = g.probs[o]
	}
	g.dLogits[label] -= 1
	// Dense layers, last first.
	denseBack(tr.H, n.W[3], g.dLogits, g.W[3], g.B[3], g.dH)
	for i, v := range tr.H {
		if v <= 0 {
			g.dH[i] = 0
		}
	}
	denseBack(tr.P2, n.W[2], g.dH, g.W[2], g.B[2], g.dP2)
	// Pool 2 routes each gradient to its maximum; ReLU passes it where
	// the unit was active.
	unpool(g.dP2, tr.A2, tr.C2, g.dC2)
	convBack(tr.P1, h1, w1, Conv1, n.W[1], g.dC2, Conv2, g.W[1], g.B[1], g.dP1)
	unpool(g.dP1, tr.A1, tr.C1, g.dC1)
	convBack(x, CellH, CellW, 1, n.W[0], g.dC1, Conv1, g.W[0], g.B[0], nil)
	return -float32(math.Log(float64(max(g.probs[label], 1e-30))))
}

// denseBack adds d·inᵀ to gW and d to gB, and writes Wᵀ·d into din.
func denseBack(in, wt, d, gW, gB, din []float32) {
	nin := len(in)
	for i := range din {
		din[i] = 0
	}
	for o, dv := range d {
		if dv == 0 {
			continue
		}
		gB[o] += dv
		row := gW[o*nin : (o+1)*nin]
		for i, a := range in {
			if a != 0 {
				row[i] += float32(dv * a)
			}
		}
		wr := wt[o*nin : (o+1)*nin]
		for i := range din {
			din[i] += float32(wr[i] * dv)
		}
	}
}

// unpool sends each pooled gradient to the unit that was the maximum,
// where that unit was active.
func unpool(dp []float32, arg []int32, c, dc []float32) {
	for i := range dc {
		dc[i] = 0
	}
	for k, i := range arg {
		if c[i] > 0 {
			dc[i] += dp[k]
		}
	}
}

// convBack is conv3's backward pass: it adds the weight and bias
// gradients of the outputs' gradient dout (h×w×co) and, when din is not
// nil, writes the input's gradient. Inputs that are zero contribute
// nothing to the weights, and their own gradient is not needed: a zero
// input of a later layer is a unit ReLU or pooling left inactive.
func convBack(in []float32, h, w, ci int, wt, dout []float32, co int, gW, gB, din []float32) {
	for p := range h * w {
		d := dout[p*co : (p+1)*co]
		for o, v := range d {
			gB[o] += v
		}
	}
	if din != nil {
		for i := range din {
			din[i] = 0
		}
	}
	for y := range h {
		for x := range w {
			src := in[(y*w+x)*ci : (y*w+x+1)*ci]
			for c, v := range src {
				if v == 0 {
					continue
				}
				var acc float32
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
						d := dout[(oy*w+ox)*co : (oy*w+ox+1)*co]
						gw := gW[k : k+co]
						gw = gw[:len(d)]
						wr := wt[k : k+co]
						wr = wr[:len(d)]
						for o, dv := range d {
							gw[o] += float32(v * dv)
							acc += float32(wr[o] * dv)
						}
					}
				}
				if din != nil {
					din[(y*w+x)*ci+c] = acc
				}
			}
		}
	}
}
