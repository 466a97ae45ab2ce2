package face

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // the shared images are JPEG and PNG
	_ "image/png"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"

	"kycd/internal/realdata"
)

// The shared images (see images/SOURCES.md there). What each test asserts
// is what the detector achieves on them today, so a regression fails; the
// logs give the figures.

// docBacks are the document images that show no portrait: the backs of ID
// cards, checked by eye.
var docBacks = map[string]bool{
	"doc_td1_aut_id_back.png":            true,
	"doc_td1_che_id_back.jpg":            true,
	"doc_td1_deu_id_back_lowres.jpg":     true,
	"doc_td1_svn_id_back.jpg":            true,
	"doc_td1_usa_passport_card_back.jpg": true,
}

func imagesDir(t testing.TB) string {
	t.Helper()
	return filepath.Dir(realdata.Path(t, "images/faces.csv"))
}

func decodeFile(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	return img
}

func imageFiles(t testing.TB, dir, pattern string) []string {
	t.Helper()
	var out []string
	for _, ext := range []string{".jpg", ".png"} {
		m, err := filepath.Glob(filepath.Join(dir, pattern+ext))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Fatalf("no %s images in %s", pattern, dir)
	}
	return out
}

func describe(boxes []Box) string {
	var s []string
	for _, b := range boxes {
		s = append(s, fmt.Sprintf("%d,%d %dx%d q%.0f", b.X, b.Y, b.W, b.H, b.Score))
	}
	return strings.Join(s, "; ")
}

// labelledFace is one "Face" region of face_regions.json.
type labelledFace struct {
	file, name string
	box        Box
}

