package face

import (
	"encoding/csv"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kycd/internal/realdata"
)

// padSample is one labelled face crop with the passive models' scores.
type padSample struct {
	name, subject, class string // class: genuine, print, screen (simulated), phone replay
	real, live           float64
}

// passiveReviewThreshold is the "real" score under which
// decision.PassiveLiveness routed to review before this measurement
// (0.3, set without labelled attacks); APCER and BPCER are given there.
const passiveReviewThreshold = 0.3

// TestPassiveAttackDetection measures whether the passive models separate
// presentation attacks from genuine faces (issue 24 §2): ROC AUC, and
// APCER/BPCER at the review threshold, per attack class, on the NUAA
// crops of pad/ (genuine and printed-photo attacks of six people, the
// crops given to the models as they are: they are face crops), on
// screen replays simulated from the genuine crops (a pixel grid, moiré
// and the screen's gamma), and on the shared head-movement frames (live
// p1/p2 against the phone-screen replay spoof1, faces found by the
// detector). Nothing is tuned: the models and the threshold are as
// shipped, so every figure is held-out. It prints the figures the docs/decisions.md
// quotes; it fails if a model starts separating the attacks (AUC ≥ 0.9
// over all of them), so that the decision to leave them out of the
// evidence is revisited. (The four phone-replay frames, of one video,
// are too few for a class of their own, and the old review threshold
// was looked at on them.)
func TestPassiveAttackDetection(t *testing.T) {
	dir := filepath.Dir(realdata.Path(t, "pad/MANIFEST.csv"))
	f, err := os.Open(filepath.Join(dir, "MANIFEST.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var samples []padSample
	score := func(name, subject, class string, crop *image.NRGBA) {
		p, err := passiveScores(crop)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, padSample{name: name, subject: subject, class: class, real: p.Real, live: p.Live})
	}
	for _, r := range rows[1:] { // file,...,label(9),...,subject(12)
		if r[9] != "genuine" && r[9] != "print" {
			continue // the demo frame holds a live face and a replay side by side
		}
		crop := squareCrop(decodeFile(t, filepath.Join(dir, r[0])))
		class := map[string]string{"genuine": "genuine", "print": "print"}[r[9]]
		score(r[0], r[12], class, crop)
		if r[9] == "genuine" {
			score(r[0]+" on a screen", r[12], "screen (simulated)", simulatedScreen(crop))
		}
	}
	for _, name := range []string{"live_p1_03_frontal", "live_p1_08_frontal", "live_p2_01_frontal", "live_p2_06_frontal",
		"live_spoof1_01_frontal", "live_spoof1_02_frontal", "live_spoof1_03_frontal", "live_spoof1_04_frontal"} {
		img := decodeFile(t, realdata.Path(t, "images/liveness/"+name+".jpg"))
		faces, err := Locate(img, Options{MinScore: 0.3})
		if err != nil {
			t.Fatal(err)
		}
		if len(faces) == 0 {
			t.Logf("%s: no face found", name)
			continue
		}
		class := "genuine"
		if strings.Contains(name, "spoof") {
			class = "phone replay"
		}
		score(name, strings.Split(name, "_")[1], class, PassiveCrop(img, &faces[Largest(faces)]))
	}
	for _, s := range samples {
		t.Logf("%-22s %-42s real %.3f live %.3f", s.class, s.name, s.real, s.live)
	}
	var genuine []padSample
	for _, s := range samples {
		if s.class == "genuine" {
			genuine = append(genuine, s)
		}
	}
	bestAUC := 0.0
	for _, class := range []string{"print", "screen (simulated)", "phone replay", "all attacks"} {
		var attacks []padSample
		for _, s := range samples {
			if s.class != "genuine" && (class == "all attacks" || s.class == class) {
				attacks = append(attacks, s)
			}
		}
		for _, m := range []struct {
			name  string
			score func(padSample) float64
		}{{"antispoof real", func(s padSample) float64 { return s.real }}, {"liveness live", func(s padSample) float64 { return s.live }}} {
			auc := rocAUC(genuine, attacks, m.score)
			apcer, bpcer := 0, 0
			for _, a := range attacks {
				if m.score(a) >= passiveReviewThreshold {
					apcer++ // an attack taken for genuine
				}
			}
			for _, g := range genuine {
				if m.score(g) < passiveReviewThreshold {
					bpcer++
				}
			}
			t.Logf("%-14s vs %-19s %2d genuine, %2d attacks: AUC %.2f; at %.1f APCER %d/%d (%.0f%%), BPCER %d/%d (%.0f%%)", m.name, class,
				len(genuine), len(attacks), auc, passiveReviewThreshold, apcer, len(attacks), 100*float64(apcer)/float64(len(attacks)),
				bpcer, len(genuine), 100*float64(bpcer)/float64(len(genuine)))
			if class == "all attacks" {
				bestAUC = max(bestAUC, auc)
			}
		}
	}
	if bestAUC >= 0.9 {
		t.Errorf("a passive model reaches AUC %.2f over all attacks: revisit decision.PassiveLiveness, which leaves them out of the evidence", bestAUC)
	}
}

// rocAUC is the probability that a genuine sample scores above an attack
// (ties count half): the area under the ROC curve.
func rocAUC(genuine, attacks []padSample, score func(padSample) float64) float64 {
	if len(genuine) == 0 || len(attacks) == 0 {
		return math.NaN()
	}
	var wins float64
	for _, g := range genuine {
		for _, a := range attacks {
			switch gs, as := score(g), score(a); {
			case gs > as:
				wins++
			case gs == as:
				wins += 0.5
			}
		}
	}
	return wins / float64(len(genuine)*len(attacks))
}

// squareCrop is img's centre square at PassiveCropSize, as the passive
// models' crop (the NUAA files are already face crops).
func squareCrop(img image.Image) *image.NRGBA {
	b := img.Bounds()
	side := min(b.Dx(), b.Dy())
	x0, y0 := b.Min.X+(b.Dx()-side)/2, b.Min.Y+(b.Dy()-side)/2
	out := image.NewNRGBA(image.Rect(0, 0, PassiveCropSize, PassiveCropSize))
	for y := range PassiveCropSize {
		for x := range PassiveCropSize {
			out.Set(x, y, img.At(x0+x*side/PassiveCropSize, y0+y*side/PassiveCropSize))
		}
	}
	return out
}

// simulatedScreen shows crop as a camera sees a screen: the picture
// through an RGB sub-pixel grid (every third column brighter in one
// channel), a moiré of the grid against the camera's sampling (a slow
// diagonal beat of ±12%), the screen's gamma and a bluish white point.
func simulatedScreen(crop *image.NRGBA) *image.NRGBA {
	b := crop.Bounds()
	out := image.NewNRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := crop.NRGBAAt(x, y)
			ch := [3]float64{float64(c.R), float64(c.G), float64(c.B)}
			beat := 1 + 0.12*math.Sin(2*math.Pi*float64(x+2*y)/17)
			for k := range ch {
				v := math.Pow(ch[k]/255, 1.25) * 255 * beat
				if x%3 == k {
					v *= 1.15
				} else {
					v *= 0.92
				}
				if y%3 == 2 {
					v *= 0.85 // the dark line between pixel rows
				}
				ch[k] = v
			}
			ch[2] *= 1.08
			out.SetNRGBA(x, y, color.NRGBA{R: clamp8(ch[0]), G: clamp8(ch[1]), B: clamp8(ch[2]), A: 255})
		}
	}
	return out
}

func clamp8(v float64) uint8 { return uint8(min(255, max(0, math.Round(v)))) }
