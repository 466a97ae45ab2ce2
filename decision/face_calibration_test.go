package decision

import (
	"crypto/sha256"
	"encoding/csv"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"kycd/face"
	"kycd/internal/realdata"
)

// calibFace is one labelled photo of the calibration set.
type calibFace struct {
	file, person string
	document     bool
}

// calibrationFaces are every single-identity photo of the shared data
// with a face: images/faces.csv (faces and document specimens; groups and
// photos with no face left out), faces/PAIRS.csv's photos, the NUAA
// genuine captures of pad/ and the frontal head-movement frames. Person
// names are compared without underscores (paul_rudd = paulrudd).
func calibrationFaces(t testing.TB) []calibFace {
	t.Helper()
	var out []calibFace
	seen := map[string]bool{}
	add := func(file, person string, doc bool) {
		if !seen[file] {
			seen[file] = true
			out = append(out, calibFace{file: file, person: strings.ReplaceAll(strings.ToLower(person), "_", ""), document: doc})
		}
	}
	for _, r := range readCSV(t, "images/faces.csv")[1:] { // file,identities,faces_expected,notes
		if r[1] == "" || strings.Contains(r[1], ";") || strings.HasPrefix(r[2], "0") {
			continue
		}
		add("images/"+r[0], r[1], strings.HasPrefix(r[0], "doc_") || strings.HasPrefix(r[0], "lowq_") || strings.Contains(r[0], "_doc_"))
	}
	for _, r := range readCSV(t, "faces/PAIRS.csv")[1:] { // file1,file2,person1,person2,...
		add("faces/"+r[0], r[2], false)
		add("faces/"+r[1], r[3], false)
	}
	for _, r := range readCSV(t, "pad/MANIFEST.csv")[1:] { // file,...,label(9),...,subject(12)
		if r[9] == "genuine" {
			add("pad/"+r[0], r[12], false)
		}
	}
	for _, r := range readCSV(t, "images/liveness/liveness.csv")[1:] { // file,person,sequence,order,pose,...,kind(8)
		if r[8] == "live" && r[4] == "frontal" {
			add("images/liveness/"+r[0], "live_"+r[1], false)
		}
	}
	return out
}

