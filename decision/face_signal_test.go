package decision

import (
	"image"
	"path/filepath"
	"strings"
	"testing"

	"kycd/face"
)

func TestFacePresenceWithoutFaces(t *testing.T) {
	page := textPage(640, 480, 1)
	for _, c := range []struct {
		kind string
		img  image.Image
	}{
		{"selfie", page},
		{"document", page},
		{"selfie", nil},
		{"document", image.NewGray(image.Rect(0, 0, 0, 0))},
	} {
		s := FacePresence("c1", c.kind, c.img)
		if s.Status != Fail || !hasFinding(s, CodeFaceNotDetected) || s.Score != 0 || s.CaptureID != "c1" || s.Name != SigFacePresence {
			t.Errorf("%s %v: %+v, want fail with %s", c.kind, c.img != nil, s, CodeFaceNotDetected)
		}
	}
	if s := FacePresence("c1", "utility_bill", page); s.Status != NotRun {
		t.Errorf("unknown kind: %s, want not_run", s.Status)
	}
}

// paste copies src, shrunk to width w, onto dst at (x, y).
func paste(dst *image.Gray, src image.Image, x, y, w int) {
	g, _ := face.Gray(src, max(w, w*src.Bounds().Dy()/src.Bounds().Dx()))
	for row := range g.Rect.Dy() {
		copy(dst.Pix[(y+row)*dst.Stride+x:], g.Pix[row*g.Stride:row*g.Stride+g.Rect.Dx()])
	}
}

func TestRealFacePresenceBackgroundFaces(t *testing.T) {
	dir := qualityImagesDir(t)
	main := decodeImageFile(t, filepath.Join(dir, "face_paulrudd_01.jpg"))    // 512×720
	other := decodeImageFile(t, filepath.Join(dir, "face_chrispratt_01.jpg")) // 512×678
	for _, c := range []struct {
		otherWidth int
		want       string
	}{
		{0, ""},                  // alone
		{110, ""},                // a small face behind: ~0.2 of the main face's width
		{400, CodeMultipleFaces}, // a second person beside: ~0.8
	} {
		canvas := image.NewGray(image.Rect(0, 0, 1000, 720))
		for i := range canvas.Pix {
			canvas.Pix[i] = 128
		}
		paste(canvas, main, 0, 0, 512)
		if c.otherWidth > 0 {
			paste(canvas, other, 560, 40, c.otherWidth)
		}
		s := FacePresence("c1", "selfie", canvas)
		t.Logf("other face %d px wide: %s, faces %v, sizeable %v, boxes %v", c.otherWidth, s.Status, s.Data["faces"], s.Data["sizeableFaces"], s.Data["boxes"])
		if c.want == "" && (s.Status != Pass || len(s.Findings) != 0) {
			t.Errorf("other face %d px wide: %s %v, want pass", c.otherWidth, s.Status, s.Findings)
		}
		if c.want != "" && (s.Status != Fail || !hasFinding(s, c.want)) {
			t.Errorf("other face %d px wide: %s %v, want fail with %s", c.otherWidth, s.Status, s.Findings, c.want)
		}
	}
}

// docBacks are the document images with no portrait (card backs).
var docBacks = map[string]bool{
	"doc_td1_aut_id_back.png":            true,
	"doc_td1_che_id_back.jpg":            true,
	"doc_td1_deu_id_back_lowres.jpg":     true,
	"doc_td1_svn_id_back.jpg":            true,
	"doc_td1_usa_passport_card_back.jpg": true,
}

// faceMisses are photos of one person whose face the frontal detector
// does not find (see face/realdata_test.go): cut by the frame, pitched
// down to the desk, and 30×40 px.
var faceMisses = map[string]bool{
	"face_obama_05_partial_face.jpg":             true,
	"face_obama_06_oval_office_looking_down.jpg": true,
	"face_obama_07_small_face_with_dog.jpg":      true,
}

func TestRealFacePresence(t *testing.T) {
	for _, r := range realImageSignals(t) {
		n, kind, s := r.name, r.kind, r.faces
		var want string // "" = pass
		switch {
		case strings.HasPrefix(n, "noface_"), n == "blur_clock_motion.png", docBacks[n], faceMisses[n]:
			want = CodeFaceNotDetected
		case strings.HasPrefix(n, "group_"):
			want = CodeMultipleFaces
		}
		got := ""
		if len(s.Findings) > 0 {
			got = s.Findings[0].Code
		}
		if got != want || (want == "") != (s.Status == Pass) {
			t.Errorf("%s as %s: %s %v (faces %v), want %q", n, kind, s.Status, s.Findings, s.Data["faces"], want)
		}
		if want == "" && (s.Score < 0.6 || s.Data["largest"] == nil) {
			t.Errorf("%s: score %v largest %v, want ≥ 0.6 and a box", n, s.Score, s.Data["largest"])
		}
	}
}
