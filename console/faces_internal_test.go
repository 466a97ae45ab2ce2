package console

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	xdraw "image/draw"
	_ "image/jpeg"
	"math"
	"os"
	"testing"

	"kycd/decision"
	"kycd/face"
	"kycd/internal/realdata"
	"kycd/kyc"
)

// TestAlignedFaces: the document portrait and the selfie of a real pair,
// as face_match records them, are cropped to the same scale: found again
// in the crops, each face has its eyes faceCropEyes apart (within 12%),
// centred alike, however different the originals' resolutions; a
// document lying on its side comes out upright.
func TestAlignedFaces(t *testing.T) {
	load := func(rel string) image.Image {
		t.Helper()
		b, err := os.ReadFile(realdata.Path(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	passport := load("images/doc_td3_deu_passport_specimen.jpg")
	for _, tc := range []struct {
		name   string
		doc    image.Image
		selfie string
	}{
		{"passport specimen and a portrait", passport, "images/face_obama_01_official_portrait.jpg"},
		// The same page photographed on its side (turned here, a quarter
		// anticlockwise): face_match finds the portrait turned.
		{"passport on its side", quarterAnticlockwise(passport), "images/face_paulrudd_01.jpg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docImg, selfieImg := tc.doc, load(tc.selfie)
			sig := decision.FaceMatch(kyc.Capture{ID: "cap_doc"}, kyc.Capture{ID: "cap_selfie"}, docImg, selfieImg)
			// As stored: processingResult is JSON.
			raw, err := json.Marshal(map[string]any{"signals": []decision.Signal{sig}})
			if err != nil {
				t.Fatal(err)
			}
			var pr map[string]any
			if err := json.Unmarshal(raw, &pr); err != nil {
				t.Fatal(err)
			}
			if len(faceViews("/c", pr)) != 2 {
				t.Fatalf("face_match found no face on a side: %s", sig.Detail)
			}
			var centres []face.Point
			for side, img := range map[string]image.Image{"document": docImg, "selfie": selfieImg} {
				_, box, eyes, turn, ok := faceSide(pr, side)
				if !ok {
					t.Fatalf("%s: no face", side)
				}
				crop := alignedFace(img, box, eyes, turn)
				// Found again on a wider canvas: the detector wants some
				// room around a face (the crop is measured in its middle).
				canvas := image.NewRGBA(image.Rect(0, 0, 2*faceCropSide, 2*faceCropSide))
				xdraw.Draw(canvas, canvas.Bounds(), image.NewUniform(color.Gray{Y: 128}), image.Point{}, xdraw.Src)
				xdraw.Draw(canvas, crop.Bounds().Add(image.Pt(faceCropSide/2, faceCropSide/2)), crop, image.Point{}, xdraw.Src)
				faces, err := face.Locate(canvas, face.Options{})
				if err != nil || len(faces) == 0 {
					t.Fatalf("%s (eyes %.0f px, turned %d): no upright face in the crop (%v)", side, eyes, turn, err)
				}
				f := faces[face.Largest(faces)]
				got := f.Quality.EyeDistance
				t.Logf("%s: eyes %.1f px in the original (turned %d), %.1f px in the crop", side, eyes, turn, got)
				if math.Abs(got-faceCropEyes)/faceCropEyes > 0.12 {
					t.Errorf("%s: eyes %.1f px apart in the crop, want %d", side, got, faceCropEyes)
				}
				if math.Abs(f.Quality.Roll) > 20 {
					t.Errorf("%s: the face in the crop is tilted %.0f°", side, f.Quality.Roll)
				}
				centres = append(centres, face.Point{X: f.Box.X + f.Box.W/2 - faceCropSide/2, Y: f.Box.Y + f.Box.H/2 - faceCropSide/2})
			}
			if d := math.Hypot(centres[0].X-centres[1].X, centres[0].Y-centres[1].Y); d > 0.12*faceCropSide {
				t.Errorf("the faces' centres are %.0f px apart in the two crops", d)
			}
		})
	}
}

// quarterAnticlockwise is img turned 90° anticlockwise.
func quarterAnticlockwise(img image.Image) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dy(), b.Dx()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			out.Set(y-b.Min.Y, b.Max.X-1-x, img.At(x, y))
		}
	}
	return out
}
