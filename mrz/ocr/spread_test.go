package ocr

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"
)

// TestConvMatchesScatter: the convolution summed on the vector unit, or
// twelve outputs at a time in registers, gives the scattered sums bit
// for bit (zero's sign aside, which no later layer can tell).
func TestConvMatchesScatter(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct{ h, w, ci, co int }{
		{CellH, CellW, 1, Conv1}, {h1, w1, Conv1, Conv2}, {5, 3, 2, 12}, {1, 1, 3, 24},
	} {
		wt := make([]float32, 9*tc.ci*tc.co)
		for i := range wt {
			wt[i] = float32(r.NormFloat64())
		}
		b := make([]float32, tc.co)
		for i := range b {
			b[i] = float32(r.NormFloat64() / 4)
		}
		for trial := range 20 {
			in := make([]float32, tc.h*tc.w*tc.ci)
			for i := range in {
				if r.IntN(10) < 1+trial%9 {
					in[i] = r.Float32() * 3
				}
			}
			plain := make([]float32, tc.h*tc.w*tc.co)
			convScatter(in, tc.h, tc.w, tc.ci, wt, b, tc.co, plain)
			// With scratch: the vector unit where there is one; without,
			// twelve sums in registers.
			for _, sc := range []*accumScratch{new(accumScratch), nil} {
				fast := make([]float32, len(plain))
				conv3(in, tc.h, tc.w, tc.ci, wt, b, tc.co, fast, sc)
				for i := range fast {
					if fast[i] != plain[i] {
						t.Fatalf("%+v trial %d (scratch %v): output %d is %v, scattered %v", tc, trial, sc != nil, i, fast[i], plain[i])
					}
				}
			}
		}
	}
}

// TestFrozenForwardMatches: the frozen net (its dense layer on the vector
// unit) gives the training net's probabilities bit for bit, and
// accum24 its plain loop's sums.
func TestFrozenForwardMatches(t *testing.T) {
	n, _ := benchNet()
	f, _ := benchNet()
	f.freeze()
	if hasVectorSums && f.hiddenT == nil {
		t.Fatal("the vector unit is there but the net did not freeze")
	}
	r := rand.New(rand.NewPCG(9, 10))
	p, q := make([]float32, None+1), make([]float32, None+1)
	for trial := range 200 {
		x := make([]float32, CellW*CellH)
		for i := range x {
			if r.IntN(10) < 1+trial%8 {
				x[i] = r.Float32()
			}
		}
		n.Forward(x, p, nil)
		f.Forward(x, q, nil)
		for i := range p {
			if math.Float32bits(p[i]) != math.Float32bits(q[i]) {
				t.Fatalf("trial %d: output %d is %v frozen, %v training", trial, i, q[i], p[i])
			}
		}
	}
	for _, stride := range []int{24, 40} {
		w := make([]float32, 30*stride)
		for i := range w {
			w[i] = float32(r.NormFloat64())
		}
		for n := range 31 {
			vals, idx := make([]float32, n), make([]int32, n)
			for i := range n {
				vals[i], idx[i] = float32(r.NormFloat64()), int32(r.IntN(30))
			}
			a, b := make([]float32, 24), make([]float32, 24)
			for i := range a {
				a[i] = float32(r.NormFloat64())
				b[i] = a[i]
			}
			accum24(a, w, vals, idx, stride)
			accum24Go(b, w, vals, idx, stride)
			for i := range a {
				if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
					t.Fatalf("stride %d, %d terms: lane %d is %v, plain loop %v", stride, n, i, a[i], b[i])
				}
			}
		}
	}
}

// TestPoolMatchesChannelwise: pooling every channel of a pixel at once
// keeps each channel's first maximum and where it was, as pooling one
// channel at a time does.
func TestPoolMatchesChannelwise(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct{ h, w, c int }{{CellH, CellW, Conv1}, {h1, w1, Conv2}, {3, 5, 2}, {1, 1, 4}} {
		in := make([]float32, tc.h*tc.w*tc.c)
		for i := range in {
			in[i] = float32(r.IntN(4)) // ties, often
		}
		oh, ow := (tc.h+1)/2, (tc.w+1)/2
		out, arg := make([]float32, oh*ow*tc.c), make([]int32, oh*ow*tc.c)
		pool2(in, tc.h, tc.w, tc.c, out, arg)
		for oy := range oh {
			for ox := range ow {
				for ch := range tc.c {
					best, bi := float32(math.Inf(-1)), int32(0)
					for y := 2 * oy; y < min(2*oy+2, tc.h); y++ {
						for x := 2 * ox; x < min(2*ox+2, tc.w); x++ {
							if i := (y*tc.w+x)*tc.c + ch; in[i] > best {
								best, bi = in[i], int32(i)
							}
						}
					}
					k := (oy*ow+ox)*tc.c + ch
					if out[k] != best || arg[k] != bi {
						t.Fatalf("%+v (%d,%d) channel %d: %v at %d, want %v at %d", tc, ox, oy, ch, out[k], arg[k], best, bi)
					}
				}
			}
		}
	}
}

