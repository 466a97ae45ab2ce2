package docforensics

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"kycd/face"
)

// capturePair is one pair of faces with its measures.
type capturePair struct {
	name  string
	held  bool // in the held-out half
	desc  float64
	corr  float64
	bits  int
	video bool // two frames of one video, not two photos
}

// sameCapturePairs measures the two sides of the one-capture rule:
// same-person pairs of different photos (faces/PAIRS.csv, and the
// images/ pairs whose files are not derived from one another per
// SOURCES.md), split by person with personHalf; and every pair of frames
// within one video of the shared head-movement footage (p1, p2), split
// by a fixed hash of the pair's names.
func sameCapturePairs(t *testing.T) []capturePair {
	t.Helper()
	data := filepath.Join("..", "..", "shared", "data")
	rows := readCSV(t, filepath.Join(data, "faces", "PAIRS.csv"))
	cache := map[string]analyzed{}
	get := func(p string) analyzed {
		if a, ok := cache[p]; ok {
			return a
		}
		a := analyze(t, loadImage(t, p))
		cache[p] = a
		return a
	}
	var out []capturePair
	add := func(a, b string, held, video bool) {
		x, y := get(a), get(b)
		if x.f == nil || y.f == nil {
			return
		}
		_, m := PortraitReused(x.img, alignedRect(x.f), y.img, alignedRect(y.f), face.Compare(x.f.Descriptor, y.f.Descriptor))
		out = append(out, capturePair{name: filepath.Base(a) + "/" + filepath.Base(b), held: held, desc: m.Descriptor, corr: m.Correlation, bits: m.HashBits, video: video})
	}
	for _, r := range rows[1:] {
		if r[4] == "1" && r[0] != r[1] {
			add(filepath.Join(data, "faces", r[0]), filepath.Join(data, "faces", r[1]), !personHalf(r[2]), false)
		}
	}
	// Only pairs of photos taken at different times (images/SOURCES.md):
	// derived files (synth_*) are the same photograph as their source,
	// face_obama_05 is cut from face_obama_01 and face_obama_04 may come
	// from its sitting; the specimen documents (doc_*, lowq_*) print one
	// specimen photograph; group photos hold two people.
	sameSitting := map[string]bool{"face_obama_01_official_portrait.jpg": true, "face_obama_04_lowres_320x240.jpg": true, "face_obama_05_partial_face.jpg": true}
	for _, r := range readCSV(t, filepath.Join(data, "images", "face_pairs.csv"))[1:] {
		if r[2] != "same" || (sameSitting[r[0]] && sameSitting[r[1]]) {
			continue
		}
		if skip := func(n string) bool {
			return strings.HasPrefix(n, "synth_") || strings.HasPrefix(n, "group_") || strings.HasPrefix(n, "doc_") || strings.HasPrefix(n, "lowq_")
		}; skip(r[0]) || skip(r[1]) {
			continue
		}
		add(filepath.Join(data, "images", r[0]), filepath.Join(data, "images", r[1]), !personHalf(r[3]), false)
	}
	live := filepath.Join(data, "images", "liveness")
	byVideo := map[string][]string{}
	for _, r := range readCSV(t, filepath.Join(live, "liveness.csv"))[1:] {
		if r[8] == "live" {
			byVideo[r[2]] = append(byVideo[r[2]], r[0])
		}
	}
	for _, files := range byVideo {
		sort.Strings(files)
		for i := range files {
			for j := i + 1; j < len(files); j++ {
				add(filepath.Join(live, files[i]), filepath.Join(live, files[j]), !personHalf(files[i]+files[j]), true)
			}
		}
	}
	return out
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Skip("shared data not present:", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestOneCaptureDistributions measures whether "one capture" (the
// portrait and the session frames closer than any two real photos of one
// person taken at different times) can be told by the portrait measures:
// frame pairs within one video must sit beyond every same-person pair of
// different photos, on the calibration half, with a margin on the
// held-out half. On the shared data they do not (see the log): the frames
// of one head-movement video are as far apart as two photos of one
// person, so no one-capture threshold is shipped, and this test fails if
// one is added to PortraitReused that flags a same-person pair.
func TestOneCaptureDistributions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the face models on every pair")
	}
	pairs := sameCapturePairs(t)
	for _, held := range []bool{false, true} {
		// One capture would be: video pairs nearer (descriptor), more
		// correlated and with fewer differing hash bits than every
		// same-person pair of different photos.
		videoDesc, photoDesc := 0.0, 9.0
		videoCorr, photoCorr := 9.0, -9.0
		videoBits, photoBits := 0, 64
		var closest capturePair
		nv, np := 0, 0
		for _, p := range pairs {
			if p.held != held {
				continue
			}
			if p.video {
				nv++
				videoDesc, videoCorr, videoBits = max(videoDesc, p.desc), min(videoCorr, p.corr), max(videoBits, p.bits)
				continue
			}
			np++
			if p.desc < photoDesc {
				closest = p
			}
			photoDesc, photoCorr, photoBits = min(photoDesc, p.desc), max(photoCorr, p.corr), min(photoBits, p.bits)
		}
		t.Logf("held-out=%v: %d frame pairs within one video, %d same-person photo pairs (closest %s)", held, nv, np, closest.name)
		t.Logf("  descriptor: farthest frame pair %.3f, nearest photo pair %.3f: separates %v", videoDesc, photoDesc, videoDesc < photoDesc)
		t.Logf("  correlation: lowest frame pair %.3f, highest photo pair %.3f: separates %v", videoCorr, photoCorr, videoCorr > photoCorr)
		t.Logf("  hash bits: most in a frame pair %d, fewest in a photo pair %d: separates %v", videoBits, photoBits, videoBits < photoBits)
		if nv < 4 || np < 20 {
			t.Fatalf("too few pairs compared (%d frame, %d photo)", nv, np)
		}
		if videoDesc < photoDesc || videoCorr > photoCorr || videoBits < photoBits {
			t.Errorf("held-out=%v: a measure separates one capture from two photos; set and report its operating point", held)
		}
	}
	// The shipped limits never take a same-person pair of different
	// photos for one photograph.
	for _, p := range pairs {
		if !p.video && (p.desc <= MaxReuseDescriptor || p.corr >= MinReuseCorrelation || p.bits <= MaxReuseHashBits) {
			t.Errorf("same-person pair within the reuse limits: %s desc %.3f corr %.3f bits %d", p.name, p.desc, p.corr, p.bits)
		}
	}
}
