package face

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
)

// facePair is one row of the shared images/face_pairs.csv.
type facePair struct {
	a, b string
	same bool
	note string
}

func facePairs(t testing.TB, dir string) []facePair {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "face_pairs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []facePair
	for _, r := range rows[1:] { // image_a,image_b,label,identity_a,identity_b,note
		out = append(out, facePair{a: r[0], b: r[1], same: r[2] == "same", note: r[5]})
	}
	return out
}

// pairImages are the images the pairs use plus every face_* photo, sorted.
func pairImages(t testing.TB, dir string) []string {
	t.Helper()
	set := map[string]bool{}
	for _, p := range facePairs(t, dir) {
		set[p.a], set[p.b] = true, true
	}
	for _, f := range imageFiles(t, dir, "face_*") {
		set[filepath.Base(f)] = true
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// analyzeAll analyses the named images of dir, two at a time, and returns
// their faces by name.
func analyzeAll(t testing.TB, dir string, names []string) map[string][]Face {
	t.Helper()
	out := make(map[string][]Face, len(names))
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, name := range names {
		img := decodeFile(t, filepath.Join(dir, name)) // may t.Fatal: not in a goroutine
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			faces, err := Analyze(img, Options{})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			out[name] = faces
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return out
}

// sortedNames returns m's keys in order.
func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
