package face

import (
	"kycd/face/nn"
)

// landmarkNet is face-api.js's FaceLandmark68TinyNet: three dense blocks
// of (depthwise-separable) convolutions on a 112 × 112 crop, global
// average pooling and a fully connected layer giving 68 (x, y) points as
// fractions of the padded square crop.
type landmarkNet struct {
	dense [3]denseBlock
	fc    *nn.Param // 128 × 136
	fcB   *nn.Param
}

// denseBlock is denseBlock3 of face-api.js: conv0 (a plain convolution in
// the first block, separable after) at stride 2, then two separable
// convolutions whose inputs are the sums of the earlier outputs.
type denseBlock struct {
	conv0, conv0Bias *nn.Param // first block only
	sep              [3]sepConv
}

// landmarkMean is subtracted from the input's red, green and blue, by the
// landmark and the recognition nets alike.
var landmarkMean = [3]float32{122.782, 117.001, 104.298}

const landmarkInput = 112

func newLandmarkNet(w *nn.Weights) (*landmarkNet, error) {
	l := &loader{w: w, model: landmarkModel}
	n := &landmarkNet{}
	in := 3
	for i, out := range []int{32, 64, 128} {
		p := "dense" + string(rune('0'+i))
		b := &n.dense[i]
		if i == 0 {
			b.conv0 = l.take(p+"/conv0/filters", 3, 3, in, out)
			b.conv0Bias = l.take(p+"/conv0/bias", out)
		} else {
			b.sep[0] = takeSep(l, p+"/conv0", in, out)
		}
		b.sep[1] = takeSep(l, p+"/conv1", out, out)
		b.sep[2] = takeSep(l, p+"/conv2", out, out)
		in = out
	}
	n.fc = l.take("fc/weights", 128, 136)
	n.fcB = l.take("fc/bias", 136)
	return n, l.done()
}

func takeSep(l *loader, p string, in, out int) sepConv {
	return sepConv{
		depthwise: l.take(p+"/depthwise_filter", 3, 3, in, 1),
		pointwise: l.take(p+"/pointwise_filter", 1, 1, in, out),
		bias:      l.take(p+"/bias", out),
	}
}

// forward returns the 136 raw outputs for the crop r of the image.
func (n *landmarkNet) forward(px rgbReader, r region) []float32 {
	x := normalize(squareInput(px, r, landmarkInput, true), landmarkMean)
	for i := range n.dense {
		x = n.dense[i].forward(x)
	}
	x = nn.AvgPool(x, 14, 2, nn.Valid) // 14 × 14 × 128 → 1 × 1 × 128
	out := make([]float32, 136)
	nn.MatMul(out, x.Data, n.fc.Data, 1, 128, 136)
	for i := range out {
		out[i] += n.fcB.Data[i]
	}
	return out
}

func (b *denseBlock) forward(x *nn.Tensor) *nn.Tensor {
	var out1 *nn.Tensor
	if b.conv0 != nil {
		out1 = nn.Conv2D(x, b.conv0, 2, nn.Same).AddChannels(b.conv0Bias)
	} else {
		out1 = b.sep[0].forward(x, 2)
	}
	out1.ReLU()
	out2 := b.sep[1].forward(out1, 1)
	in3 := clone(out1).Add(out2).ReLU()
	out3 := b.sep[2].forward(in3, 1)
	// relu(out1 + (out2 + out3)), summed in face-api.js's order.
	return out2.Add(out3).Add(out1).ReLU()
}

func (s sepConv) forward(x *nn.Tensor, stride int) *nn.Tensor {
	return nn.SeparableConv2D(x, s.depthwise, s.pointwise, stride, nn.Same).AddChannels(s.bias)
}

func clone(t *nn.Tensor) *nn.Tensor {
	return &nn.Tensor{H: t.H, W: t.W, C: t.C, Data: append([]float32(nil), t.Data...)}
}

// landmarkPoints turns the net's outputs for a crop of w × h pixels into
// points relative to the crop (FaceLandmark68NetBase.postProcess): the
// crop was padded to a square centred on it, so the padding is taken off
// the shorter side before dividing by the crop's scaled size.
func landmarkPoints(out []float32, w, h int) [68]Point {
	scale := float64(landmarkInput) / float64(max(w, h))
	sw, sh := float64(w)*scale, float64(h)*scale
	var padX, padY float64
	if sw < sh {
		padX = (sh - sw) / 2
	}
	if sh < sw {
		padY = (sw - sh) / 2
	}
	var pts [68]Point
	for i := range pts {
		pts[i] = Point{
			X: (float64(out[2*i])*landmarkInput - padX) / sw,
			Y: (float64(out[2*i+1])*landmarkInput - padY) / sh,
		}
	}
	return pts
}
