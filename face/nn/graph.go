package nn

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Graph is a TensorFlow.js graph model (the "graph-model" format that
// tensorflowjs_converter writes from a frozen TensorFlow graph) with its
// weights, for the small image classifiers kycd runs: one image in, one
// vector out, through a chain of the operations below. Anything else in a
// model file — another operation, a batch of images, a data format other
// than NHWC, dilation — is refused when the model is loaded, not
// discovered while it runs.
//
// Supported operations: Placeholder, Const, Identity, _FusedConv2D (with
// BiasAdd, optionally then Relu), MaxPool, Relu, Reshape (flattening),
// _FusedMatMul (BiasAdd, optionally Relu), Mul, Add, AddV2 (by a
// per-channel constant), Sigmoid and Softmax.
type Graph struct {
	nodes  map[string]*graphNode
	order  []*graphNode // topological order, input first
	input  *graphNode
	output *graphNode
	// InputH, InputW, InputC are the input image's shape.
	InputH, InputW, InputC int
	weights                *Weights
}

type graphNode struct {
	name   string
	op     string
	inputs []*graphNode
	// Parameters resolved at load time.
	param   *Param // Const
	stride  int
	pad     Padding
	ksize   int
	relu    bool
	flatten int // Reshape: the flattened length
}

type graphJSON struct {
	Format        string `json:"format"`
	ModelTopology struct {
		Node []struct {
			Name  string                     `json:"name"`
			Op    string                     `json:"op"`
			Input []string                   `json:"input"`
			Attr  map[string]json.RawMessage `json:"attr"`
		} `json:"node"`
	} `json:"modelTopology"`
	WeightsManifest []manifestGroup `json:"weightsManifest"`
	Signature       struct {
		Inputs  map[string]struct{ Name string } `json:"inputs"`
		Outputs map[string]struct{ Name string } `json:"outputs"`
	} `json:"signature"`
}

// attr is the part of a TensorFlow AttrValue the supported operations use.
type attr struct {
	S    string `json:"s"` // base64
	B    *bool  `json:"b"`
	I    string `json:"i"`
	List struct {
		I []string `json:"i"`
		S []string `json:"s"`
	} `json:"list"`
	Shape struct {
		Dim []struct {
			Size string `json:"size"`
		} `json:"dim"`
	} `json:"shape"`
}

// LoadGraph decodes a graph model's JSON and its weight shards (read by
// name with shard), checks every node, and returns the model ready to run.
func LoadGraph(model []byte, shard func(path string) ([]byte, error)) (*Graph, error) {
	var m graphJSON
	if err := json.Unmarshal(model, &m); err != nil {
		return nil, fmt.Errorf("nn: graph model: %w", err)
	}
	if m.Format != "graph-model" {
		return nil, fmt.Errorf("nn: graph model: format %q, want graph-model", m.Format)
	}
	w, err := loadGroups(m.WeightsManifest, shard)
	if err != nil {
		return nil, err
	}
	g := &Graph{nodes: map[string]*graphNode{}, weights: w}
	for _, raw := range m.ModelTopology.Node {
		if _, dup := g.nodes[raw.Name]; dup {
			return nil, fmt.Errorf("nn: graph node %s listed twice", raw.Name)
		}
		g.nodes[raw.Name] = &graphNode{name: raw.Name, op: raw.Op}
	}
	for _, raw := range m.ModelTopology.Node {
		n := g.nodes[raw.Name]
		for _, in := range raw.Input {
			src, ok := g.nodes[in]
			if !ok {
				return nil, fmt.Errorf("nn: graph node %s: input %s missing", n.name, in)
			}
			n.inputs = append(n.inputs, src)
		}
		attrs := map[string]attr{}
		for k, v := range raw.Attr {
			var a attr
			if err := json.Unmarshal(v, &a); err != nil {
				return nil, fmt.Errorf("nn: graph node %s: attribute %s: %w", n.name, k, err)
			}
			attrs[k] = a
		}
		if err := g.resolve(n, attrs); err != nil {
			return nil, fmt.Errorf("nn: graph node %s (%s): %w", n.name, n.op, err)
		}
	}
	if u := w.Unused(); len(u) > 0 {
		return nil, fmt.Errorf("nn: graph model: weights without a node: %v", u)
	}
	if len(m.Signature.Inputs) != 1 || len(m.Signature.Outputs) != 1 {
		return nil, fmt.Errorf("nn: graph model: %d inputs and %d outputs, want one of each", len(m.Signature.Inputs), len(m.Signature.Outputs))
	}
	for _, in := range m.Signature.Inputs {
		g.input = g.nodes[tensorNode(in.Name)]
	}
	for _, out := range m.Signature.Outputs {
		g.output = g.nodes[tensorNode(out.Name)]
	}
	if g.input == nil || g.input.op != "Placeholder" || g.output == nil {
		return nil, fmt.Errorf("nn: graph model: signature names no placeholder input or no output")
	}
	if err := g.sort(); err != nil {
		return nil, err
	}
	return g, nil
}

// tensorNode is the node of a tensor name "node:0".
func tensorNode(tensor string) string {
	for i := len(tensor) - 1; i >= 0; i-- {
		if tensor[i] == ':' {
			return tensor[:i]
		}
	}
	return tensor
}

// resolve checks a node's operation and attributes and keeps the
// parameters it runs with.
func (g *Graph) resolve(n *graphNode, a map[string]attr) error {
	wantInputs := map[string]int{"Placeholder": 0, "Const": 0, "Identity": 1, "_FusedConv2D": 3, "MaxPool": 1,
		"Relu": 1, "Reshape": 2, "_FusedMatMul": 3, "Mul": 2, "Add": 2, "AddV2": 2, "Sigmoid": 1, "Softmax": 1}
	want, known := wantInputs[n.op]
	if !known {
		return fmt.Errorf("operation not supported")
	}
	if len(n.inputs) != want {
		return fmt.Errorf("%d inputs, want %d", len(n.inputs), want)
	}
	// The first input is the image flowing through; the others, where
	// there are any, are weights.
	for i, in := range n.inputs {
		if (i == 0) == (in.op == "Const") {
			return fmt.Errorf("input %d (%s) must %sbe a constant", i, in.name, map[bool]string{true: "not ", false: ""}[i == 0])
		}
	}
	if f, ok := a["data_format"]; ok && decode64(f.S) != "NHWC" {
		return fmt.Errorf("data format %q, want NHWC", decode64(f.S))
	}
	switch n.op {
	case "Placeholder":
		dims := a["shape"].Shape.Dim
		if len(dims) != 4 || dims[0].Size != "-1" && dims[0].Size != "1" {
			return fmt.Errorf("input shape %v, want [-1, h, w, c]", dims)
		}
		var hwc [3]int
		for i := range hwc {
			v, err := strconv.Atoi(dims[i+1].Size)
			if err != nil || v <= 0 {
				return fmt.Errorf("input shape %v, want fixed height, width and channels", dims)
			}
			hwc[i] = v
		}
		g.InputH, g.InputW, g.InputC = hwc[0], hwc[1], hwc[2]
	case "Const":
		p, err := g.weights.Take(n.name, g.weights.shapeOf(n.name)...)
		if err != nil {
			return err
		}
		n.param = p
	case "_FusedConv2D", "_FusedMatMul":
		fused := a["fused_ops"].List.S
		ops := make([]string, len(fused))
		for i, s := range fused {
			ops[i] = decode64(s)
		}
		switch {
		case slices.Equal(ops, []string{"BiasAdd"}):
		case slices.Equal(ops, []string{"BiasAdd", "Relu"}):
			n.relu = true
		default:
			return fmt.Errorf("fused operations %v, want BiasAdd and optionally Relu", ops)
		}
		if v := a["num_args"].I; v != "1" {
			return fmt.Errorf("%s fused arguments, want 1", v)
		}
		if n.op == "_FusedMatMul" {
			for _, k := range []string{"transpose_a", "transpose_b"} {
				if b := a[k].B; b != nil && *b {
					return fmt.Errorf("%s is not supported", k)
				}
			}
			return nil
		}
		if d := a["dilations"].List.I; len(d) > 0 && !slices.Equal(d, []string{"1", "1", "1", "1"}) {
			return fmt.Errorf("dilations %v, want 1", d)
		}
		fallthrough
	case "MaxPool":
		s := a["strides"].List.I
		if len(s) != 4 || s[0] != "1" || s[3] != "1" || s[1] != s[2] {
			return fmt.Errorf("strides %v, want equal height and width strides", s)
		}
		n.stride, _ = strconv.Atoi(s[1])
		switch p := decode64(a["padding"].S); p {
		case "VALID":
			n.pad = Valid
		case "SAME":
			n.pad = Same
		default:
			return fmt.Errorf("padding %q, want VALID or SAME", p)
		}
		if n.op == "MaxPool" {
			k := a["ksize"].List.I
			if len(k) != 4 || k[0] != "1" || k[3] != "1" || k[1] != k[2] {
				return fmt.Errorf("kernel %v, want a square window", k)
			}
			n.ksize, _ = strconv.Atoi(k[1])
		}
		if n.stride <= 0 || n.op == "MaxPool" && n.ksize <= 0 {
			return fmt.Errorf("bad stride or window")
		}
	case "Reshape":
		p := g.weights.params[n.inputs[1].name]
		if p == nil || len(p.Ints) != 2 || p.Ints[0] != -1 || p.Ints[1] <= 0 {
			return fmt.Errorf("shape %v, want a flattening [-1, n]", p.Ints)
		}
		n.flatten = int(p.Ints[1])
	}
	return nil
}

// shapeOf is the stored shape of a weight, for Const nodes, whose shape
// is whatever the manifest says.
func (w *Weights) shapeOf(name string) []int {
	if p, ok := w.params[name]; ok {
		return p.Shape
	}
	return nil
}

func decode64(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return ""
	}
	return string(b)
}

