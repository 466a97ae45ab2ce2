package liveness

import (
	"crypto/sha256"
	"encoding/binary"
	"image"
	"image/draw"

	"kycd/face"
)

// Observation is what the face models saw in one frame; Verify decides on
// observations alone.
type Observation struct {
	// Step is the session step the page says the frame belongs to (0 is
	// LookStraight). The frame's content decides whether it shows that
	// step's movement.
	Step int
	// Width and Height are the frame's size in pixels.
	Width, Height int
	// Faces is how many faces the frame holds: the largest, plus any other
	// that counts as a second person (OtherFaceScore, face.Largest).
	Faces int
	// Face is the largest face with its landmarks and descriptor; nil when
	// the frame has none.
	Face *face.Face
	// Pose is Face's head pose.
	Pose face.Pose
	// RegionHash is the 64-bit perceptual hash (DCT pHash) of the frame's
	// copy of the session's face region (Region): set by Analyze, which
	// picks the region from all the frames.
	RegionHash uint64
	// Pixels is the SHA-256 of the decoded pixels: equal for the same
	// picture whatever its encoding.
	Pixels [32]byte
	// Thumb is the frame's grey thumbnail with the face and body masked,
	// for the continuity check; nil for a frame smaller than it.
	Thumb *Thumb
	// Light is the colour of the face's skin and of the far background,
	// for the light check; zero when the frame has no face.
	Light LightSample
}

// Face detection settings for challenge frames. The page sends frames of
// at most 640 px in which the face fills the oval guide, so the detector
// runs at 320 px first (cheaper than face-api.js's default 416, and the
// face is still 100-200 px there), then 416 and 224 when it finds nothing.
// These settings were chosen while looking at the shared liveness frames
// (images/liveness: p1, p2, spoof1): how often a face is found in them is
// not an independent measurement.
var detectSizes = [...]int{320, 416, 224}

const (
	// FaceScore is the least detector score for the frame's face. The
	// tiny detector's score of a clear face swings between 0.3 and 0.99
	// with the input size, so the frame's face is taken from 0.3 up.
	FaceScore = 0.3
	// OtherFaceScore is the least score of a second face that counts: a
	// second person must be found with face-api.js's default confidence
	// (0.5) and be sizeable (decision.BackgroundFaceFrac of the largest
	// face's width, face.Largest), or a poster on the wall would count.
	OtherFaceScore = 0.5
	// otherFaceFrac is decision.BackgroundFaceFrac (not imported: decision
	// imports this package).
	otherFaceFrac = 0.4
)

// Observe runs the face models on one frame of step step: it finds the
// faces, the largest face's landmarks, pose and descriptor, and hashes the
// frame. It returns an error only when the models cannot run.
func Observe(img image.Image, step int) (Observation, error) {
	b := img.Bounds()
	o := Observation{Step: step, Width: b.Dx(), Height: b.Dy(), Pixels: pixelHash(img)}
	faces, err := locate(img)
	if err != nil {
		return Observation{}, err
	}
	if len(faces) == 0 {
		o.Thumb = thumbnail(img, nil)
		return o, nil
	}
	main := faces[face.Largest(faces)]
	o.Faces = 1
	for i, f := range faces {
		if i != face.Largest(faces) && f.Score >= OtherFaceScore && f.Box.W >= otherFaceFrac*main.Box.W {
			o.Faces++
		}
	}
	if err := face.Describe(img, &main); err != nil {
		return Observation{}, err
	}
	o.Face = &main
	o.Pose = main.Pose()
	o.Light = measureLight(img, &main)
	box := image.Rect(int(main.Box.X), int(main.Box.Y), int(main.Box.X+main.Box.W), int(main.Box.Y+main.Box.H))
	o.Thumb = thumbnail(img, &box)
	return o, nil
}

// locate finds the faces at the first of detectSizes that finds any.
func locate(img image.Image) ([]face.Face, error) {
	for _, size := range detectSizes {
		faces, err := face.Locate(img, face.Options{InputSize: size, MinScore: FaceScore})
		if err != nil || len(faces) > 0 {
			return faces, err
		}
	}
	return nil, nil
}

// pixelHash is the SHA-256 of img's size and 8-bit RGBA pixels, so the
// same picture hashes the same whatever file it came in.
func pixelHash(img image.Image) [32]byte {
	b := img.Bounds()
	rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(rgba, rgba.Rect, img, b.Min, draw.Src)
	h := sha256.New()
	var size [8]byte
	binary.LittleEndian.PutUint32(size[:4], uint32(b.Dx()))
	binary.LittleEndian.PutUint32(size[4:], uint32(b.Dy()))
	h.Write(size[:])
	h.Write(rgba.Pix)
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}
