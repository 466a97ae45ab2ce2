package main

import (
	"bytes"
	"fmt"
	"image"
	"slices"
	"time"

	"kycd/decision"
	"kycd/docforensics"
	"kycd/face"
	"kycd/kyc"
	"kycd/mrz/ocr"
)

// stages times, one at a time on an idle server, the parts of a decision
// that work on pixels, with the components the engine calls, on the
// bench's own inputs: the document photo, the selfie (the first frame of
// a passed session) and that session's frames. The engine records no
// timings and runs these in parallel, so this is each part's cost alone,
// not its share of one decision's wall time; the CPU profile of the
// submit phase (-cpuprofile) shows the same parts' CPU shares.
func stages(doc, selfie []byte, frames [][]byte, reps int) error {
	type stage struct {
		name string
		run  func() error
	}
	var docImg, selfieImg image.Image
	decode := func(b []byte) (image.Image, error) {
		img, _, err := image.Decode(bytes.NewReader(b))
		return img, err
	}
	faceOf := func(img image.Image) error {
		faces, err := face.Locate(img, face.Options{})
		if err != nil || len(faces) == 0 {
			return err
		}
		return face.Describe(img, &faces[face.Largest(faces)])
	}
	var err error
	if docImg, err = decode(doc); err != nil {
		return err
	}
	if selfieImg, err = decode(selfie); err != nil {
		return err
	}
	front := "front"
	list := []stage{
		{"decode the document photo and the selfie (JPEG)", func() error {
			if _, err := decode(doc); err != nil {
				return err
			}
			_, err := decode(selfie)
			return err
		}},
		{"MRZ read of the document (mrz/ocr)", func() error { _, err := ocr.Read(docImg, time.Now()); return err }},
		{"face found and described: document portrait", func() error { return faceOf(docImg) }},
		{"face found and described: selfie", func() error { return faceOf(selfieImg) }},
		{"image signals: quality etc. (decision.ImageSignals), both", func() error {
			decision.ImageSignals(kyc.Capture{Kind: "document", Side: &front}, docImg)
			decision.ImageSignals(kyc.Capture{Kind: "selfie"}, selfieImg)
			return nil
		}},
		{"authenticity: rendering + recapture (docforensics)", func() error {
			_, rm := docforensics.Rendering(docImg)
			docforensics.Recapture(docImg, rm.NoiseFloor)
			return nil
		}},
		{fmt.Sprintf("authenticity: faces of the %d session frames (portrait_not_selfie)", len(frames)), func() error {
			for _, f := range frames {
				img, err := decode(f)
				if err != nil {
					return err
				}
				// Found and described, as the engine's sessionFrames does.
				if err := faceOf(img); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	fmt.Printf("\neach part alone, median of %d runs, one part at a time on the idle server (the face network uses both cores):\n", reps)
	for _, s := range list {
		var d []float64
		for range reps {
			t0 := time.Now()
			if err := s.run(); err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			d = append(d, ms(time.Since(t0)))
		}
		slices.Sort(d)
		fmt.Printf("  %-66s %6.0f ms\n", s.name, d[len(d)/2])
	}
	return nil
}