// TestInkMaskMatchesFormula: the mask that skips the root for pixels
// near the mean marks exactly the pixels the threshold's formula marks.
func TestInkMaskMatchesFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	p := newPlane(97, 61)
	for i := range p.pix {
		p.pix[i] = float32(200 + r.NormFloat64()*20)
		if r.IntN(8) == 0 {
			p.pix[i] = float32(r.IntN(120))
		}
	}
	const rad = 6
	got := inkMask(p, rad)
	for y := range p.h {
		for x := range p.w {
			var s, q, n float64
			for yy := max(0, y-rad); yy < min(p.h, y+rad+1); yy++ {
				for xx := max(0, x-rad); xx < min(p.w, x+rad+1); xx++ {
					v := float64(p.pix[yy*p.w+xx])
					s, q, n = s+v, q+v*v, n+1
				}
			}
			m := s / n
			sd := math.Sqrt(max(q/n-m*m, 0))
			v := float64(p.pix[y*p.w+x])
			// Away from the threshold only: the integral image's
			// rounding may differ from this direct sum's right at it.
			if math.Abs(v-(m-max(8, 0.3*sd))) < 1e-6 {
				continue
			}
			if want := v < m-max(8, 0.3*sd); got[y*p.w+x] != want {
				t.Fatalf("(%d,%d): ink %v, formula %v", x, y, got[y*p.w+x], want)
			}
		}
	}
}

// TestBlobsBothWays: the transposed view's blobs, derived from one
// labelling, are those of labelling the transposed mask, in its order.
func TestBlobsBothWays(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 31 {
		w, h := 1+r.IntN(60), 1+r.IntN(60)
		mask := make([]bool, w*h)
		// Clumps and strokes, not salt: components of many shapes.
		for range 1 + r.IntN(40) {
			x, y := r.IntN(w), r.IntN(h)
			for range r.IntN(30) {
				mask[y*w+x] = true
				x = min(w-1, max(0, x+r.IntN(3)-1))
				y = min(h-1, max(0, y+r.IntN(3)-1))
			}
		}
		if trial == 30 {
			// Two blobs starting in the same column, the one whose top
			// is higher starting lower in it: the transposed order is
			// not the order of their tops.
			w, h = 4, 8
			mask = make([]bool, w*h)
			for _, p := range [][2]int{{0, 6}, {1, 5}, {2, 4}, {2, 3}, {2, 2}, {2, 1}, {2, 0}, {0, 2}} {
				mask[p[1]*w+p[0]] = true
			}
		}
		tmask := make([]bool, w*h)
		for y := range h {
			for x := range w {
				tmask[x*h+y] = mask[y*w+x]
			}
		}
		out, turned := blobsBothWays(mask, w, h)
		if want := blobs(tmask, h, w); !reflect.DeepEqual(turned, want) {
			t.Fatalf("trial %d (%dx%d): turned %v, labelling the transpose %v", trial, w, h, turned, want)
		}
		if len(out) != len(turned) {
			t.Fatalf("trial %d: %d blobs one way, %d the other", trial, len(out), len(turned))
		}
	}
}

// TestReadSameOnOneCore: a read spread over several cores is the read
// on one, field for field.
func TestReadSameOnOneCore(t *testing.T) {
	if testing.Short() {
		t.Skip("reads photos twice")
	}
	dir, _ := loadTruth(t)
	ref := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	read := func(procs int, name string, deg float64) *Result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		img := decodeFile(t, filepath.Join(dir, name))
		if deg != 0 {
			img = rotate(img, deg)
		}
		r, err := Read(img, ref)
		if err != nil {
			t.Fatal(err)
		}
		r.Elapsed = 0
		return r
	}
	for _, c := range []struct {
		name string
		deg  float64
	}{
		{"doc_td3_ltu_passport_specimen.jpg", 0},
		{"doc_td1_che_id_back.jpg", 197},
		{"doc_td3_deu_passport_specimen.jpg", 12},
		{"doc_mrvb_pol_visa_specimen.jpg", 90},
	} {
		one, many := read(1, c.name, c.deg), read(4, c.name, c.deg)
		if !reflect.DeepEqual(one, many) {
			t.Errorf("%s turned %v°: one core %v, four %v", c.name, c.deg, one, many)
		}
	}
}
