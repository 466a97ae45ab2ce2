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

// TestConvMatchesScatter: the convolution summed twelve outputs at a
// time in registers gives the scattered sums bit for bit (zero's sign
// aside, which no later layer can tell).
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
			fast := make([]float32, tc.h*tc.w*tc.co)
			plain := make([]float32, len(fast))
			conv3(in, tc.h, tc.w, tc.ci, wt, b, tc.co, fast)
			convScatter(in, tc.h, tc.w, tc.ci, wt, b, tc.co, plain)
			for i := range fast {
				if fast[i] != plain[i] {
					t.Fatalf("%+v trial %d: output %d is %v, scattered %v", tc, trial, i, fast[i], plain[i])
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
