package face

import (
	"kycd/face/nn"
)

// recognizer is face-api.js's FaceRecognitionNet, a port of dlib's
// ResNet-34-like dlib_face_recognition_resnet_model_v1: a 7 × 7 stride-2
// convolution and 3 × 3 max pooling on a 150 × 150 crop, then residual
// blocks at 32, 64, 128 and 256 channels (each convolution followed by a
// per-channel scale and offset, the folded batch norm), global average
// pooling and a 256 × 128 projection. The 128 numbers are the face
// descriptor; face-api.js does not normalise them, nor does this.
type recognizer struct {
	down   convScale // conv32_down
	blocks []resBlock
	fc     *nn.Param // 256 × 128, no bias
}

// convScale is face-api.js's faceRecognitionNet convLayer: convolution,
// bias, then the scale layer's weights and biases.
type convScale struct{ filters, bias, scale, offset *nn.Param }

// resBlock is two 3 × 3 convolutions and a shortcut; a "down" block halves
// the size (stride 2, "valid") and its shortcut is a 2 × 2 average pool
// padded with zero channels.
type resBlock struct {
	conv1, conv2 convScale
	down         bool
}

const recognizerInput = 150

// DescriptorLen is the length of a face descriptor.
const DescriptorLen = 128

func newRecognizer(w *nn.Weights) (*recognizer, error) {
	l := &loader{w: w, model: recognizerModel}
	r := &recognizer{down: takeConvScale(l, "conv32_down", 7, 3, 32)}
	for _, b := range []struct {
		name    string
		in, out int
		down    bool
	}{
		{"conv32_1", 32, 32, false}, {"conv32_2", 32, 32, false}, {"conv32_3", 32, 32, false},
		{"conv64_down", 32, 64, true}, {"conv64_1", 64, 64, false}, {"conv64_2", 64, 64, false}, {"conv64_3", 64, 64, false},
		{"conv128_down", 64, 128, true}, {"conv128_1", 128, 128, false}, {"conv128_2", 128, 128, false},
		{"conv256_down", 128, 256, true}, {"conv256_1", 256, 256, false}, {"conv256_2", 256, 256, false},
		{"conv256_down_out", 256, 256, true},
	} {
		r.blocks = append(r.blocks, resBlock{
			conv1: takeConvScale(l, b.name+"/conv1", 3, b.in, b.out),
			conv2: takeConvScale(l, b.name+"/conv2", 3, b.out, b.out),
			down:  b.down,
		})
	}
	r.fc = l.take("fc", 256, DescriptorLen)
	return r, l.done()
}

func takeConvScale(l *loader, p string, k, in, out int) convScale {
	return convScale{
		filters: l.take(p+"/conv/filters", k, k, in, out),
		bias:    l.take(p+"/conv/bias", out),
		scale:   l.take(p+"/scale/weights", out),
		offset:  l.take(p+"/scale/biases", out),
	}
}

func (c convScale) forward(x *nn.Tensor, stride int, pad nn.Padding) *nn.Tensor {
	return nn.Conv2D(x, c.filters, stride, pad).AddChannels(c.bias).MulChannels(c.scale).AddChannels(c.offset)
}

// forward returns the descriptor of the crop r of the image.
func (n *recognizer) forward(px rgbReader, r region) Descriptor {
	x := normalize(squareInput(px, r, recognizerInput, true), landmarkMean)
	x = n.down.forward(x, 2, nn.Valid).ReLU() // 72 × 72 × 32
	x = nn.MaxPool(x, 3, 2, nn.Valid)         // 35 × 35
	for _, b := range n.blocks {
		x = b.forward(x)
	}
	avg := nn.Mean(x)
	var d Descriptor
	nn.MatMul(d[:], avg, n.fc.Data, 1, len(avg), DescriptorLen)
	return d
}

func (b resBlock) forward(x *nn.Tensor) *nn.Tensor {
	if !b.down {
		out := b.conv1.forward(x, 1, nn.Same).ReLU()
		return b.conv2.forward(out, 1, nn.Same).Add(x).ReLU()
	}
	out := b.conv1.forward(x, 2, nn.Valid).ReLU()
	out = b.conv2.forward(out, 1, nn.Same)
	pooled := nn.AvgPool(x, 2, 2, nn.Valid)
	// An odd input makes the convolution path one row and column short of
	// the pooled one (3 vs 4, 1 vs 2); face-api.js appends zeros to it.
	if out.H != pooled.H || out.W != pooled.W {
		out = nn.PadAfter(out, pooled.H-out.H, pooled.W-out.W)
	}
	if pooled.C != out.C {
		pooled = nn.PadChannels(pooled, out.C)
	}
	return pooled.Add(out).ReLU()
}
