package decision

import (
	"fmt"
	"image"
	"math"

	"kycd/face"
	"kycd/kyc"
)

// SigFaceMatch is the signal that compares the selfie's face with the
// document portrait.
const SigFaceMatch = "face_match"

// FaceMatchModel names the models behind face_match in its data, so a
// stored result says what produced it.
const FaceMatchModel = "face-api.js 1.7.15 (tiny face detector, tiny 68-point landmarks, dlib ResNet face descriptor)"

// documentInputSizes are the detector input sizes tried on a document,
// upright and then turned: 416 is face-api.js's default; 608 finds a
// portrait that is small on a large page (the French ID specimen of the
// shared images is only found there). A selfie's face is large; 608 is
// the fallback there too.
var documentInputSizes = [...]int{face.DefaultInputSize, 608}

// FaceMatch compares the largest face of the selfie with the document's
// portrait (its best-scoring face: a document's ghost image is fainter and
// a false box around the whole card scores lower) by the distance between
// their face descriptors (face.Compare). It passes below VerifyThreshold,
// warns FACE_MATCH_UNCERTAIN (a reviewer compares) from there to
// face.MatchThreshold and fails with FACE_MISMATCH at or above it; Data's
// operatingPoint says which decided. Score
// is the similarity, face.Similarity: 1 − distance/(2·threshold) clamped
// to [0, 1], so 0.5 is the threshold and a pass always scores above it.
//
// It is not_run, saying why, when either image is missing. When both are
// there but the model finds no face in one, it fails with
// FACE_NOT_DETECTED: face_presence uses another detector (pigo) and may
// have found one, and a request whose faces could not be compared must
// not be approved for lack of a finding. A document lying on its side is
// looked at turned. Data has the distance, similarity and threshold, and
// for each side the capture, the face box (image pixels), detector score,
// faces found, turn and landmark quality (eye distance in pixels, roll,
// yaw, share of landmarks inside the image). It runs the neural models, about 0.3-1 s of CPU per pair: call
// it from the processing job, never in a request.
func FaceMatch(doc, selfie kyc.Capture, docImg, selfieImg image.Image) Signal {
	var d, sf *imageFace
	if docImg != nil && !docImg.Bounds().Empty() {
		f := findFace(docImg, true)
		d = &f
	}
	if selfieImg != nil && !selfieImg.Bounds().Empty() {
		f := findFace(selfieImg, false)
		sf = &f
	}
	return faceMatch(doc, selfie, d, sf)
}

// imageFace is the face face_match compares in one image, described, or
// why there is none (err: the models could not run; face nil: no face).
type imageFace struct {
	face   *face.Face
	found  int // faces found
	turned int // clockwise degrees the image was turned to find them
	err    error
}

// findFace finds and describes the face face_match compares: on a
// document its best-scoring face (a document's ghost image is fainter and
// a false box around the whole card scores lower), looked for turned too;
// in a selfie the largest. It runs the neural models: the slow part of
// face_match, which the engine runs per image, in parallel.
func findFace(img image.Image, document bool) imageFace {
	faces, turned, err := findFaces(img, document)
	if err != nil || len(faces) == 0 {
		return imageFace{err: err}
	}
	f := faces[0]
	if !document {
		f = faces[face.Largest(faces)]
	}
	if err := face.Describe(img, &f); err != nil {
		return imageFace{err: err}
	}
	return imageFace{face: &f, found: len(faces), turned: turned}
}