func readCSV(t testing.TB, rel string) [][]string {
	t.Helper()
	f, err := os.Open(realdata.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// calibrationHalf puts a person in half 0 (calibration) or 1 (held out)
// by a fixed hash of the name (the parity of SHA-256's first byte), so no
// person's photos are on both sides. (FNV-1a was tried first and put 26
// photos on one side and 81 on the other; it was set aside for that
// count, before any distance was looked at.)
func calibrationHalf(person string) int {
	h := sha256.Sum256([]byte(person))
	return int(h[0] % 2)
}

type calibPair struct {
	a, b calibFace
	dist float64 // NaN: no face described in one of them
}

// TestFaceMatchCalibration sets and checks the verification operating
// point of face_match: the threshold for a false-match rate of at most
// 1 in 10,000, calibrated on the persons of one half (fixed hash) and
// reported on the other. Every pair of photos within a half is used:
// same person = genuine, different = impostor. It prints the figures the
// docs/decisions.md quotes (go test -run FaceMatchCalibration -v ./decision).
func TestFaceMatchCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the face models on about a hundred photos")
	}
	faces := calibrationFaces(t)
	desc := make([]*face.Descriptor, len(faces))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, f := range faces {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			img := decodeCalib(t, f.file)
			if img == nil {
				return
			}
			ff := findFace(img, f.document)
			if ff.face != nil && ff.face.Descriptor != (face.Descriptor{}) {
				desc[i] = &ff.face.Descriptor
			}
		})
	}
	wg.Wait()
	var halves [2][]calibPair
	persons := [2]map[string]bool{{}, {}}
	missing := 0
	for i := range faces {
		if desc[i] == nil {
			missing++
			t.Logf("no face described: %s", faces[i].file)
		}
		persons[calibrationHalf(faces[i].person)][faces[i].person] = true
		for j := i + 1; j < len(faces); j++ {
			h := calibrationHalf(faces[i].person)
			if h != calibrationHalf(faces[j].person) {
				continue // pairs across the halves belong to neither
			}
			p := calibPair{a: faces[i], b: faces[j], dist: math.NaN()}
			if desc[i] != nil && desc[j] != nil {
				p.dist = face.Compare(*desc[i], *desc[j])
			}
			halves[h] = append(halves[h], p)
		}
	}
	t.Logf("%d photos (%d without a described face), %d + %d persons", len(faces), missing, len(persons[0]), len(persons[1]))

	// Calibrate: the largest threshold under which at most 1 in 10,000
	// of the calibration half's impostor pairs match. With fewer than
	// 10,000 impostor pairs that means none: just under the closest one.
	var imp []float64
	for _, p := range halves[0] {
		if p.a.person != p.b.person && !math.IsNaN(p.dist) {
			imp = append(imp, p.dist)
		}
	}
	sort.Float64s(imp)
	empirical := imp[len(imp)/10000]
	// Fewer than 10,000 pairs cannot show 1 in 10,000 by counting; the
	// normal tail fitted to the impostor distances extrapolates it (the
	// 1e-4 quantile is 3.719 standard deviations below the mean). The
	// threshold is the lower of the two.
	mean, sd := meanSD(imp)
	gauss := mean - 3.719*sd
	calibrated := min(empirical, gauss)
	hm, hsd := meanSD(heldOutImpostors(halves[1]))
	t.Logf("held-out half: impostor mean %.3f sd %.3f: the normal tail puts FMR 1e-4 at %.3f", hm, hsd, hm-3.719*hsd)
	t.Logf("calibration half: %d impostor pairs, closest %.3f %.3f %.3f, mean %.3f sd %.3f; FMR ≤ 1e-4 at %.3f by count, %.3f by the normal tail: %.3f (shipped: VerifyThreshold %.3f)",
		len(imp), imp[0], imp[1], imp[2], mean, sd, empirical, gauss, calibrated, VerifyThreshold)
	if VerifyThreshold > calibrated {
		t.Errorf("VerifyThreshold %.3f is above the calibrated %.3f", VerifyThreshold, calibrated)
	}
	for h, name := range []string{"calibration", "held-out"} {
		r := rateAt(halves[h], VerifyThreshold)
		r95 := 3.0 / float64(r.impostors) // rule of three: 95% upper bound with no false match
		t.Logf("%s half at %.3f: FMR %d/%d (95%% upper bound %.2g), genuine accepted %d/%d (FNMR %.1f%%): sent to review (%.3f-%.3f) %d, mismatch (≥ %.2f) %d, no face found %d",
			name, VerifyThreshold, r.falseMatches, r.impostors, max(r95, float64(r.falseMatches)/float64(r.impostors)),
			r.accepted, r.genuine, 100*(1-float64(r.accepted)/float64(r.genuine)), VerifyThreshold, face.MatchThreshold, r.review,
			face.MatchThreshold, r.rejected, r.noFace)
		for _, p := range r.failing {
			t.Logf("  %s genuine pair not accepted: %.3f %s ~ %s", name, p.dist, p.a.file, p.b.file)
		}
		for _, p := range r.matches {
			t.Logf("  %s impostor pair matched: %.3f %s ~ %s", name, p.dist, p.a.file, p.b.file)
		}
		if h == 1 && r.falseMatches > 0 {
			t.Errorf("held-out half: %d impostor pairs match at %.3f", r.falseMatches, VerifyThreshold)
		}
		if h == 1 && float64(r.accepted) < minHeldOutGAR*float64(r.genuine) {
			t.Errorf("held-out genuine acceptance %d/%d below %.2f", r.accepted, r.genuine, minHeldOutGAR)
		}
	}
}

// minHeldOutGAR is the held-out half's genuine acceptance at
// VerifyThreshold measured when it was set, less a margin, so that a
// regression of the pipeline fails the test.
const minHeldOutGAR = 0.38 // 39 of 90 (43%) when set

type calibRate struct {
	impostors, falseMatches, genuine, accepted, review, rejected, noFace int
	failing, matches                                                     []calibPair
}

func rateAt(pairs []calibPair, threshold float64) calibRate {
	var r calibRate
	for _, p := range pairs {
		if p.a.person != p.b.person {
			if math.IsNaN(p.dist) {
				continue
			}
			r.impostors++
			if p.dist < threshold {
				r.falseMatches++
				r.matches = append(r.matches, p)
			}
			continue
		}
		r.genuine++
		switch {
		case !math.IsNaN(p.dist) && p.dist < threshold:
			r.accepted++
		case !math.IsNaN(p.dist) && p.dist < face.MatchThreshold:
			r.review++
			r.failing = append(r.failing, p)
		case math.IsNaN(p.dist):
			r.noFace++
			r.failing = append(r.failing, p)
		default:
			r.rejected++
			r.failing = append(r.failing, p)
		}
	}
	slices.SortFunc(r.failing, func(a, b calibPair) int { return cmpDist(a.dist, b.dist) })
	return r
}

func cmpDist(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b):
		return -1
	}
	return strings.Compare(fmt.Sprintf("%08.4f", a), fmt.Sprintf("%08.4f", b))
}

func decodeCalib(t testing.TB, rel string) image.Image {
	f, err := os.Open(filepath.Join(realdata.Dir(), rel))
	if err != nil {
		t.Error(err)
		return nil
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Errorf("%s: %v", rel, err)
		return nil
	}
	return img
}

func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

func heldOutImpostors(pairs []calibPair) []float64 {
	var out []float64
	for _, p := range pairs {
		if p.a.person != p.b.person && !math.IsNaN(p.dist) {
			out = append(out, p.dist)
		}
	}
	return out
}
