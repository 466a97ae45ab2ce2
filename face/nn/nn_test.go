package nn

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func randTensor(r *rand.Rand, h, w, c int) *Tensor {
	t := New(h, w, c)
	for i := range t.Data {
		t.Data[i] = float32(r.NormFloat64())
	}
	return t
}

func randParam(r *rand.Rand, name string, shape ...int) *Param {
	n := 1
	for _, d := range shape {
		n *= d
	}
	p := &Param{Name: name, Shape: shape, Data: make([]float32, n)}
	for i := range p.Data {
		p.Data[i] = float32(r.NormFloat64())
	}
	return p
}

// naiveConv is the textbook definition, in float64, with TensorFlow's
// padding: the reference the im2col path is checked against.
func naiveConv(x *Tensor, f *Param, stride int, pad Padding, depthwise bool) *Tensor {
	kh, kw, cin, cout := f.dims4()
	if depthwise {
		cout = cin
	}
	oh, top := window(x.H, kh, stride, pad)
	ow, left := window(x.W, kw, stride, pad)
	out := New(oh, ow, cout)
	for oy := range oh {
		for ox := range ow {
			for co := range cout {
				var s float64
				for ky := range kh {
					for kx := range kw {
						iy, ix := oy*stride-top+ky, ox*stride-left+kx
						if iy < 0 || iy >= x.H || ix < 0 || ix >= x.W {
							continue
						}
						if depthwise {
							s += float64(x.At(iy, ix, co)) * float64(f.Data[(ky*kw+kx)*cin+co])
							continue
						}
						for ci := range cin {
							s += float64(x.At(iy, ix, ci)) * float64(f.Data[((ky*kw+kx)*cin+ci)*cout+co])
						}
					}
				}
				out.Data[(oy*ow+ox)*cout+co] = float32(s)
			}
		}
	}
	return out
}

func maxDiff(t *testing.T, got, want *Tensor) float64 {
	t.Helper()
	if got.H != want.H || got.W != want.W || got.C != want.C {
		t.Fatalf("shape=%s, want %s", got.Shape(), want.Shape())
	}
	var d float64
	for i := range got.Data {
		d = max(d, math.Abs(float64(got.Data[i]-want.Data[i])))
	}
	return d
}

func TestWindowMatchesTensorFlow(t *testing.T) {
	for _, tt := range []struct {
		n, k, s        int
		pad            Padding
		out, padBefore int
	}{
		{416, 3, 1, Valid, 414, 0},
		{414, 2, 2, Same, 207, 0},
		{207, 2, 2, Same, 104, 0}, // the odd extra column goes after
		{13, 2, 1, Same, 13, 0},
		{112, 3, 2, Same, 56, 0}, // total 1: after
		{56, 3, 1, Same, 56, 1},
		{150, 7, 2, Valid, 72, 0},
		{72, 3, 2, Valid, 35, 0},
		{35, 3, 2, Valid, 17, 0},
		{9, 3, 2, Same, 5, 1},
	} {
		out, before := window(tt.n, tt.k, tt.s, tt.pad)
		if out != tt.out || before != tt.padBefore {
			t.Errorf("window(%d,%d,%d,%v)=%d,%d, want %d,%d", tt.n, tt.k, tt.s, tt.pad, out, before, tt.out, tt.padBefore)
		}
	}
}

func TestConvMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct {
		name              string
		h, w, cin, k, out int
		stride            int
		pad               Padding
	}{
		{"3x3 same", 9, 7, 5, 3, 6, 1, Same},
		{"3x3 same stride 2 odd", 11, 10, 3, 3, 4, 2, Same},
		{"3x3 valid stride 2", 17, 17, 8, 3, 16, 2, Valid},
		{"7x7 valid stride 2", 21, 20, 3, 7, 5, 2, Valid},
		{"1x1", 6, 5, 7, 1, 9, 1, Valid},
		{"1x1 stride 2", 6, 5, 7, 1, 9, 2, Valid},
		{"odd rows for the 4-row kernel", 3, 3, 2, 3, 3, 1, Same},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := randTensor(r, tt.h, tt.w, tt.cin)
			f := randParam(r, "f", tt.k, tt.k, tt.cin, tt.out)
			if d := maxDiff(t, Conv2D(x, f, tt.stride, tt.pad), naiveConv(x, f, tt.stride, tt.pad, false)); d > 1e-4 {
				t.Fatalf("max difference %g", d)
			}
			dw := randParam(r, "dw", tt.k, tt.k, tt.cin, 1)
			if d := maxDiff(t, DepthwiseConv2D(x, dw, tt.stride, tt.pad), naiveConv(x, dw, tt.stride, tt.pad, true)); d > 1e-4 {
				t.Fatalf("depthwise: max difference %g", d)
			}
		})
	}
}

func TestConvDoesNotDependOnGOMAXPROCS(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := randTensor(r, 35, 35, 32)
	f := randParam(r, "f", 3, 3, 32, 32)
	prev := runtime.GOMAXPROCS(1)
	one := Conv2D(x, f, 1, Same)
	runtime.GOMAXPROCS(max(4, prev))
	many := Conv2D(x, f, 1, Same)
	runtime.GOMAXPROCS(prev)
	if !slices.Equal(one.Data, many.Data) {
		t.Fatal("results differ between 1 and several goroutines")
	}
}