func labelledFaces(t *testing.T, dir string) []labelledFace {
	b, err := os.ReadFile(filepath.Join(dir, "face_regions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []labelledFace
	for file, raw := range doc {
		if strings.HasPrefix(file, "_") { // _note
			continue
		}
		var v struct {
			Regions []struct {
				Name, Type string
				BoxXYXY    [4]int `json:"box_xyxy_px"`
			}
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, r := range v.Regions {
			if r.Type == "Face" {
				x := r.BoxXYXY
				out = append(out, labelledFace{file, r.Name, Box{X: x[0], Y: x[1], W: x[2] - x[0], H: x[3] - x[1]}})
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no labelled faces")
	}
	return out
}

func TestRealLabelledFaces(t *testing.T) {
	dir := imagesDir(t)
	cache := map[string][]Box{}
	hits, all := 0, labelledFaces(t, dir)
	for _, l := range all {
		boxes, ok := cache[l.file]
		if !ok {
			boxes = Detect(decodeFile(t, filepath.Join(dir, l.file)))
			cache[l.file] = boxes
		}
		best := 0.0
		for _, b := range boxes {
			best = max(best, IoU(b, l.box))
		}
		if best >= 0.3 {
			hits++
		}
		t.Logf("%-45s %-16s label %v: best IoU %.2f", l.file, l.name, l.box, best)
	}
	rate := float64(hits) / float64(len(all))
	t.Logf("labelled faces hit (IoU >= 0.3): %d/%d = %.0f%%", hits, len(all), 100*rate)
	// Found: Obama, Mullen and Clinton in the Situation Room. Missed: Biden
	// there (turned to profile), Obama looking down at his desk, and
	// Obama's 30×40 px face in the Rose Garden.
	if hits < 3 {
		t.Errorf("hit %d labelled faces, want >= 3", hits)
	}
}

func TestRealNoFacePhotos(t *testing.T) {
	dir := imagesDir(t)
	files := imageFiles(t, dir, "noface_*")
	files = append(files, filepath.Join(dir, "blur_clock_motion.png"))
	for name := range docBacks {
		files = append(files, filepath.Join(dir, name))
	}
	fp := 0
	for _, f := range files {
		boxes := Detect(decodeFile(t, f))
		fp += len(boxes)
		t.Logf("%-45s %d faces %s", filepath.Base(f), len(boxes), describe(boxes))
	}
	t.Logf("false positives on %d face-free images: %d", len(files), fp)
	if fp != 0 {
		t.Errorf("%d false positives, want 0", fp)
	}
}

func TestRealDocumentPortraits(t *testing.T) {
	dir := imagesDir(t)
	files := imageFiles(t, dir, "doc_*")
	files = append(files, imageFiles(t, dir, "lowq_*")...)
	files = append(files, imageFiles(t, dir, "synth_*_doc_*")...)
	want, found := 0, 0
	var missed []string
	for _, f := range files {
		name := filepath.Base(f)
		if docBacks[name] {
			continue
		}
		want++
		img := decodeFile(t, f)
		boxes, deg := DetectTurned(img)
		if len(boxes) > 0 {
			found++
		} else {
			missed = append(missed, name)
		}
		t.Logf("%-45s turned %3d°: %d faces %s", name, deg, len(boxes), describe(boxes))
		if name == "doc_td3_lva_traveldoc_rotated90.jpg" {
			// The booklet lies on its side: found only when turned back.
			if up := Detect(img); len(up) != 0 || deg != 270 {
				t.Errorf("%s: upright %d faces, turned %d°; want 0 upright and found at 270°", name, len(up), deg)
			}
		}
	}
	t.Logf("portraits found on document images: %d/%d (missed %v)", found, want, missed)
	if found != want {
		t.Errorf("found portraits on %d of %d documents, want all; missed %v", found, want, missed)
	}
}

// singleFacePhotos lists the photos of one person (not documents) that
// faces.csv expects one face in.
func singleFacePhotos(t *testing.T, dir string) []string {
	f, err := os.Open(filepath.Join(dir, "faces.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows[1:] {
		if strings.Contains(r[0], "face_") && strings.HasPrefix(r[2], "1") {
			out = append(out, r[0])
		}
	}
	return out
}

func TestRealSingleFacePhotos(t *testing.T) {
	dir := imagesDir(t)
	files := singleFacePhotos(t, dir)
	found, extra := 0, 0
	var missed []string
	for _, name := range files {
		boxes := Detect(decodeFile(t, filepath.Join(dir, name)))
		if len(boxes) > 0 {
			found++
		} else {
			missed = append(missed, name)
		}
		extra += max(0, len(boxes)-1)
		t.Logf("%-45s %d faces %s", name, len(boxes), describe(boxes))
	}
	t.Logf("single-face photos with a face found: %d/%d (missed %v); extra boxes: %d", found, len(files), missed, extra)
	// The three misses are the partial face, the head pitched down and
	// the 30×40 px face (see TestRealLabelledFaces).
	if found < len(files)-3 || extra != 0 {
		t.Errorf("found %d of %d with %d extra boxes, want >= %d and 0 extra", found, len(files), extra, len(files)-3)
	}
}

func TestRealGroupPhotos(t *testing.T) {
	dir := imagesDir(t)
	for _, c := range []struct {
		name     string
		min, max int
	}{
		{"group_obama_biden_side_by_side.jpg", 2, 2},
		// ~13 people, several in profile or half hidden: 8 frontal ones
		// are found, with no box off a face.
		{"group_situation_room_2011.jpg", 8, 13},
	} {
		boxes := Detect(decodeFile(t, filepath.Join(dir, c.name)))
		t.Logf("%-45s %d faces %s", c.name, len(boxes), describe(boxes))
		if len(boxes) < c.min || len(boxes) > c.max {
			t.Errorf("%s: %d faces, want %d to %d", c.name, len(boxes), c.min, c.max)
		}
	}
}

func TestRealDetectDeterministicAndConcurrent(t *testing.T) {
	dir := imagesDir(t)
	var imgs []image.Image
	for _, n := range []string{"group_situation_room_2011.jpg", "doc_td3_cze_passport_specimen.jpg", "face_obama_04_lowres_320x240.jpg"} {
		imgs = append(imgs, decodeFile(t, filepath.Join(dir, n)))
	}
	want := make([][]Box, len(imgs))
	for i, img := range imgs {
		want[i] = Detect(img)
	}
	// The result must not depend on how many CPUs scan the window sizes.
	prev := runtime.GOMAXPROCS(1)
	for i, img := range imgs {
		if got := Detect(img); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("image %d with GOMAXPROCS=1: %v, want %v", i, got, want[i])
		}
	}
	runtime.GOMAXPROCS(prev)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i, img := range imgs {
				if got := Detect(img); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("image %d concurrently: %v, want %v", i, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkDetect times Detect (decoding excluded) on a 2.1 MP full-length
// portrait and a 2.5 MP passport scan.
func BenchmarkDetect(b *testing.B) {
	dir := imagesDir(b)
	for _, n := range []string{"face_biden_01_fulllength.jpg", "doc_td3_deu_passport_specimen.jpg"} {
		img := decodeFile(b, filepath.Join(dir, n))
		b.Run(n, func(b *testing.B) {
			for b.Loop() {
				Detect(img)
			}
		})
	}
}
