package face

import (
	"errors"
	"image"
	"math"
)

// This file is the face-recognition pipeline of face-api.js, run with the
// embedded models: detect faces with the tiny face detector, find 68
// landmarks in each, crop the face the way dlib aligns it, and compute a
// 128-number descriptor. Two photos show the same person when their
// descriptors are close (Compare, MatchThreshold). The Go port agrees
// with face-api.js running on TensorFlow.js; faceapi_parity_test.go
// checks it on the shared photos.

// Point is a position in image pixels.
type Point struct{ X, Y float64 }

// Rect is a rectangle in image pixels; it may reach past the image edges.
type Rect struct{ X, Y, W, H float64 }

// Descriptor is a face's 128-dimensional embedding. Photos of one person
// lie within about MatchThreshold of each other (Euclidean distance).
type Descriptor [DescriptorLen]float32

// Face is one face found by Locate or Analyze.
type Face struct {
	// Score is the detector's confidence, 0-1.
	Score float64
	// Box is the detection box.
	Box Rect
	// Landmarks are the 68 points of the iBUG 300-W scheme: jaw 0-16,
	// brows 17-26, nose 27-35, eyes 36-41 (the subject's right, on the
	// image's left) and 42-47, mouth 48-67.
	Landmarks [68]Point
	// Aligned is the square crop the descriptor is computed on, centred
	// on the eyes and mouth (dlib's alignment, as face-api.js does it: a
	// crop, not a rotation); clipped to the image.
	Aligned Rect
	// Descriptor is set by Describe or Analyze; zero until then.
	Descriptor Descriptor
	// Turn is how far, in clockwise degrees (0, 90, 180, 270), the image
	// was turned for the face to be found upright (LocateTurned). The
	// coordinates above are always in the image as given.
	Turn int
	// Quality describes the landmarks: how large, tilted and turned the
	// face is, and whether the frame cuts it.
	Quality LandmarkQuality
	// cropW, cropH are the size of the crop the landmarks were found in,
	// which face-api.js's alignment uses as a bound; view is the aligned
	// crop in the turned image, which Describe reads.
	cropW, cropH int
	view         region
}

// LandmarkQuality says how usable a face's landmarks, and so its
// descriptor, are. The figures are measured upright (after Turn).
type LandmarkQuality struct {
	// EyeDistance is the distance between the eye centres in pixels: the
	// resolution of the face. The recogniser sees the face at about 55 px
	// between the eyes; much less than that and detail is missing.
	EyeDistance float64
	// Roll is the tilt of the eye line in degrees, positive clockwise.
	Roll float64
	// Yaw is where the nose tip sits between the sides of the jaw, from
	// −1 to 1: 0 for a frontal face, beyond ±0.5 strongly turned.
	Yaw float64
	// InImage is the share of the 68 landmarks inside the image; below 1
	// the frame cuts the face.
	InImage float64
}

// Options tune Locate and Analyze. The zero value is face-api.js's
// default for the tiny face detector.
type Options struct {
	// InputSize is the side, a multiple of 32, the image is shrunk to for
	// detection; default 416. Larger finds smaller faces, slower.
	InputSize int
	// MinScore drops detections scoring at or below it; default 0.5.
	MinScore float64
}

// DefaultInputSize and DefaultMinScore are face-api.js's defaults.
const (
	DefaultInputSize = 416
	DefaultMinScore  = 0.5
)

// MatchThreshold is the descriptor distance (Compare) below which two
// faces are taken for the same person: face-api.js's and dlib's usual
// 0.6, which faceapi_accuracy_test.go checks on the shared pairs.
const MatchThreshold = 0.6

// Locate finds the faces in img with the tiny face detector and their
// landmarks, best score first, without descriptors. It returns an error
// only when the embedded models cannot be loaded or InputSize is not a
// positive multiple of 32.
func Locate(img image.Image, opt Options) ([]Face, error) {
	return locate(img, opt, 0)
}

// LocateTurned is Locate for images that may lie on their side, such as a
// document photographed in portrait. When no upright face is found it
// looks again with the image turned a quarter clockwise, a quarter
// anticlockwise and upside down, and keeps the turn whose best face
// scores highest. It returns the faces in img's coordinates and the turn.
func LocateTurned(img image.Image, opt Options) ([]Face, int, error) {
	faces, err := locate(img, opt, 0)
	if err != nil || len(faces) > 0 {
		return faces, 0, err
	}
	var best []Face
	bestDeg := 0
	for _, deg := range []int{90, 270, 180} {
		faces, err := locate(img, opt, deg)
		if err != nil {
			return nil, 0, err
		}
		// Faces come best first; ties keep the earlier turn.
		if len(faces) > 0 && (best == nil || faces[0].Score > best[0].Score) {
			best, bestDeg = faces, deg
		}
	}
	return best, bestDeg, nil
}