func TestPooling(t *testing.T) {
	x := New(3, 3, 1)
	for i := range x.Data {
		x.Data[i] = float32(i) - 4 // -4 … 4
	}
	// Same 2×2 stride 2 on 3: windows {0,1}×{0,1}, {0,1}×{2}, …; the pad
	// after is ignored, not taken as 0 (which would win for negatives).
	if got, want := MaxPool(x, 2, 2, Same).Data, []float32{0, 1, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("MaxPool=%v, want %v", got, want)
	}
	if got, want := AvgPool(x, 2, 2, Valid).Data, []float32{-2}; !slices.Equal(got, want) {
		t.Errorf("AvgPool=%v, want %v", got, want)
	}
	if got, want := AvgPool(x, 2, 2, Same).Data, []float32{-2, -0.5, 2.5, 4}; !slices.Equal(got, want) {
		t.Errorf("AvgPool same=%v, want %v", got, want)
	}
	if got, want := Mean(x), []float32{0}; !slices.Equal(got, want) {
		t.Errorf("Mean=%v, want %v", got, want)
	}
}

func TestActivations(t *testing.T) {
	x := &Tensor{H: 1, W: 1, C: 4, Data: []float32{-2, -0.5, 0, 3}}
	if got, want := (&Tensor{H: 1, W: 1, C: 4, Data: slices.Clone(x.Data)}).LeakyReLU().Data, []float32{-0.2, -0.05, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("LeakyReLU=%v, want %v", got, want)
	}
	if got, want := x.ReLU().Data, []float32{0, 0, 0, 3}; !slices.Equal(got, want) {
		t.Errorf("ReLU=%v, want %v", got, want)
	}
}

func TestPads(t *testing.T) {
	x := &Tensor{H: 1, W: 2, C: 1, Data: []float32{1, 2}}
	if got := PadAfter(x, 1, 1); got.Shape() != "2x3x1" || !slices.Equal(got.Data, []float32{1, 2, 0, 0, 0, 0}) {
		t.Errorf("PadAfter=%s %v", got.Shape(), got.Data)
	}
	if got := PadChannels(x, 2); !slices.Equal(got.Data, []float32{1, 0, 2, 0}) {
		t.Errorf("PadChannels=%v", got.Data)
	}
}

func TestLoadWeightsDequantises(t *testing.T) {
	manifest := `[{"paths":["a.bin","b.bin"],"weights":[
		{"name":"q8","shape":[2,2],"dtype":"float32","quantization":{"dtype":"uint8","scale":0.5,"min":-1}},
		{"name":"f32","shape":[2],"dtype":"float32"},
		{"name":"q16","shape":[1],"dtype":"float32","quantization":{"dtype":"uint16","scale":0.25,"min":1}}]}]`
	bin := []byte{0, 1, 2, 255}
	bin = binary.LittleEndian.AppendUint32(bin, math.Float32bits(1.5))
	bin = binary.LittleEndian.AppendUint32(bin, math.Float32bits(-7))
	bin = binary.LittleEndian.AppendUint16(bin, 400)
	shards := map[string][]byte{"a.bin": bin[:5], "b.bin": bin[5:]} // split mid-weight
	w, err := LoadWeights([]byte(manifest), func(p string) ([]byte, error) { return shards[p], nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		shape []int
		want  []float32
	}{
		{"q8", []int{2, 2}, []float32{-1, -0.5, 0, 126.5}},
		{"f32", []int{2}, []float32{1.5, -7}},
		{"q16", []int{1}, []float32{101}},
	} {
		p, err := w.Take(tt.name, tt.shape...)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(p.Data, tt.want) {
			t.Errorf("%s=%v, want %v", tt.name, p.Data, tt.want)
		}
	}
	if u := w.Unused(); len(u) != 0 {
		t.Errorf("Unused=%v", u)
	}
	if _, err := w.Take("f32", 1, 2); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Errorf("wrong shape: err=%v", err)
	}
	if _, err := w.Take("nope"); err == nil {
		t.Error("missing weight: no error")
	}
}

func TestLoadWeightsRejectsBadFiles(t *testing.T) {
	one := func(string) ([]byte, error) { return []byte{1, 2, 3}, nil }
	for _, tt := range []struct{ name, manifest string }{
		{"not json", `{`},
		{"short shard", `[{"paths":["a"],"weights":[{"name":"x","shape":[4],"dtype":"float32","quantization":{"dtype":"uint8","scale":1,"min":0}}]}]`},
		{"long shard", `[{"paths":["a"],"weights":[{"name":"x","shape":[2],"dtype":"float32","quantization":{"dtype":"uint8","scale":1,"min":0}}]}]`},
		{"int32 short", `[{"paths":["a"],"weights":[{"name":"x","shape":[1],"dtype":"int32"}]}]`},
		{"int32 quantised", `[{"paths":["a"],"weights":[{"name":"x","shape":[3],"dtype":"int32","quantization":{"dtype":"uint8","scale":1,"min":0}}]}]`},
		{"int8 quantisation", `[{"paths":["a"],"weights":[{"name":"x","shape":[3],"dtype":"float32","quantization":{"dtype":"int8","scale":1,"min":0}}]}]`},
		{"bool", `[{"paths":["a"],"weights":[{"name":"x","shape":[3],"dtype":"bool"}]}]`},
	} {
		if _, err := LoadWeights([]byte(tt.manifest), one); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func BenchmarkConv3x3(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	x := randTensor(r, 35, 35, 32)
	f := randParam(r, "f", 3, 3, 32, 32)
	b.SetBytes(int64(35 * 35 * 32 * 32 * 9 * 2)) // "bytes" = flops: MB/s reads as MFLOP/s
	for b.Loop() {
		Conv2D(x, f, 1, Same)
	}
}

func BenchmarkConv3x3Deep(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	x := randTensor(r, 8, 8, 128)
	f := randParam(r, "f", 3, 3, 128, 128)
	b.SetBytes(int64(8 * 8 * 128 * 128 * 9 * 2))
	for b.Loop() {
		Conv2D(x, f, 1, Same)
	}
}
