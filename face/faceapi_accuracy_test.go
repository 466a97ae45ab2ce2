package face

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// nonFrontal are the shared photos whose face is not a usable frontal
// capture (see images/faces.csv): cut through by the frame, pitched down
// to near profile, or about 30 × 40 px. The accuracy goal is on
// the frontal pairs; the others are reported too.
var nonFrontal = map[string]bool{
	"face_obama_05_partial_face.jpg":             true,
	"face_obama_06_oval_office_looking_down.jpg": true,
	"face_obama_07_small_face_with_dog.jpg":      true,
}

// pairResult is one labelled pair with its distance (NaN when a face was
// not found in one of the images).
type pairResult struct {
	facePair
	dist    float64
	frontal bool
}

// rates returns the share of same-person pairs accepted (distance below
// threshold; a missing face is a rejection) and of different-person pairs
// accepted.
func rates(res []pairResult, threshold float64, frontalOnly bool) (tar, far float64, nSame, nDiff int) {
	var acceptSame, acceptDiff int
	for _, r := range res {
		if frontalOnly && !r.frontal {
			continue
		}
		accept := !math.IsNaN(r.dist) && r.dist < threshold
		if r.same {
			nSame++
			if accept {
				acceptSame++
			}
		} else {
			nDiff++
			if accept {
				acceptDiff++
			}
		}
	}
	return float64(acceptSame) / float64(nSame), float64(acceptDiff) / float64(nDiff), nSame, nDiff
}

// TestFaceMatchAccuracy measures true and false accepts at MatchThreshold
// on the shared labelled pairs (images/face_pairs.csv), comparing the
// largest face of each image. The floors are what the pipeline achieves
// today, so a regression fails; the log has the distances and a sweep of
// thresholds.
func TestFaceMatchAccuracy(t *testing.T) {
	dir := imagesDir(t)
	pairs := facePairs(t, dir)
	var names []string
	for _, p := range pairs {
		names = append(names, p.a, p.b)
	}
	slices.Sort(names)
	analyzed := analyzeAll(t, dir, slices.Compact(names))
	descriptor := map[string]*Face{}
	for _, name := range sortedNames(analyzed) {
		faces := analyzed[name]
		if i := Largest(faces); i >= 0 {
			descriptor[name] = &faces[i]
			f := faces[i]
			q := f.Quality
			t.Logf("%-42s %d face(s); largest %4.0fx%-4.0f score %.2f, eyes %3.0f px apart, roll %+5.1f°, yaw %+.2f, in image %.2f",
				name, len(faces), f.Box.W, f.Box.H, f.Score, q.EyeDistance, q.Roll, q.Yaw, q.InImage)
		} else {
			t.Logf("%-42s no face", name)
		}
	}

	var res []pairResult
	for _, p := range pairs {
		r := pairResult{facePair: p, dist: math.NaN(), frontal: !nonFrontal[p.a] && !nonFrontal[p.b]}
		if fa, fb := descriptor[p.a], descriptor[p.b]; fa != nil && fb != nil {
			r.dist = Compare(fa.Descriptor, fb.Descriptor)
		}
		res = append(res, r)
	}
	slices.SortFunc(res, func(a, b pairResult) int {
		if a.same != b.same {
			if a.same {
				return -1
			}
			return 1
		}
		return strings.Compare(fmt.Sprint(a.dist), fmt.Sprint(b.dist))
	})
	var worstSame, bestDiff = 0.0, math.Inf(1)
	for _, r := range res {
		label := "different"
		if r.same {
			label = "same"
		}
		t.Logf("%-9s %.3f  %s ~ %s %s", label, r.dist, r.a, r.b, r.note)
		if r.frontal && !math.IsNaN(r.dist) {
			if r.same {
				worstSame = max(worstSame, r.dist)
			} else {
				bestDiff = min(bestDiff, r.dist)
			}
		}
	}
	t.Logf("frontal pairs: largest same-person distance %.3f, smallest different-person %.3f", worstSame, bestDiff)
	for _, th := range []float64{0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7} {
		tar, far, ns, nd := rates(res, th, false)
		ftar, ffar, fns, fnd := rates(res, th, true)
		t.Logf("threshold %.2f: all pairs true-accept %5.1f%% of %d, false-accept %4.1f%% of %d; frontal %5.1f%% of %d, %4.1f%% of %d",
			th, 100*tar, ns, 100*far, nd, 100*ftar, fns, 100*ffar, fnd)
	}

	tar, far, _, _ := rates(res, MatchThreshold, false)
	ftar, ffar, _, _ := rates(res, MatchThreshold, true)
	t.Logf("at MatchThreshold %.2f: frontal true-accept %.1f%%, false-accept %.1f%%; all pairs %.1f%%, %.1f%%", MatchThreshold, 100*ftar, 100*ffar, 100*tar, 100*far)
	for _, c := range []struct {
		name      string
		got, want float64
		atLeast   bool
	}{
		{"frontal true-accept", ftar, minFrontalTAR, true},
		{"frontal false-accept", ffar, maxFrontalFAR, false},
		{"all-pairs true-accept", tar, minAllTAR, true},
		{"all-pairs false-accept", far, maxAllFAR, false},
	} {
		if c.atLeast && c.got < c.want || !c.atLeast && c.got > c.want {
			t.Errorf("%s %.3f, floor %.3f", c.name, c.got, c.want)
		}
	}
}

// Floors for TestFaceMatchAccuracy, from its log (48 same-person and 205
// different-person pairs, 30 and 160 of them frontal). On the frontal
// pairs the largest same-person distance is 0.528 and the smallest
// different-person one 0.646 (Eileen Collins and the ICAO specimen
// portrait), so every threshold between separates them; MatchThreshold
// keeps face-api.js's 0.6, inside that gap. All pairs: the tiny face of
// face_obama_07 is not found (7 same-person pairs) and the partial and
// looking-down Obamas measure 0.60-0.65 against the others (10 more);
// one of them, podium ~ looking down, measures 0.599, so the all-pairs
// floor leaves room for it to fall either side.
const (
	minFrontalTAR = 1.0  // 30 of 30
	maxFrontalFAR = 0.0  // 0 of 160
	minAllTAR     = 0.62 // 31 of 48 today (64.6%)
	maxAllFAR     = 0.0  // 0 of 205
)