func locate(img image.Image, opt Options, deg int) ([]Face, error) {
	n, err := loadNets()
	if err != nil {
		return nil, err
	}
	if opt.InputSize == 0 {
		opt.InputSize = DefaultInputSize
	}
	if opt.MinScore == 0 {
		opt.MinScore = DefaultMinScore
	}
	if opt.InputSize < 32 || opt.InputSize%32 != 0 {
		return nil, errors.New("face: input size must be a positive multiple of 32")
	}
	px, w, h := turnedReader(img, deg)
	if w <= 0 || h <= 0 {
		return nil, nil
	}
	var faces []Face
	for _, d := range n.det.detect(px, w, h, opt.InputSize, opt.MinScore) {
		crop, ok := clipRect(d.Box, w, h)
		if !ok {
			continue
		}
		rel := landmarkPoints(n.lm.forward(px, crop), crop.W, crop.H)
		f := Face{Score: d.Score, Box: d.Box, Turn: deg, cropW: crop.W, cropH: crop.H}
		// face-api.js places the points by the detection box, not by the
		// crop (which is clipped and rounded down): the same here.
		for i, p := range rel {
			f.Landmarks[i] = Point{X: p.X*float64(crop.W) + d.Box.X, Y: p.Y*float64(crop.H) + d.Box.Y}
		}
		f.view, _ = clipRect(f.alignment(), w, h)
		f.Quality = landmarkQuality(&f.Landmarks, w, h)
		f.unturn(img.Bounds())
		faces = append(faces, f)
	}
	return faces, nil
}

// Describe sets f.Descriptor, computed on the aligned crop in img (the
// image f was found in). A face whose alignment falls outside the image
// gets the zero descriptor, as in face-api.js.
func Describe(img image.Image, f *Face) error {
	n, err := loadNets()
	if err != nil {
		return err
	}
	if f.view.W <= 0 || f.view.H <= 0 {
		f.Descriptor = Descriptor{}
		return nil
	}
	px, _, _ := turnedReader(img, f.Turn)
	f.Descriptor = n.rec.forward(px, f.view)
	return nil
}

// Analyze is Locate then Describe for every face.
func Analyze(img image.Image, opt Options) ([]Face, error) {
	faces, err := Locate(img, opt)
	if err != nil {
		return nil, err
	}
	for i := range faces {
		if err := Describe(img, &faces[i]); err != nil {
			return nil, err
		}
	}
	return faces, nil
}

// Largest returns the index of the face with the largest box, the one a
// selfie or a document portrait is about (a background face or a
// document's ghost image is smaller); -1 when there is none.
func Largest(faces []Face) int {
	best := -1
	for i, f := range faces {
		if best < 0 || f.Box.W*f.Box.H > faces[best].Box.W*faces[best].Box.H {
			best = i
		}
	}
	return best
}

// Compare returns the Euclidean distance between two descriptors: 0 for
// the same photo, below MatchThreshold for the same person.
func Compare(a, b Descriptor) float64 {
	var s float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		s += d * d
	}
	return math.Sqrt(s)
}

// Similarity maps a descriptor distance to [0, 1] for people: 1 at
// distance 0, 0.5 exactly at MatchThreshold, falling linearly to 0 at
// twice the threshold (1.2; unrelated faces mostly measure 0.7-1.1). It is
// 1 − d / (2·MatchThreshold), clamped, so "similarity ≥ 0.5" and "distance
// ≤ MatchThreshold" are the same decision.
func Similarity(distance float64) float64 {
	return min(1, max(0, 1-distance/(2*MatchThreshold)))
}

// alignment is face-api.js's FaceLandmarks.alignDlib: a square whose side
// is the mean eye-to-mouth distance / 0.45, placed so that the centre of
// the eyes and mouth sits at 50% across and 43% down, rounded down and
// kept off negative coordinates.
func (f *Face) alignment() Rect {
	le := centroid(f.Landmarks[36:42])
	re := centroid(f.Landmarks[42:48])
	mouth := centroid(f.Landmarks[48:68])
	eyeToMouth := (dist(mouth, le) + dist(mouth, re)) / 2
	size := math.Floor(eyeToMouth / 0.45)
	ref := centroid([]Point{le, re, mouth})
	x := math.Floor(max(0, ref.X-0.5*size))
	y := math.Floor(max(0, ref.Y-0.43*size))
	return Rect{X: x, Y: y, W: min(size, float64(f.cropW)+x), H: min(size, float64(f.cropH)+y)}
}

// clipRect is face-api.js's Box.clipAtImageBorders then floor: the part
// of r inside a w × h image, in whole pixels. ok is false when nothing is
// left.
func clipRect(r Rect, w, h int) (region, bool) {
	x, y := max(r.X, 0), max(r.Y, 0)
	cw := min(r.X+r.W-x, float64(w)-x)
	ch := min(r.Y+r.H-y, float64(h)-y)
	c := region{X: int(math.Floor(x)), Y: int(math.Floor(y)), W: int(math.Floor(cw)), H: int(math.Floor(ch))}
	return c, c.W > 0 && c.H > 0
}

func centroid(pts []Point) Point {
	var s Point
	for _, p := range pts {
		s.X += p.X
		s.Y += p.Y
	}
	return Point{X: s.X / float64(len(pts)), Y: s.Y / float64(len(pts))}
}

func dist(a, b Point) float64 {
	dx, dy := a.X-b.X, a.Y-b.Y
	return math.Sqrt(dx*dx + dy*dy) // as face-api.js's Point.magnitude
}
