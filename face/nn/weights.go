package nn

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Param is one named weight tensor of a model, decoded to float32. An
// int32 tensor (a graph model's shape constants) has Ints instead.
type Param struct {
	Name  string
	Shape []int
	Data  []float32
	Ints  []int32
}

func (p *Param) dims4() (int, int, int, int) {
	if len(p.Shape) != 4 {
		panic(fmt.Sprintf("nn: %s has shape %v, want 4 dimensions", p.Name, p.Shape))
	}
	return p.Shape[0], p.Shape[1], p.Shape[2], p.Shape[3]
}

// Weights are a model's parameters by name, as a TensorFlow.js weights
// manifest lists them. Take hands them to the layers and Unused reports
// any the model never asked for, which catches a misspelt name.
type Weights struct {
	params map[string]*Param
	taken  map[string]bool
}

// manifestGroup is one entry of a TensorFlow.js weights manifest: weights
// stored one after another across the concatenation of its shard files.
type manifestGroup struct {
	Paths   []string         `json:"paths"`
	Weights []manifestWeight `json:"weights"`
}

type manifestWeight struct {
	Name         string        `json:"name"`
	Shape        []int         `json:"shape"`
	Dtype        string        `json:"dtype"`
	Quantization *quantization `json:"quantization"`
}

// quantization is TensorFlow.js's weight quantisation: the stored unsigned
// integers q stand for q·Scale + Min (uint8, uint16), or the weights are
// stored as IEEE half-precision floats (float16).
type quantization struct {
	Dtype string  `json:"dtype"`
	Scale float64 `json:"scale"`
	Min   float64 `json:"min"`
}

// LoadWeights decodes a TensorFlow.js weights manifest (the
// "*-weights_manifest.json" of a converted model) and its shards, read by
// name with shard. Float32 weights may be stored as float32, as float16,
// or quantised to uint8 or uint16 with a scale and minimum; they are
// dequantised as TensorFlow.js does (q·scale + min in double precision,
// then rounded to float32; a half float widened exactly), so the values
// are the ones the reference implementation uses. Int32 weights are kept
// as integers.
func LoadWeights(manifest []byte, shard func(path string) ([]byte, error)) (*Weights, error) {
	var groups []manifestGroup
	if err := json.Unmarshal(manifest, &groups); err != nil {
		return nil, fmt.Errorf("nn: weights manifest: %w", err)
	}
	return loadGroups(groups, shard)
}

func loadGroups(groups []manifestGroup, shard func(path string) ([]byte, error)) (*Weights, error) {
	w := &Weights{params: map[string]*Param{}, taken: map[string]bool{}}
	for _, g := range groups {
		var buf []byte
		for _, p := range g.Paths {
			b, err := shard(p)
			if err != nil {
				return nil, fmt.Errorf("nn: weights shard %s: %w", p, err)
			}
			buf = append(buf, b...)
		}
		off := 0
		for _, spec := range g.Weights {
			p, n, err := decodeWeight(spec, buf[off:])
			if err != nil {
				return nil, err
			}
			if _, dup := w.params[p.Name]; dup {
				return nil, fmt.Errorf("nn: weight %s listed twice", p.Name)
			}
			w.params[p.Name] = p
			off += n
		}
		if off != len(buf) {
			return nil, fmt.Errorf("nn: weights shards %v have %d bytes, the manifest uses %d", g.Paths, len(buf), off)
		}
	}
	return w, nil
}

// decodeWeight decodes one weight from the front of b and returns it with
// the number of bytes it took.
func decodeWeight(spec manifestWeight, b []byte) (*Param, int, error) {
	if spec.Dtype != "float32" && !(spec.Dtype == "int32" && spec.Quantization == nil) {
		return nil, 0, fmt.Errorf("nn: weight %s: dtype %q not supported", spec.Name, spec.Dtype)
	}
	n := 1
	for _, d := range spec.Shape {
		if d <= 0 {
			return nil, 0, fmt.Errorf("nn: weight %s: bad shape %v", spec.Name, spec.Shape)
		}
		n *= d
	}
	p := &Param{Name: spec.Name, Shape: slices.Clone(spec.Shape)}
	if spec.Dtype == "int32" {
		if len(b) < 4*n {
			return nil, 0, fmt.Errorf("nn: weight %s needs %d bytes, %d left", spec.Name, 4*n, len(b))
		}
		p.Ints = make([]int32, n)
		for i := range p.Ints {
			p.Ints[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return p, 4 * n, nil
	}
	p.Data = make([]float32, n)
	size := 4
	half := false
	if q := spec.Quantization; q != nil {
		switch q.Dtype {
		case "uint8":
			size = 1
		case "uint16":
			size = 2
		case "float16":
			size, half = 2, true
		default:
			return nil, 0, fmt.Errorf("nn: weight %s: quantisation %q not supported", spec.Name, q.Dtype)
		}
	}
	if len(b) < n*size {
		return nil, 0, fmt.Errorf("nn: weight %s needs %d bytes, %d left", spec.Name, n*size, len(b))
	}
	q := spec.Quantization
	for i := range p.Data {
		switch {
		case half:
			p.Data[i] = halfToFloat(binary.LittleEndian.Uint16(b[2*i:]))
		case size == 1:
			p.Data[i] = float32(float64(b[i])*q.Scale + q.Min)
		case size == 2:
			p.Data[i] = float32(float64(binary.LittleEndian.Uint16(b[2*i:]))*q.Scale + q.Min)
		default:
			p.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	return p, n * size, nil
}

// halfToFloat widens an IEEE 754 half-precision float exactly, as
// TensorFlow.js's float16 decoder does (subnormals, infinities and NaN
// included).
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	}
	// A subnormal half is a normal float32: shift the mantissa up to its
	// leading one.
	e := uint32(113)
	for mant&0x400 == 0 {
		mant <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
}

// Take returns the named weight, which must have the given shape, and
// marks it used.
func (w *Weights) Take(name string, shape ...int) (*Param, error) {
	p, ok := w.params[name]
	if !ok {
		return nil, fmt.Errorf("nn: weight %s missing", name)
	}
	if !slices.Equal(p.Shape, shape) {
		return nil, fmt.Errorf("nn: weight %s has shape %v, want %v", name, p.Shape, shape)
	}
	w.taken[name] = true
	return p, nil
}

// Unused returns the names of the weights never taken, sorted.
func (w *Weights) Unused() []string {
	var out []string
	for name := range w.params {
		if !w.taken[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Len is the number of weights.
func (w *Weights) Len() int { return len(w.params) }