// sort orders the nodes the output depends on so each comes after its
// inputs, and refuses cycles.
func (g *Graph) sort() error {
	state := map[*graphNode]int{} // 1 visiting, 2 done
	var visit func(n *graphNode) error
	visit = func(n *graphNode) error {
		switch state[n] {
		case 1:
			return fmt.Errorf("nn: graph model: cycle through %s", n.name)
		case 2:
			return nil
		}
		state[n] = 1
		for _, in := range n.inputs {
			if err := visit(in); err != nil {
				return err
			}
		}
		state[n] = 2
		g.order = append(g.order, n)
		return nil
	}
	if err := visit(g.output); err != nil {
		return err
	}
	if state[g.input] != 2 {
		return fmt.Errorf("nn: graph model: the output does not depend on the input")
	}
	return nil
}

// Run evaluates the model on one image x (InputH × InputW × InputC) and
// returns the output vector. Shapes that do not fit are an error, not a
// panic: the model is the only thing that decides them.
func (g *Graph) Run(x *Tensor) (out []float32, err error) {
	if x.H != g.InputH || x.W != g.InputW || x.C != g.InputC {
		return nil, fmt.Errorf("nn: graph input %s, want %dx%dx%d", x.Shape(), g.InputH, g.InputW, g.InputC)
	}
	defer func() {
		// The operations panic on shapes that do not fit; LoadGraph
		// checks operations, not every shape.
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("nn: graph model: %v", p)
		}
	}()
	vals := map[*graphNode]*Tensor{}
	for _, n := range g.order {
		var in []*Tensor
		for _, src := range n.inputs {
			if src.op != "Const" {
				in = append(in, vals[src])
			}
		}
		var v *Tensor
		switch n.op {
		case "Placeholder":
			v = &Tensor{H: x.H, W: x.W, C: x.C, Data: slices.Clone(x.Data)}
		case "Const":
			continue
		case "Identity":
			v = in[0]
		case "_FusedConv2D":
			v = Conv2D(in[0], n.inputs[1].param, n.stride, n.pad).AddChannels(n.inputs[2].param)
			if n.relu {
				v.ReLU()
			}
		case "MaxPool":
			v = MaxPool(in[0], n.ksize, n.stride, n.pad)
		case "Relu":
			v = clone(in[0]).ReLU()
		case "Reshape":
			if len(in[0].Data) != n.flatten {
				return nil, fmt.Errorf("nn: graph node %s: cannot flatten %s to %d", n.name, in[0].Shape(), n.flatten)
			}
			v = &Tensor{H: 1, W: 1, C: n.flatten, Data: in[0].Data}
		case "_FusedMatMul":
			f := n.inputs[1].param
			if len(f.Shape) != 2 || f.Shape[0] != in[0].C || in[0].H*in[0].W != 1 {
				return nil, fmt.Errorf("nn: graph node %s: multiply %s by %v", n.name, in[0].Shape(), f.Shape)
			}
			v = New(1, 1, f.Shape[1])
			MatMul(v.Data, in[0].Data, f.Data, 1, f.Shape[0], f.Shape[1])
			v.AddChannels(n.inputs[2].param)
			if n.relu {
				v.ReLU()
			}
		case "Mul", "Add", "AddV2":
			c := n.inputs[1].param
			v = clone(in[0])
			if n.op == "Mul" {
				v.MulChannels(c)
			} else {
				v.AddChannels(c)
			}
		case "Sigmoid":
			v = clone(in[0])
			for i, e := range v.Data {
				v.Data[i] = float32(1 / (1 + math.Exp(-float64(e))))
			}
		case "Softmax":
			v = clone(in[0])
			softmax(v)
		}
		vals[n] = v
	}
	return slices.Clone(vals[g.output].Data), nil
}

// softmax normalises each pixel's channels, as TensorFlow.js does: the
// exponentials of the values less their maximum, over their sum.
func softmax(t *Tensor) {
	for i := 0; i < len(t.Data); i += t.C {
		row := t.Data[i : i+t.C]
		m := slices.Max(row)
		var sum float64
		for j, v := range row {
			e := math.Exp(float64(v - m))
			row[j] = float32(e)
			sum += e
		}
		for j := range row {
			row[j] = float32(float64(row[j]) / sum)
		}
	}
}

func clone(t *Tensor) *Tensor {
	return &Tensor{H: t.H, W: t.W, C: t.C, Data: slices.Clone(t.Data)}
}
