package face

import (
	"embed"
	"fmt"
	"path"
	"sync"

	"kycd/face/nn"
)

// The neural models are those of @vladmandic/face-api 1.7.15 (MIT,
// licence in models/LICENSE), copied byte for byte from its npm package:
// the tiny face detector, the tiny 68-point landmark net and the face
// recognition net (a ResNet-34-like port of dlib's
// dlib_face_recognition_resnet_model_v1). TestModelFiles records their
// SHA-256.
//
//go:embed models/*.json models/*.bin models/LICENSE
var modelFiles embed.FS

// Model names, the stem of each "<name>-weights_manifest.json".
const (
	detectorModel   = "tiny_face_detector_model"
	landmarkModel   = "face_landmark_68_tiny_model"
	recognizerModel = "face_recognition_model"
)

// nets are the three networks, built once from the embedded weights.
type nets struct {
	det *tinyDetector
	lm  *landmarkNet
	rec *recognizer
}

var (
	netsOnce sync.Once
	netsVal  *nets
	netsErr  error
)

// loadNets returns the networks, decoding the embedded weights on first
// use (about 26 MB of float32, once per process). The weights are only
// read afterwards, so the networks serve every goroutine. The files are
// compiled in: an error here is a broken build, which TestModelFiles
// reports before any caller could see it.
func loadNets() (*nets, error) {
	netsOnce.Do(func() { netsVal, netsErr = buildNets() })
	return netsVal, netsErr
}

func buildNets() (*nets, error) {
	var n nets
	w, err := weights(detectorModel)
	if err != nil {
		return nil, err
	}
	if n.det, err = newTinyDetector(w); err != nil {
		return nil, err
	}
	if w, err = weights(landmarkModel); err != nil {
		return nil, err
	}
	if n.lm, err = newLandmarkNet(w); err != nil {
		return nil, err
	}
	if w, err = weights(recognizerModel); err != nil {
		return nil, err
	}
	if n.rec, err = newRecognizer(w); err != nil {
		return nil, err
	}
	return &n, nil
}

// weights decodes an embedded model's manifest and shards.
func weights(name string) (*nn.Weights, error) {
	manifest, err := modelFiles.ReadFile("models/" + name + "-weights_manifest.json")
	if err != nil {
		return nil, fmt.Errorf("face: model %s: %w", name, err)
	}
	w, err := nn.LoadWeights(manifest, func(p string) ([]byte, error) {
		return modelFiles.ReadFile("models/" + path.Base(p))
	})
	if err != nil {
		return nil, fmt.Errorf("face: model %s: %w", name, err)
	}
	return w, nil
}

// loader takes a network's weights one by one and keeps the first error,
// so the constructors read as a list of layers.
type loader struct {
	w     *nn.Weights
	model string
	err   error
}

func (l *loader) take(name string, shape ...int) *nn.Param {
	if l.err != nil {
		return nil
	}
	p, err := l.w.Take(name, shape...)
	if err != nil {
		l.err = fmt.Errorf("face: model %s: %w", l.model, err)
	}
	return p
}

// done reports the first error, or weights the network never took.
func (l *loader) done() error {
	if l.err != nil {
		return l.err
	}
	if u := l.w.Unused(); len(u) > 0 {
		return fmt.Errorf("face: model %s: weights not used: %v", l.model, u)
	}
	return nil
}
