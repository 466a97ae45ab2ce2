package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"kycd/mrz/ocr"
)

// initNet draws He-initialised weights.
func initNet(r *rand.Rand) *ocr.Net {
	n := ocr.NewNet()
	for k := range n.W {
		sd := math.Sqrt(2 / float64(ocr.FanIn(k)))
		for i := range n.W[k] {
			n.W[k][i] = float32(r.NormFloat64() * sd)
		}
	}
	return n
}

// trainer runs minibatch SGD with momentum and weight decay, one sample
// at a time in a fixed order.
type trainer struct {
	net    *ocr.Net
	g      *ocr.Grad   // gradient sums of the batch
	vW, vB [][]float32 // momentum
	x      []float32
	probs  []float32
	tr     *ocr.Trace
}

func newTrainer(n *ocr.Net) *trainer {
	t := &trainer{net: n, g: ocr.NewGrad(), x: make([]float32, cellSize), probs: make([]float32, ocr.None+1), tr: ocr.NewTrace()}
	for k := range n.W {
		t.vW = append(t.vW, make([]float32, len(n.W[k])))
		t.vB = append(t.vB, make([]float32, len(n.B[k])))
	}
	return t
}

// accumulate adds the cross-entropy gradient of one sample and returns its
// loss.
func (t *trainer) accumulate(x []float32, label int) float32 {
	return t.g.Accumulate(t.net, x, label)
}

// step applies the batch's mean gradient.
func (t *trainer) step(batch int, lr, momentum, decay float32) {
	scale := 1 / float32(batch)
	for k := range t.net.W {
		w, g, v := t.net.W[k], t.g.W[k], t.vW[k]
		for i := range w {
			v[i] = momentum*v[i] - lr*(float32(g[i]*scale)+float32(decay*w[i]))
			w[i] += v[i]
			g[i] = 0
		}
		b, gb, vb := t.net.B[k], t.g.B[k], t.vB[k]
		for i := range b {
			vb[i] = momentum*vb[i] - lr*float32(gb[i]*scale)
			b[i] += vb[i]
			gb[i] = 0
		}
	}
}

func (t *trainer) load(s *sampleSet, i int) []float32 {
	for k, v := range s.x[i*cellSize : (i+1)*cellSize] {
		t.x[k] = float32(v) / 255
	}
	return t.x
}

// train runs epochs over s in a shuffled order drawn from r. Each batch
// is split between two workers with gradient buffers of their own, which
// are then added in a fixed order: twice the speed on two cores, and the
// same weights as one worker would give, bit for bit, on every run.
func train(r *rand.Rand, n *ocr.Net, s, val *sampleSet, epochs int, logf func(string, ...any)) {
	workers := [2]*trainer{newTrainer(n), newTrainer(n)}
	const batch = 32
	order := make([]int, s.len())
	for i := range order {
		order[i] = i
	}
	total := epochs * len(order) / batch
	stepN := 0
	for e := range epochs {
		start := time.Now()
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var loss [2]float64
		for b := 0; b+batch <= len(order); b += batch {
			var wg sync.WaitGroup
			for k, t := range workers {
				part := order[b+k*batch/2 : b+(k+1)*batch/2]
				wg.Go(func() {
					for _, i := range part {
						loss[k] += float64(t.accumulate(t.load(s, i), int(s.y[i])))
					}
				})
			}
			wg.Wait()
			a, c := workers[0], workers[1]
			for l := range a.g.W {
				for i, v := range c.g.W[l] {
					a.g.W[l][i] += v
					c.g.W[l][i] = 0
				}
				for i, v := range c.g.B[l] {
					a.g.B[l][i] += v
					c.g.B[l][i] = 0
				}
			}
			// Cosine decay from 0.05 to 0.
			lr := float32(0.05 * 0.5 * (1 + math.Cos(math.Pi*float64(stepN)/float64(total))))
			a.step(batch, lr, 0.9, 1e-5)
			stepN++
		}
		acc := accuracy(n, val)
		logf("epoch %d: loss %.4f, validation accuracy %.4f (%s)", e+1, (loss[0]+loss[1])/float64(len(order)), acc, time.Since(start).Round(time.Second))
	}
}

func accuracy(n *ocr.Net, s *sampleSet) float64 {
	t := newTrainer(n)
	ok := 0
	for i := range s.len() {
		n.Forward(t.load(s, i), t.probs, t.tr)
		if argmax(t.probs) == int(s.y[i]) {
			ok++
		}
	}
	return float64(ok) / float64(max(1, s.len()))
}

func argmax(p []float32) int {
	best := 0
	for i, v := range p {
		if v > p[best] {
			best = i
		}
	}
	return best
}

// report prints the validation errors by true symbol and how confident
// the wrong answers were.
func report(n *ocr.Net, s *sampleSet, logf func(string, ...any)) {
	t := newTrainer(n)
	names := ocr.Alphabet + "_"
	errs := map[string]int{}
	var confident [4]int // wrong answers with p > 0.5, 0.9, 0.99, 0.999
	for i := range s.len() {
		n.Forward(t.load(s, i), t.probs, t.tr)
		a := argmax(t.probs)
		if a == int(s.y[i]) {
			continue
		}
		errs[fmt.Sprintf("%c→%c", names[s.y[i]], names[a])]++
		for k, th := range []float32{0.5, 0.9, 0.99, 0.999} {
			if t.probs[a] > th {
				confident[k]++
			}
		}
	}
	logf("validation: %d samples; wrong with p>0.5: %d, >0.9: %d, >0.99: %d, >0.999: %d", s.len(), confident[0], confident[1], confident[2], confident[3])
	logf("confusions (true→read): %v", errs)
}
