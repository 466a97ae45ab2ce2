package decision

import (
	"fmt"
	"image"
	"math/bits"

	"kycd/face"
	"kycd/kyc"
	"kycd/mrz/ocr"
)

// SigSelfieDocument is the signal that checks that the selfie shows a
// live person's face, not a document.
const SigSelfieDocument = "selfie_not_document"

// Thresholds of selfie_not_document.
const (
	// perceptualSame: at most this many of the 64 bits of two difference
	// hashes differ when one image is the other re-encoded or rescaled.
	perceptualSame = 6
	// cardFaceShare and cardPrintLines: a face covering less than this
	// share of the picture, with at least this many lines of print beside
	// it, is a portrait on a card (a selfie's face fills a good part of
	// the frame, and a face has no lines of print around it).
	cardFaceShare  = 0.06
	cardPrintLines = 4
)

// imageLook is what the engine notes about a document or selfie image to
// tell whether the selfie is a document: its MRZ read and its difference
// hash.
type imageLook struct {
	read    *ocr.Result
	barcode *BarcodeRead // for captures that may carry a licence barcode
	hash    uint64
	pixels  int
	bounds  image.Rectangle
}

// dHash is the 64-bit difference hash of img: the sign of the brightness
// step between neighbours of a 9×8 thumbnail, which survives
// re-encoding, rescaling and small changes of exposure.
func dHash(img image.Image) uint64 {
	g, _ := face.Gray(img, 72)
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	if w == 0 || h == 0 {
		return 0
	}
	var cell [8][9]float64
	var cnt [8][9]float64
	for y := range h {
		for x := range w {
			cy, cx := y*8/h, x*9/w
			cell[cy][cx] += float64(g.Pix[y*g.Stride+x])
			cnt[cy][cx]++
		}
	}
	var out uint64
	for y := range 8 {
		for x := range 8 {
			if cell[y][x]/max(cnt[y][x], 1) > cell[y][x+1]/max(cnt[y][x+1], 1) {
				out |= 1 << (y*8 + x)
			}
		}
	}
	return out
}

// SelfieNotDocument flags (SELFIE_IS_DOCUMENT) a selfie that is a picture
// of a document rather than of a live person's face: one that shows a
// machine-readable zone; the very file of a document capture, or the same
// picture re-encoded (difference hash); or one whose face covers only a
// small part of a picture full of print (a portrait on a card). It is
// not_run without a selfie.
func SelfieNotDocument(selfie *kyc.Capture, sl *imageLook, sf *imageFace, docs []kyc.Capture, dl []*imageLook) Signal {
	if selfie == nil || sl == nil {
		return notRun(SigSelfieDocument, "No selfie was submitted.")
	}
	s := newSignal(SigSelfieDocument)
	s.CaptureID = selfie.ID
	if sl.read != nil {
		s.Data["mrzFound"] = sl.read.Status != ocr.StatusNotFound
		s.Data["printLines"] = sl.read.PrintLines
		if sl.read.Status != ocr.StatusNotFound {
			s.add(Fail, 0, CodeSelfieIsDocument, "The selfie shows a machine-readable zone: it is a picture of a document, not of the applicant.")
		}
	}
	minDist := 64
	for i, d := range docs {
		switch {
		case d.SHA256 == selfie.SHA256 || (d.SourceSHA256 != "" && d.SourceSHA256 == selfie.SourceSHA256):
			s.add(Fail, 0, CodeSelfieIsDocument, fmt.Sprintf("The selfie is the same image as document capture %s.", d.ID))
		case dl[i] != nil:
			dist := bits.OnesCount64(sl.hash ^ dl[i].hash)
			minDist = min(minDist, dist)
			if dist <= perceptualSame {
				s.add(Fail, 0, CodeSelfieIsDocument, fmt.Sprintf("The selfie looks the same as document capture %s (%d of 64 hash bits differ).", d.ID, dist))
			}
		}
	}
	if len(docs) > 0 {
		s.Data["closestDocumentHashDistance"] = minDist
	}
	if sf != nil && sf.face != nil && sl.pixels > 0 && sl.read != nil {
		share := sf.face.Box.W * sf.face.Box.H / float64(sl.pixels)
		s.Data["faceShare"] = round3(share)
		if share < cardFaceShare && sl.read.PrintLines >= cardPrintLines {
			s.add(Fail, 0, CodeSelfieIsDocument, fmt.Sprintf("The face covers %.0f%% of a picture with %d lines of print: a portrait on a card, not a live face.", 100*share, sl.read.PrintLines))
		}
	}
	if len(s.Findings) == 0 {
		s.Detail = "The selfie shows no machine-readable zone and is no copy of a document image."
	} else {
		s.Detail = s.Findings[0].Message
	}
	return s
}
