// Package face finds frontal human faces in a photo, in pure Go, with
// pigo (a port of Markus et al.'s pico: pixel-intensity-comparison
// decision-tree cascades, arxiv.org/abs/1305.4537) and pico's facefinder
// cascade, embedded.
//
// It only says where faces are, not whose they are. The cascade was
// trained on upright frontal faces: heads turned to profile or pitched
// far down are missed, and faces narrower than 5% of the image's shorter
// side (or 20 px of the working copy) are not looked for; see
// realdata_test.go for what that means on real photos.
package face

import "image"

// Box is one face in the coordinates of the image given to Detect.
type Box struct {
	X, Y, W, H int
	// Score is pigo's cluster score: the sum of the cascade outputs of the
	// overlapping windows merged into this box. It is not a probability:
	// more agreeing windows, and more confident ones, give more.
	Score float64
}

// Tuning, calibrated on the shared real images; realdata_test.go logs
// the figures behind each choice.
const (
	// WorkSide is the longer side of the grayscale copy the cascade scans.
	// A phone photo is shrunk to it, which bounds the memory and the gray
	// conversion; a group photo's 60 px faces stay ~40 px. Scanning at
	// 1200, 1600 px or full size found no more labelled faces here.
	WorkSide = 1000
	// minFacePx is the smallest window scanned, in working pixels.
	minFacePx = 20
	// minFaceFrac also bounds the smallest window by the image. The cost is
	// set by it (windows scale as 1/(shift·size)², whatever the working
	// size): 5% of the shorter side found the same faces here as 3% for a
	// third less CPU, and still covers a document portrait (10-15% of the
	// card's width) on a card filling a third of a phone photo. A selfie's
	// face is far larger; smaller background faces are the ones it misses.
	minFaceFrac = 0.05
	// shiftFactor moves the window by 10% of its size, denser than pigo's
	// usual 0.15-0.2, for recall on small faces: at 0.125 or 0.15 the
	// Biden of the side-by-side photo or document portraits were lost.
	// Halving it quadruples the time and found no more labelled faces.
	shiftFactor = 0.1
	// scaleFactor grows the window by 10% per scale (pigo's default).
	scaleFactor = 1.1
	// clusterIoU merges windows overlapping by more than this into one
	// face, as pigo's examples do.
	clusterIoU = 0.2
	// overlapIoU drops a cluster that overlaps a better one by more than
	// this: pigo's clustering is not transitive, so one face can come out
	// as two heavily overlapping clusters.
	overlapIoU = 0.3
	// MinScore drops clusters below it. On the shared images every true
	// face found scored ≥ 13 and every other cluster ≤ 6.2 (none at all
	// on the no-face photos), so 8 sits between them.
	MinScore = 8.0
)

// Detect returns the upright faces in img, highest score first. It is
// deterministic and safe for concurrent use.
func Detect(img image.Image) []Box {
	g, f := Gray(img, WorkSide)
	return detectGray(g, f, img.Bounds(), defaultParams)
}

// DetectTurned is Detect for images that may lie on their side, such as a
// document photographed in portrait. When no upright face is found it
// looks again with the image turned a quarter clockwise, a quarter
// anticlockwise and upside down, and keeps the turn whose best face
// scores highest: a face lying on its side is sometimes also found,
// weakly, at the wrong turn. It returns the faces in img's coordinates
// and the clockwise degrees (0, 90, 180 or 270) the image had to be turned
// for them. With no face at all it costs four Detects.
func DetectTurned(img image.Image) ([]Box, int) {
	g, f := Gray(img, WorkSide)
	b := img.Bounds()
	if boxes := detectGray(g, f, b, defaultParams); len(boxes) > 0 {
		return boxes, 0
	}
	var best []Box
	bestDeg := 0
	for _, deg := range []int{90, 270, 180} {
		tb := image.Rect(0, 0, b.Dy(), b.Dx())
		if deg == 180 {
			tb = image.Rect(0, 0, b.Dx(), b.Dy())
		}
		boxes := detectGray(turn(g, deg), f, tb, defaultParams)
		// Boxes come best first; ties keep the earlier turn.
		if len(boxes) > 0 && (best == nil || boxes[0].Score > best[0].Score) {
			best, bestDeg = boxes, deg
		}
	}
	for i, x := range best {
		best[i] = unturn(x, bestDeg, b)
	}
	return best, bestDeg
}
