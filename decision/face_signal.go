package decision

import (
	"fmt"
	"image"

	"kycd/face"
)

// BackgroundFaceFrac is how wide, relative to the largest face, another
// face in a selfie must be to count as a second person: smaller ones are
// taken for a passer-by, a poster or a photo on the wall. The two people
// of the side-by-side test photo measure 0.73.
const BackgroundFaceFrac = 0.4

// strongFaceScore is the face.Box score from which a face is certain
// enough for a full Score; document portraits and selfies here mostly
// score 40-460, the weakest true faces 13-25.
const strongFaceScore = 40

// FacePresence checks the faces in one capture with face.Detect: a
// document (kind "document") must show at least one (its portrait; a
// document lying on its side is looked at turned upright too), a selfie
// exactly one sizeable face. Data has the faces found (boxes in image
// pixels, best first) and the largest.
func FacePresence(captureID, kind string, img image.Image) Signal {
	if kind != "document" && kind != "selfie" {
		s := notRun(SigFacePresence, fmt.Sprintf("Faces are checked on documents and selfies, not on %q.", kind))
		s.CaptureID = captureID
		return s
	}
	s := newSignal(SigFacePresence)
	s.CaptureID = captureID
	if img == nil || img.Bounds().Empty() {
		s.add(Fail, 0, CodeFaceNotDetected, "The image is empty.")
		s.Detail = "The image is empty."
		return s
	}

	var boxes []face.Box
	if kind == "document" {
		var turned int
		boxes, turned = face.DetectTurned(img)
		s.Data["turnedDegrees"] = turned
	} else {
		boxes = face.Detect(img)
	}
	s.Data["faces"] = len(boxes)
	s.Data["boxes"] = boxData(boxes)
	if len(boxes) == 0 {
		what := "No face was found in the selfie."
		if kind == "document" {
			what = "No portrait was found on the document."
		}
		s.add(Fail, 0, CodeFaceNotDetected, what)
		s.Detail = what
		return s
	}
	largest := boxes[0]
	for _, b := range boxes[1:] {
		if b.W*b.H > largest.W*largest.H {
			largest = b
		}
	}
	s.Data["largest"] = boxData([]face.Box{largest})[0]
	s.Score = faceConfidence(boxes[0].Score)

	if kind == "document" {
		s.Detail = fmt.Sprintf("Portrait found (%d face(s) on the document).", len(boxes))
		return s
	}
	sizeable := 0
	for _, b := range boxes {
		if float64(b.W) >= BackgroundFaceFrac*float64(largest.W) {
			sizeable++
		}
	}
	s.Data["sizeableFaces"] = sizeable
	if sizeable > 1 {
		s.add(Fail, 0.2, CodeMultipleFaces, fmt.Sprintf("%d faces were found in the selfie; it must show the applicant alone.", sizeable))
		s.Detail = s.Findings[0].Message
		return s
	}
	s.Detail = "One face found in the selfie."
	return s
}

// faceConfidence maps the best face's score to the signal's Score: 1 from
// strongFaceScore up, down to 0.6 at face.MinScore.
func faceConfidence(q float64) float64 {
	t := (q - face.MinScore) / (strongFaceScore - face.MinScore)
	return round3(0.6 + 0.4*min(1, max(0, t)))
}

// boxData turns boxes into the JSON-friendly form stored in Data.
func boxData(boxes []face.Box) []map[string]any {
	out := make([]map[string]any, 0, len(boxes))
	for _, b := range boxes {
		out = append(out, map[string]any{"x": b.X, "y": b.Y, "w": b.W, "h": b.H, "score": round3(b.Score)})
	}
	return out
}
