package docforensics

import (
	"encoding/csv"
	"hash/fnv"
	"image"
	"os"
	"path/filepath"
	"testing"

	"kycd/face"
	"kycd/internal/forgery"
	"kycd/mrz"
)

// analyzed is a face photo with its largest face described.
type analyzed struct {
	img image.Image
	f   *face.Face
}

func analyze(t testing.TB, img image.Image) analyzed {
	t.Helper()
	faces, err := face.Analyze(img, face.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(faces) == 0 {
		return analyzed{img: img}
	}
	f := faces[face.Largest(faces)]
	return analyzed{img: img, f: &f}
}

func alignedRect(f *face.Face) image.Rectangle {
	a := f.Aligned
	return image.Rect(int(a.X), int(a.Y), int(a.X+a.W), int(a.Y+a.H))
}

func reuse(a, b analyzed) ([]Finding, PortraitMeasures) {
	return PortraitReused(a.img, alignedRect(a.f), b.img, alignedRect(b.f), face.Compare(a.f.Descriptor, b.f.Descriptor))
}

// personHalf splits people by a fixed hash of their name: the reuse
// thresholds were set on the calibration half's pairs only.
func personHalf(person string) bool {
	h := fnv.New32a()
	h.Write([]byte(person))
	return h.Sum32()%2 == 0
}

// TestPortraitReuseGenuinePairs: no two real photos of one person (the
// same-person pairs of the shared faces) are taken for one photograph.
// Both halves are reported; the thresholds came from the calibration
// half's closest pair.
func TestPortraitReuseGenuinePairs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the face models on 100 pairs")
	}
	root := filepath.Join("..", "..", "shared", "data", "faces")
	f, err := os.Open(filepath.Join(root, "PAIRS.csv"))
	if err != nil {
		t.Skip("shared data not present:", err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	cache := map[string]analyzed{}
	get := func(n string) analyzed {
		if a, ok := cache[n]; ok {
			return a
		}
		a := analyze(t, loadImage(t, filepath.Join(root, n)))
		cache[n] = a
		return a
	}
	type stat struct {
		pairs, flagged   int
		minDesc, maxCorr float64
		minBits          int
	}
	halves := map[bool]*stat{true: {minDesc: 9, minBits: 64}, false: {minDesc: 9, minBits: 64}}
	for _, r := range rows[1:] {
		if r[4] != "1" {
			continue
		}
		a, b := get(r[0]), get(r[1])
		if a.f == nil || b.f == nil {
			continue
		}
		fs, m := reuse(a, b)
		s := halves[personHalf(r[2])]
		s.pairs++
		if len(fs) > 0 {
			s.flagged++
			t.Errorf("%s / %s taken for one photograph: %+v", r[0], r[1], fs)
		}
		s.minDesc, s.maxCorr, s.minBits = min(s.minDesc, m.Descriptor), max(s.maxCorr, m.Correlation), min(s.minBits, m.HashBits)
	}
	for _, cal := range []bool{true, false} {
		s := halves[cal]
		t.Logf("calibration=%v: %d same-person pairs, %d flagged; closest descriptor %.3f, highest correlation %.3f, fewest hash bits %d",
			cal, s.pairs, s.flagged, s.minDesc, s.maxCorr, s.minBits)
	}
}

// TestPortraitReuseAttack: the selfie's own photo cut into a drawn
// document (scaled, saved as JPEG, with noise), and the same with the
// selfie mirrored, are caught.
func TestPortraitReuseAttack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the face models")
	}
	ocrb, err := os.ReadFile(filepath.Join("..", "tools", "mrztrain", "font", "ocrb-mrz.ttf"))
	if err != nil {
		t.Fatal(err)
	}
	caught, n := 0, 0
	for i, photo := range sharedFaces(t) {
		doc, err := forgery.Draw(forgery.Spec{Format: mrz.TD3, Person: forgery.Person{Surname: "SMITH", Given: "JAMES", Number: "533401372", State: "GBR", Birth: "850303", Expiry: "310415", Sex: "M"},
			Face: photo, Layout: "icao", Background: "gradient", OCRB: ocrb, Scale: 10, Seed: uint64(i)})
		if err != nil {
			t.Fatal(err)
		}
		d := analyze(t, forgery.JPEG(forgery.Noise(doc, 2, uint64(i)), 90))
		for _, mirrored := range []bool{false, true} {
			selfie := photo
			if mirrored {
				selfie = forgery.Mirror(photo)
			}
			s := analyze(t, selfie)
			if d.f == nil || s.f == nil {
				// Without a face on either side there is nothing to
				// reuse: face_presence stops that request.
				t.Logf("face %d mirrored=%v: no face found (document %v, selfie %v)", i, mirrored, d.f != nil, s.f != nil)
				continue
			}
			n++
			fs, m := reuse(d, s)
			t.Logf("face %d mirrored=%v: %+v, %d findings", i, mirrored, m, len(fs))
			if len(fs) == 0 {
				t.Errorf("face %d mirrored=%v: the reused portrait was not caught (%+v)", i, mirrored, m)
			} else {
				caught++
			}
		}
	}
	t.Logf("portrait reused: %d of %d caught", caught, n)
	if n < 3 {
		t.Fatalf("only %d reuse attacks had faces on both sides: the test compares too little", n)
	}
}
