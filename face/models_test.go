package face

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"testing"
)

// TestModelFiles pins the embedded model files: @vladmandic/face-api
// 1.7.15's model/ files and LICENSE, byte for byte as `npm pack` gives
// them. Replacing a model must be a visible change here.
func TestModelFiles(t *testing.T) {
	want := map[string]string{
		"LICENSE": "9a3442b79acaf4fbc7c2e07b7e2d8f84af9bb3871bf08a69d80304ab00640e9a",
		"tiny_face_detector_model-weights_manifest.json":    "5d1af4849ac48d5b985f4a9b16010c512353ddd6fcc63d50fd0bc9e9e64296e5",
		"tiny_face_detector_model.bin":                      "b7503ce7df31039b1c43316a9b865cab6a70dd748cc602d3fa28b551503c3871",
		"face_landmark_68_tiny_model-weights_manifest.json": "9a1a5dd19fd814fd5095c3cb58f8e0d3193b8c5b9a6715b30a69d559aea31ad4",
		"face_landmark_68_tiny_model.bin":                   "b98e9f2f7da76f8a6dda9741a36ed485b224b889d552de2b2c1bb16217f67bfc",
		"face_recognition_model-weights_manifest.json":      "cbaffa501b0b9275a12b63357a6843e7e30c054e1c9151e1a5f879b26e32986b",
		"face_recognition_model.bin":                        "b413e420d6840b2775fba32008db6f3cddb07d485967fb42cfcf379c16a8c589",
	}
	entries, err := fs.ReadDir(modelFiles, "models")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("%d embedded files, want %d", len(entries), len(want))
	}
	for name, sum := range want {
		b, err := modelFiles.ReadFile("models/" + name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		h := sha256.Sum256(b)
		if got := hex.EncodeToString(h[:]); got != sum {
			t.Errorf("%s: sha256 %s, want %s", name, got, sum)
		}
	}
	// Every weight of every manifest is used, with the shape the
	// networks expect (loadNets fails otherwise).
	if _, err := loadNets(); err != nil {
		t.Fatal(err)
	}
}
