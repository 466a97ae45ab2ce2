package nn

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestHalfToFloat(t *testing.T) {
	for _, tt := range []struct {
		h    uint16
		want float32
	}{
		{0x0000, 0},
		{0x3c00, 1},
		{0xc000, -2},
		{0x3555, 0.333251953125},
		{0x7bff, 65504},                 // largest half
		{0x0400, 6.103515625e-05},       // smallest normal
		{0x0001, 5.960464477539063e-08}, // smallest subnormal
		{0x03ff, 6.097555160522461e-05}, // largest subnormal
		{0x8001, -5.960464477539063e-08},
	} {
		if got := halfToFloat(tt.h); got != tt.want {
			t.Errorf("halfToFloat(%#04x)=%g, want %g", tt.h, got, tt.want)
		}
	}
	if got := halfToFloat(0x7c00); !math.IsInf(float64(got), 1) {
		t.Errorf("halfToFloat(inf)=%g", got)
	}
	if got := halfToFloat(0x7e00); !math.IsNaN(float64(got)) {
		t.Errorf("halfToFloat(nan)=%g", got)
	}
	if got := halfToFloat(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("halfToFloat(-0)=%g", got)
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// tinyGraph is a graph model in TensorFlow.js's format: a 2×2×1 input,
// a 1×1 fused convolution to 2 channels (bias, relu), a 2×2 max pool, a
// per-channel multiply and add, a flatten, a fused matmul to 2 outputs
// and a softmax. extra is spliced into the node list.
func tinyGraph(extra string) (string, []byte) {
	node := func(name, op string, inputs []string, attrs string) string {
		in := jsonList(inputs)
		return fmt.Sprintf(`{"name":%q,"op":%q,"input":%s,"attr":{%s}}`, name, op, in, attrs)
	}
	nhwc := `"data_format":{"s":"` + b64("NHWC") + `"}`
	nodes := []string{
		node("x", "Placeholder", nil, `"shape":{"shape":{"dim":[{"size":"-1"},{"size":"2"},{"size":"2"},{"size":"1"}]}}`),
		node("w", "Const", nil, ""), node("b", "Const", nil, ""), node("s", "Const", nil, ""),
		node("o", "Const", nil, ""), node("shape", "Const", nil, ""), node("m", "Const", nil, ""), node("mb", "Const", nil, ""),
		node("conv", "_FusedConv2D", []string{"x", "w", "b"}, nhwc+`,"strides":{"list":{"i":["1","1","1","1"]}},"padding":{"s":"`+b64("VALID")+`"},"num_args":{"i":"1"},"fused_ops":{"list":{"s":["`+b64("BiasAdd")+`","`+b64("Relu")+`"]}},"dilations":{"list":{"i":["1","1","1","1"]}}`),
		node("pool", "MaxPool", []string{"conv"}, nhwc+`,"strides":{"list":{"i":["1","2","2","1"]}},"ksize":{"list":{"i":["1","2","2","1"]}},"padding":{"s":"`+b64("VALID")+`"}`),
		node("mul", "Mul", []string{"pool", "s"}, ""),
		node("add", "Add", []string{"mul", "o"}, ""),
		node("flat", "Reshape", []string{"add", "shape"}, ""),
		node("mm", "_FusedMatMul", []string{"flat", "m", "mb"}, `"num_args":{"i":"1"},"fused_ops":{"list":{"s":["`+b64("BiasAdd")+`"]}},"transpose_a":{"b":false},"transpose_b":{"b":false}`),
		node("sm", "Softmax", []string{"mm"}, ""),
		node("Identity", "Identity", []string{"sm"}, ""),
	}
	if extra != "" {
		nodes = append(nodes, extra)
	}
	model := `{"format":"graph-model","modelTopology":{"node":[` + strings.Join(nodes, ",") + `]},
	"signature":{"inputs":{"x":{"name":"x:0"}},"outputs":{"y":{"name":"Identity:0"}}},
	"weightsManifest":[{"paths":["g.bin"],"weights":[
		{"name":"w","shape":[1,1,1,2],"dtype":"float32"},
		{"name":"b","shape":[2],"dtype":"float32","quantization":{"dtype":"float16","original_dtype":"float32"}},
		{"name":"s","shape":[2],"dtype":"float32"},
		{"name":"o","shape":[2],"dtype":"float32"},
		{"name":"shape","shape":[2],"dtype":"int32"},
		{"name":"m","shape":[2,2],"dtype":"float32"},
		{"name":"mb","shape":[2],"dtype":"float32"}]}]}`
	var bin []byte
	f32 := func(v ...float32) {
		for _, x := range v {
			bin = binary.LittleEndian.AppendUint32(bin, math.Float32bits(x))
		}
	}
	f32(1, -1)                                                  // w: channel 0 = x, channel 1 = -x
	bin = binary.LittleEndian.AppendUint16(bin, 0x3c00)         // b: 1
	bin = binary.LittleEndian.AppendUint16(bin, 0x0000)         //    0
	f32(2, 3)                                                   // s
	f32(0.5, -0.5)                                              // o
	bin = binary.LittleEndian.AppendUint32(bin, math.MaxUint32) // -1
	bin = binary.LittleEndian.AppendUint32(bin, 2)
	f32(1, 0, 0, 1) // m: identity
	f32(0, 0)       // mb
	return model, bin
}

func jsonList(v []string) string {
	if v == nil {
		return "[]"
	}
	q := make([]string, len(v))
	for i, s := range v {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

func TestGraphRuns(t *testing.T) {
	model, bin := tinyGraph("")
	g, err := LoadGraph([]byte(model), func(p string) ([]byte, error) {
		if p != "g.bin" {
			return nil, fmt.Errorf("no %s", p)
		}
		return bin, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if g.InputH != 2 || g.InputW != 2 || g.InputC != 1 {
		t.Fatalf("input %dx%dx%d", g.InputH, g.InputW, g.InputC)
	}
	x := &Tensor{H: 2, W: 2, C: 1, Data: []float32{-3, 0.5, 2, 1}}
	got, err := g.Run(x)
	if err != nil {
		t.Fatal(err)
	}
	// conv+relu: ch0 = relu(x+1) → max 3; ch1 = relu(-x) → max 3.
	// mul+add: 3·2+0.5 = 6.5, 3·3−0.5 = 8.5; softmax.
	e := math.Exp(6.5 - 8.5)
	want := []float32{float32(e / (1 + e)), float32(1 / (1 + e))}
	if !slices.Equal(got, want) {
		t.Errorf("Run=%v, want %v", got, want)
	}
	if _, err := g.Run(New(3, 2, 1)); err == nil {
		t.Error("wrong input shape: no error")
	}
	if !slices.Equal(x.Data, []float32{-3, 0.5, 2, 1}) {
		t.Error("Run changed its input")
	}
}

func TestLoadGraphRefuses(t *testing.T) {
	good, bin := tinyGraph("")
	for _, tt := range []struct{ name, model, want string }{
		{"not json", `{`, "graph model"},
		{"layers model", `{"format":"layers-model"}`, "format"},
		{"unknown op", strings.Replace(good, `"op":"Softmax"`, `"op":"LogSoftmax"`, 1), "not supported"},
		{"nchw", strings.Replace(good, b64("NHWC"), b64("NCHW"), 1), "NCHW"},
		{"dilated", strings.Replace(good, `"dilations":{"list":{"i":["1","1","1","1"]}}`, `"dilations":{"list":{"i":["1","2","2","1"]}}`, 1), "dilations"},
		{"fused op", strings.Replace(good, b64("Relu")+`"]`, b64("Relu6")+`"]`, 1), "fused"},
		{"padding", strings.Replace(good, b64("VALID"), b64("EXPLICIT"), 1), "padding"},
		{"missing input", strings.Replace(good, `"input":["pool","s"]`, `"input":["pool2","s"]`, 1), "missing"},
		{"const image", strings.Replace(good, `"input":["pool","s"]`, `"input":["s","pool"]`, 1), "constant"},
		{"weight without a node", strings.Replace(good, `{"name":"mb","shape":[2],"dtype":"float32"}`,
			`{"name":"mb","shape":[2],"dtype":"float32"},{"name":"zz","shape":[1],"dtype":"float32"}`, 1), "without a node"},
		{"batch input", strings.Replace(good, `{"size":"-1"},{"size":"2"}`, `{"size":"4"},{"size":"2"}`, 1), "input shape"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadGraph([]byte(tt.model), func(string) ([]byte, error) {
				if strings.Contains(tt.model, `"zz"`) {
					return append(slices.Clone(bin), 0, 0, 0, 0), nil
				}
				return bin, nil
			})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err=%v, want one mentioning %q", err, tt.want)
			}
		})
	}
}