// faceMatch compares the faces findFace found; d or sf is nil when that
// image is missing.
func faceMatch(doc, selfie kyc.Capture, d, sf *imageFace) Signal {
	switch {
	case d == nil:
		return notRun(SigFaceMatch, "No document image to compare the selfie with.")
	case sf == nil:
		return notRun(SigFaceMatch, "No selfie to compare with the document portrait.")
	case d.err != nil:
		return notRun(SigFaceMatch, "The face models could not run: "+d.err.Error())
	case sf.err != nil:
		return notRun(SigFaceMatch, "The face models could not run: "+sf.err.Error())
	case d.face == nil || sf.face == nil:
		s := newSignal(SigFaceMatch)
		s.Data["threshold"] = face.MatchThreshold
		s.Data["model"] = FaceMatchModel
		msg := "No face was found on the document to compare with the selfie."
		if d.face != nil {
			msg = "No face was found in the selfie to compare with the document."
		}
		s.add(Fail, 0, CodeFaceNotDetected, msg)
		s.Detail = msg
		return s
	}

	dist := face.Compare(d.face.Descriptor, sf.face.Descriptor)
	sim := face.Similarity(dist)
	s := newSignal(SigFaceMatch)
	s.Data["distance"] = round3(dist)
	s.Data["similarity"] = round3(sim)
	s.Data["threshold"] = face.MatchThreshold
	s.Data["model"] = FaceMatchModel
	docData := faceMatchData(doc.ID, d.face, d.found)
	docData["turnedDegrees"] = d.turned
	s.Data["document"] = docData
	s.Data["selfie"] = faceMatchData(selfie.ID, sf.face, sf.found)
	s.Data["verifyThreshold"] = VerifyThreshold
	switch {
	case dist >= face.MatchThreshold:
		s.Data["operatingPoint"] = OpMismatch
		s.add(Fail, round3(sim), CodeFaceMismatch, fmt.Sprintf(
			"The selfie does not match the document portrait: descriptor distance %.2f, at or above the threshold %.2f.", dist, face.MatchThreshold))
		s.Detail = s.Findings[0].Message
	case dist >= VerifyThreshold:
		s.Data["operatingPoint"] = OpReview
		s.add(Warn, round3(sim), CodeFaceMatchUncertain, fmt.Sprintf(
			"The selfie may show the document's holder, but not surely: descriptor distance %.3f, between the verification threshold %.2f and the mismatch threshold %.2f; a reviewer must compare the faces.",
			dist, VerifyThreshold, face.MatchThreshold))
		s.Detail = s.Findings[0].Message
	default:
		s.Data["operatingPoint"] = OpVerify
		s.Score = round3(sim)
		s.Detail = fmt.Sprintf("The selfie matches the document portrait: descriptor distance %.3f, below the verification threshold %.2f (false-match rate 1 in 10,000).", dist, VerifyThreshold)
	}
	return s
}

// findFaces locates faces at each of documentInputSizes until some are
// found; documents are also looked at turned (after every size upright).
func findFaces(img image.Image, turn bool) ([]face.Face, int, error) {
	for _, size := range documentInputSizes {
		faces, err := face.Locate(img, face.Options{InputSize: size})
		if err != nil || len(faces) > 0 {
			return faces, 0, err
		}
	}
	if !turn {
		return nil, 0, nil
	}
	for _, size := range documentInputSizes {
		faces, turned, err := face.LocateTurned(img, face.Options{InputSize: size})
		if err != nil || len(faces) > 0 {
			return faces, turned, err
		}
	}
	return nil, 0, nil
}

// faceMatchData is one side of face_match's data.
func faceMatchData(captureID string, f *face.Face, found int) map[string]any {
	q := f.Quality
	return map[string]any{
		"captureId": captureID,
		"faces":     found,
		"score":     round3(f.Score),
		"box": map[string]any{
			"x": math.Round(f.Box.X), "y": math.Round(f.Box.Y), "w": math.Round(f.Box.W), "h": math.Round(f.Box.H),
		},
		"landmarks": map[string]any{
			"eyeDistancePx": math.Round(q.EyeDistance*10) / 10,
			"rollDegrees":   math.Round(q.Roll*10) / 10,
			"yaw":           math.Round(q.Yaw*1000) / 1000,
			"inImage":       round3(q.InImage),
		},
	}
}

// Operating points of face_match, recorded in its data ("operatingPoint").
//
// VerifyThreshold is the verification point: below it the faces are
// taken for one person. It is set for a false-match rate of at most 1 in
// 10,000 on the impostor pairs of the shared photos (TestFaceMatchCalibration:
// persons split in two halves by a fixed hash; on the calibration half's
// 878 impostor pairs the closest measured 0.522 and the normal tail
// fitted to them puts 1e-4 at 0.441). On the held-out half (923 impostor
// pairs, 90 genuine) it matched no impostor pair (95% upper bound 0.33%:
// too few pairs to show 1e-4 by counting) and accepted 39 genuine pairs
// (43%); 25 more fell in the review band. face.MatchThreshold (0.6,
// face-api.js's usual) stays the point from which the faces are taken for
// two people; between the two a reviewer compares them, the distance
// shown (FACE_MATCH_UNCERTAIN), rather than the request being refused.
const VerifyThreshold = 0.44

// Names of the operating points.
const (
	OpVerify   = "verify_fmr_1e-4" // distance below VerifyThreshold: pass
	OpReview   = "review_band"     // from VerifyThreshold to face.MatchThreshold: FACE_MATCH_UNCERTAIN
	OpMismatch = "mismatch"        // face.MatchThreshold and above: FACE_MISMATCH
)
