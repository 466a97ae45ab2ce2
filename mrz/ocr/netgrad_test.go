package ocr

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGradMatchesFiniteDifferences checks the backward pass against the
// change of the loss when single weights of every layer are nudged.
func TestGradMatchesFiniteDifferences(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := NewNet()
	for k := range n.W {
		sd := math.Sqrt(2 / float64(FanIn(k)))
		for i := range n.W[k] {
			n.W[k][i] = float32(r.NormFloat64() * sd)
		}
		for i := range n.B[k] {
			n.B[k][i] = float32(r.NormFloat64() * 0.05)
		}
	}
	x := make([]float32, CellW*CellH)
	for i := range x {
		if r.IntN(3) == 0 {
			x[i] = r.Float32()
		}
	}
	const label = 7
	loss := func() float64 {
		p := make([]float32, None+1)
		n.Forward(x, p, nil)
		return -math.Log(float64(p[label]))
	}
	g := NewGrad()
	g.Accumulate(n, x, label)
	checked := 0
	for k := range n.W {
		for range 12 {
			i := r.IntN(len(n.W[k]))
			if g.W[k][i] == 0 {
				continue
			}
			const eps = 1e-3
			old := n.W[k][i]
			n.W[k][i] = old + eps
			up := loss()
			n.W[k][i] = old - eps
			down := loss()
			n.W[k][i] = old
			num := (up - down) / (2 * eps)
			ana := float64(g.W[k][i])
			if math.Abs(num-ana) > 0.05*math.Abs(ana)+2e-3 {
				t.Errorf("layer %d weight %d: backward %.5f, finite difference %.5f", k, i, ana, num)
			}
			checked++
		}
		i := r.IntN(len(n.B[k]))
		const eps = 1e-3
		old := n.B[k][i]
		n.B[k][i] = old + eps
		up := loss()
		n.B[k][i] = old - eps
		down := loss()
		n.B[k][i] = old
		if num, ana := (up-down)/(2*eps), float64(g.B[k][i]); math.Abs(num-ana) > 0.05*math.Abs(ana)+2e-3 {
			t.Errorf("layer %d bias %d: backward %.5f, finite difference %.5f", k, i, ana, num)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d weights with a gradient checked", checked)
	}
}

func benchNet() (*Net, []float32) {
	r := rand.New(rand.NewPCG(1, 2))
	n := NewNet()
	for k := range n.W {
		sd := math.Sqrt(2 / float64(FanIn(k)))
		for i := range n.W[k] {
			n.W[k][i] = float32(r.NormFloat64() * sd)
		}
	}
	x := make([]float32, CellW*CellH)
	for i := range x {
		if r.IntN(10) < 3 {
			x[i] = r.Float32()
		}
	}
	return n, x
}

func BenchmarkForward(b *testing.B) {
	for _, frozen := range []bool{false, true} {
		b.Run(map[bool]string{false: "training", true: "frozen"}[frozen], func(b *testing.B) {
			n, x := benchNet()
			if frozen {
				n.freeze()
			}
			p := make([]float32, None+1)
			tr := NewTrace()
			for b.Loop() {
				n.Forward(x, p, tr)
			}
		})
	}
}

func BenchmarkAccumulate(b *testing.B) {
	n, x := benchNet()
	g := NewGrad()
	for b.Loop() {
		g.Accumulate(n, x, 3)
	}
}
