package face

import (
	"math"
	"sort"

	"kycd/face/nn"
)

// tinyDetector is face-api.js's TinyFaceDetector: a tiny YOLO v2 whose
// convolutions are depthwise-separable (a MobileNet-like stack), one class
// ("face") and five anchor boxes per cell of a 13 × 13 grid at input 416.
type tinyDetector struct {
	conv0, conv0Bias *nn.Param  // 3×3×3×16, valid, leaky ReLU
	sep              [5]sepConv // conv1-conv5: 16→32→64→128→256→512
	conv8, conv8Bias *nn.Param  // 1×1×512×25: 5 anchors × (x, y, w, h, score)
}

// sepConv is a depthwise 3×3 convolution, a pointwise 1×1 one and a bias.
type sepConv struct{ depthwise, pointwise, bias *nn.Param }

// Detector constants from face-api.js (src/tinyFaceDetector/const.ts).
var (
	// detectorAnchors are the anchor boxes' width and height in grid cells.
	detectorAnchors = [5][2]float64{
		{1.603231, 2.094468}, {6.041143, 7.080126}, {2.882459, 3.518061},
		{4.266906, 5.178857}, {9.041765, 10.66308},
	}
	// detectorMean is subtracted from the input's red, green and blue.
	detectorMean = [3]float32{117.001, 114.697, 97.404}
)

// detectorIoU is the overlap above which non-maximum suppression drops the
// lower-scoring of two boxes (face-api.js IOU_THRESHOLD).
const detectorIoU = 0.4

func newTinyDetector(w *nn.Weights) (*tinyDetector, error) {
	l := &loader{w: w, model: detectorModel}
	d := &tinyDetector{
		conv0:     l.take("conv0/filters", 3, 3, 3, 16),
		conv0Bias: l.take("conv0/bias", 16),
		conv8:     l.take("conv8/filters", 1, 1, 512, 25),
		conv8Bias: l.take("conv8/bias", 25),
	}
	in := 16
	for i := range d.sep {
		p := "conv" + string(rune('1'+i))
		d.sep[i] = sepConv{
			depthwise: l.take(p+"/depthwise_filter", 3, 3, in, 1),
			pointwise: l.take(p+"/pointwise_filter", 1, 1, in, 2*in),
			bias:      l.take(p+"/bias", 2*in),
		}
		in *= 2
	}
	return d, l.done()
}

// forward runs the network on the whole image, padded at the bottom or
// right to a square and resized to size × size (a multiple of 32), and
// returns the raw size/32 × size/32 × 25 grid.
func (d *tinyDetector) forward(px rgbReader, imgW, imgH, size int) *nn.Tensor {
	x := normalize(squareInput(px, region{0, 0, imgW, imgH}, size, false), detectorMean)
	x = nn.Conv2D(x, d.conv0, 1, nn.Valid).AddChannels(d.conv0Bias).LeakyReLU()
	for _, s := range d.sep {
		x = nn.MaxPool(x, 2, 2, nn.Same)
		// tinyYolov2's depthwiseSeparableConv pads by one then convolves
		// "valid": the same as "same" for a 3×3 window at stride 1.
		x = nn.SeparableConv2D(x, s.depthwise, s.pointwise, 1, nn.Same).AddChannels(s.bias).LeakyReLU()
	}
	x = nn.MaxPool(x, 2, 1, nn.Same) // keeps the 13 × 13 grid
	return nn.Conv2D(x, d.conv8, 1, nn.Valid).AddChannels(d.conv8Bias)
}

// detection is one face box in image pixels with its score (the sigmoid
// of the network's objectness output).
type detection struct {
	Score float64
	Box   Rect
}

// detect returns the faces scoring above minScore after non-maximum
// suppression, best first: TinyYolov2Base.detect with extractBoxes.
func (d *tinyDetector) detect(px rgbReader, imgW, imgH, size int, minScore float64) []detection {
	out := d.forward(px, imgW, imgH, size)
	// The image fills rw × rh of the square input (computeReshapedDimensions);
	// the correction maps grid coordinates to fractions of the image.
	scale := float64(size) / float64(max(imgW, imgH))
	rw, rh := math.Round(float64(imgW)*scale), math.Round(float64(imgH)*scale)
	corrX, corrY := float64(size)/rw, float64(size)/rh
	cells := float64(out.H)
	var found []detection
	for row := range out.H {
		for col := range out.W {
			for a, anchor := range detectorAnchors {
				v := out.Data[(row*out.W+col)*out.C+a*5:]
				score := sigmoid(float64(v[4]))
				if score <= minScore {
					continue
				}
				cx := (float64(col) + sigmoid(float64(v[0]))) / cells * corrX
				cy := (float64(row) + sigmoid(float64(v[1]))) / cells * corrY
				w := math.Exp(float64(v[2])) * anchor[0] / cells * corrX
				h := math.Exp(float64(v[3])) * anchor[1] / cells * corrY
				// Relative to the image: x, y, w, h as fractions of its sides.
				found = append(found, detection{Score: score, Box: Rect{X: cx - w/2, Y: cy - h/2, W: w, H: h}})
			}
		}
	}
	keep := suppressRects(found, float64(size), detectorIoU)
	for i := range keep {
		b := keep[i].Box
		keep[i].Box = Rect{X: b.X * float64(imgW), Y: b.Y * float64(imgH), W: b.W * float64(imgW), H: b.H * float64(imgH)}
	}
	return keep
}

// suppressRects is face-api.js's nonMaxSuppression: repeatedly keep the
// best remaining box and drop those overlapping it by more than iou
// (measured on the boxes scaled by scale, as face-api.js does). Among
// equal scores the later box comes first, as its stable ascending sort and
// pop give.
func suppressRects(dets []detection, scale, iou float64) []detection {
	idx := make([]int, len(dets))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return dets[idx[a]].Score < dets[idx[b]].Score })
	scaled := func(i int) Rect {
		b := dets[i].Box
		return Rect{X: b.X * scale, Y: b.Y * scale, W: b.W * scale, H: b.H * scale}
	}
	var out []detection
	for len(idx) > 0 {
		cur := idx[len(idx)-1]
		idx = idx[:len(idx)-1]
		out = append(out, dets[cur])
		cb := scaled(cur)
		rest := idx[:0]
		for _, i := range idx {
			if rectIoU(cb, scaled(i)) <= iou {
				rest = append(rest, i)
			}
		}
		idx = rest
	}
	return out
}

// rectIoU is intersection over union.
func rectIoU(a, b Rect) float64 {
	w := max(0, min(a.X+a.W, b.X+b.W)-max(a.X, b.X))
	h := max(0, min(a.Y+a.H, b.Y+b.H)-max(a.Y, b.Y))
	inter := w * h
	return inter / (a.W*a.H + b.W*b.H - inter)
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
