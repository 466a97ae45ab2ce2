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
	n := &ocr.Net{}
	for k := 1; k < len(ocr.Layers); k++ {
		in, out := ocr.Layers[k-1], ocr.Layers[k]
		w := make([]float32, in*out)
		sd := math.Sqrt(2 / float64(in))
		for i := range w {
			w[i] = float32(r.NormFloat64() * sd)
		}
		n.W = append(n.W, w)
		n.B = append(n.B, make([]float32, out))
	}
	return n
}

// trainer runs minibatch SGD with momentum and weight decay, one sample
// at a time in a fixed order: single-threaded, so the weights come out
// the same on every run.
type trainer struct {
	net          *ocr.Net
	gW, gB       [][]float32 // gradient sums of the batch
	vW, vB       [][]float32 // momentum
	acts, deltas [][]float32
	x, probs     []float32
}

func newTrainer(n *ocr.Net) *trainer {
	t := &trainer{net: n, x: make([]float32, cellSize), probs: make([]float32, ocr.Layers[len(ocr.Layers)-1])}
	for k := range n.W {
		t.gW = append(t.gW, make([]float32, len(n.W[k])))
		t.gB = append(t.gB, make([]float32, len(n.B[k])))
		t.vW = append(t.vW, make([]float32, len(n.W[k])))
		t.vB = append(t.vB, make([]float32, len(n.B[k])))
		t.acts = append(t.acts, make([]float32, ocr.Layers[k+1]))
		t.deltas = append(t.deltas, make([]float32, ocr.Layers[k+1]))
	}
	return t
}

// accumulate adds the cross-entropy gradient of one sample and returns its
// loss.
func (t *trainer) accumulate(x []float32, label int) float32 {
	n := t.net
	n.Forward(x, t.probs, t.acts)
	last := len(n.W) - 1
	for o := range t.deltas[last] {
		t.deltas[last][o] = t.probs[o]
	}
	t.deltas[last][label] -= 1
	for k := last; k >= 0; k-- {
		in := ocr.Layers[k]
		prev := x
		if k > 0 {
			prev = t.acts[k-1]
		}
		d := t.deltas[k]
		gw, w := t.gW[k], n.W[k]
		for o, dv := range d {
			if dv == 0 {
				continue
			}
			t.gB[k][o] += dv
			row := gw[o*in : (o+1)*in]
			for i, a := range prev {
				row[i] += float32(dv * a)
			}
		}
		if k == 0 {
			break
		}
		pd := t.deltas[k-1]
		for i := range pd {
			if t.acts[k-1][i] <= 0 {
				pd[i] = 0
				continue
			}
			var s float32
			for o, dv := range d {
				s += float32(w[o*in+i] * dv)
			}
			pd[i] = s
		}
	}
	return -float32(math.Log(float64(max(t.probs[label], 1e-30))))
}

// step applies the batch's mean gradient.
func (t *trainer) step(batch int, lr, momentum, decay float32) {
	scale := 1 / float32(batch)
	for k := range t.net.W {
		w, g, v := t.net.W[k], t.gW[k], t.vW[k]
		for i := range w {
			v[i] = momentum*v[i] - lr*(float32(g[i]*scale)+float32(decay*w[i]))
			w[i] += v[i]
			g[i] = 0
		}
		b, gb, vb := t.net.B[k], t.gB[k], t.vB[k]
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
			for l := range a.gW {
				for i, v := range c.gW[l] {
					a.gW[l][i] += v
					c.gW[l][i] = 0
				}
				for i, v := range c.gB[l] {
					a.gB[l][i] += v
					c.gB[l][i] = 0
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
		n.Forward(t.load(s, i), t.probs, nil)
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
		n.Forward(t.load(s, i), t.probs, nil)
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
