package decision

import (
	"image"
	"image/color"
	"path/filepath"
	"strings"
	"testing"

	"kycd/face"
	"kycd/kyc"
)

func TestFaceMatchNotRunWithoutFaces(t *testing.T) {
	page := textPage(640, 480, 1)
	doc, selfie := kyc.Capture{ID: "d"}, kyc.Capture{ID: "s"}
	for _, c := range []struct {
		name         string
		docImg, self image.Image
		want         Status
		why          string
	}{
		{"no document", nil, page, NotRun, "No document image"},
		{"empty document", image.NewGray(image.Rect(0, 0, 0, 0)), page, NotRun, "No document image"},
		{"no selfie", page, nil, NotRun, "No selfie"},
		// Both images, no face to compare: a finding, so that the request
		// is not approved without its faces compared.
		{"no face on the document", page, page, Fail, "No face was found on the document"},
	} {
		s := FaceMatch(doc, selfie, c.docImg, c.self)
		if s.Status != c.want || s.Name != SigFaceMatch || !strings.Contains(s.Detail, c.why) {
			t.Errorf("%s: %s %q, want %s %q", c.name, s.Status, s.Detail, c.want, c.why)
		}
		if c.want == Fail && !hasFinding(s, CodeFaceNotDetected) {
			t.Errorf("%s: findings %v, want %s", c.name, s.Findings, CodeFaceNotDetected)
		}
	}
}

// turnLeft returns img turned a quarter anticlockwise, as a document
// photographed in portrait.
func turnLeft(img image.Image) image.Image {
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dy(), b.Dx()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			out.Set(y, b.Dx()-1-x, color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)))
		}
	}
	return out
}

func TestRealFaceMatch(t *testing.T) {
	dir := qualityImagesDir(t)
	load := func(name string) image.Image { return decodeImageFile(t, filepath.Join(dir, name)) }
	doc, selfie := kyc.Capture{ID: "doc1"}, kyc.Capture{ID: "selfie1"}
	for _, c := range []struct {
		name           string
		docImg, selfie image.Image
		want           Status
		turned         int
	}{
		// Same person: the ICAO specimen's passport and travel document.
		{"same specimen", load("doc_td3_uto_icao_specimen.jpg"), load("doc_td2_uto_icao_specimen.jpg"), Pass, 0},
		{"same person, other photos", load("face_obama_04_lowres_320x240.jpg"), load("face_obama_02_podium.jpg"), Pass, 0},
		{"document on its side", turnLeft(load("doc_td3_uto_icao_specimen.jpg")), load("doc_mrvb_uto_icao_visa.png"), Pass, 90},
		{"someone else", load("doc_td3_uto_icao_specimen.jpg"), load("face_eileencollins_01.png"), Fail, 0},
		{"similar-looking actors", load("face_paulrudd_01.jpg"), load("face_chrispratt_01.jpg"), Fail, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := FaceMatch(doc, selfie, c.docImg, c.selfie)
			dist, _ := s.Data["distance"].(float64)
			t.Logf("%s: %s, distance %.3f, similarity %v, score %v: %s", c.name, s.Status, dist, s.Data["similarity"], s.Score, s.Detail)
			if s.Status != c.want {
				t.Fatalf("status %s, want %s: %s", s.Status, c.want, s.Detail)
			}
			if c.want == Fail && !hasFinding(s, CodeFaceMismatch) {
				t.Errorf("findings %v, want %s", s.Findings, CodeFaceMismatch)
			}
			if got := s.Score; (c.want == Pass) != (got > 0.5) || got != s.Data["similarity"] {
				t.Errorf("score %v with similarity %v for %s", got, s.Data["similarity"], s.Status)
			}
			if s.Data["threshold"] != face.MatchThreshold {
				t.Errorf("threshold %v", s.Data["threshold"])
			}
			d := s.Data["document"].(map[string]any)
			if d["captureId"] != "doc1" || d["turnedDegrees"] != c.turned || d["landmarks"] == nil || d["box"] == nil {
				t.Errorf("document data %v", d)
			}
			if sd := s.Data["selfie"].(map[string]any); sd["captureId"] != "selfie1" || sd["faces"] != 1 {
				t.Errorf("selfie data %v", sd)
			}
		})
	}
}
