package liveness

import (
	"encoding/csv"
	"image"
	_ "image/jpeg" // the shared frames are JPEG
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"kycd/internal/realdata"
)

// The shared head-movement frames (images/liveness, see SOURCES.md there):
// p1 turns strongly left, right, up and down; p2 moves less; spoof1 is a
// still selfie on a phone screen moved in front of a camera. No threshold
// of this package was set on them (see verify.go); these tests check what
// the whole does with them, and log the margins.

var (
	frameMu    sync.Mutex
	frameCache = map[string]image.Image{}
	obsCache   = map[string]Observation{}
)

// liveFrame decodes a shared frame once per test binary.
func liveFrame(t testing.TB, name string) image.Image {
	t.Helper()
	frameMu.Lock()
	defer frameMu.Unlock()
	if img, ok := frameCache[name]; ok {
		return img
	}
	f, err := os.Open(realdata.Path(t, "images/liveness/"+name+".jpg"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	frameCache[name] = img
	return img
}

// session builds a session of the named frames, one slice of frames per
// step, and analyses it as Analyze does, observing each frame once per
// test binary (the models are the slow part).
func session(t *testing.T, ch Challenge, steps [][]string, tm Timing) Result {
	t.Helper()
	var frames []Frame
	var obs []Observation
	for s, names := range steps {
		for _, name := range names {
			img := liveFrame(t, name)
			frameMu.Lock()
			o, ok := obsCache[name]
			frameMu.Unlock()
			if !ok {
				var err error
				if o, err = Observe(img, 0); err != nil {
					t.Fatal(err)
				}
				frameMu.Lock()
				obsCache[name] = o
				frameMu.Unlock()
			}
			o.Step = s
			frames = append(frames, Frame{Step: s, Image: img})
			obs = append(obs, o)
		}
	}
	r := Result{Observations: obs}
	if s := PickSelfie(obs); s >= 0 {
		r.Region = faceRegion(obs[s], frames[s].Image.Bounds())
		for i, f := range frames {
			obs[i].RegionHash = regionHash(f.Image, r.Region)
		}
	}
	r.Verdict = Verify(ch, obs, tm)
	for _, st := range r.Verdict.Steps {
		t.Logf("step %d %-13s frames %d best %2d measured %6.2f %s (needed %.2f) passed %v",
			st.Step, st.Move, st.Frames, st.BestFrame+1, st.Measured, st.Unit, st.Required, st.Passed)
	}
	for _, c := range r.Verdict.Checks {
		t.Logf("%-15s %-5v %s %s", c.Name, c.Passed, c.Code, c.Detail)
	}
	return r
}

// onTime is a session whose frames arrived 9 s into its 20 s.
func onTime() Timing {
	opened := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	return Timing{Opened: opened, Deadline: opened.Add(Deadline), Received: opened.Add(9 * time.Second)}
}

func challenge(moves ...Move) Challenge {
	return Challenge{Moves: moves}
}

// failedChecks names the checks that failed.
func failedChecks(v Verdict) string {
	var s []string
	for _, c := range v.Failed() {
		s = append(s, c.Name+":"+c.Code)
	}
	return strings.Join(s, " ")
}

// TestLabels checks that the frames used below carry the labels the tests
// assume (liveness.csv).
func TestLabels(t *testing.T) {
	f, err := os.Open(realdata.Path(t, "images/liveness/liveness.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	pose := map[string]string{}
	for _, r := range rows[1:] {
		pose[strings.TrimSuffix(r[0], ".jpg")] = r[4]
	}
	for name, want := range map[string]string{
		"live_p1_01_right": "right", "live_p1_03_frontal": "frontal", "live_p1_04_right": "right", "live_p1_05_left": "left",
		"live_p1_06_up": "up", "live_p1_07_down": "down", "live_p1_08_frontal": "frontal", "live_p2_01_frontal": "frontal",
		"live_p2_02_up": "up", "live_p2_04_closer": "closer", "live_p2_07_left": "left", "live_spoof1_01_frontal": "frontal",
	} {
		if pose[name] != want {
			t.Errorf("%s: pose %q in liveness.csv, the tests assume %q", name, pose[name], want)
		}
	}
}

// TestRealSessionsPass: the shared footage passes the movement checks.
func TestRealSessionsPass(t *testing.T) {
	for _, tt := range []struct {
		name  string
		ch    Challenge
		steps [][]string
	}{
		{"p1 right, down, left", challenge(TurnRight, LookDown, TurnLeft),
			[][]string{{"live_p1_03_frontal"}, {"live_p1_01_right"}, {"live_p1_07_down"}, {"live_p1_05_left"}}},
		{"p1 left, right (two straight frames)", challenge(TurnLeft, TurnRight),
			[][]string{{"live_p1_03_frontal", "live_p1_08_frontal"}, {"live_p1_05_left"}, {"live_p1_04_right"}}},
		{"p2 up, closer, left (mild movements)", challenge(LookUp, MoveCloser, TurnLeft),
			[][]string{{"live_p2_01_frontal"}, {"live_p2_02_up"}, {"live_p2_04_closer"}, {"live_p2_07_left"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.ch.Validate(); err != nil {
				t.Fatal(err)
			}
			r := session(t, tt.ch, tt.steps, onTime())
			// Every check of the movement, the faces and the timing
			// passes on real frames; the footage as it is, one frame per
			// step, is still not one continuous capture at the page's
			// rate (issue 24's replay), so the session fails on that alone.
			if failed := r.Verdict.Failed(); len(failed) != 1 || failed[0].Name != CheckContinuity || !strings.Contains(failed[0].Detail, "the page records") {
				t.Errorf("failed: %s; want only continuity (one frame per step)", failedChecks(r.Verdict))
			}
			if r.Verdict.Selfie != 0 {
				t.Errorf("selfie is frame %d, want the first straight frame", r.Verdict.Selfie+1)
			}
		})
	}
}

func TestRealSessionsFail(t *testing.T) {
	p1 := [][]string{{"live_p1_03_frontal"}, {"live_p1_01_right"}, {"live_p1_07_down"}, {"live_p1_05_left"}}
	p1ch := challenge(TurnRight, LookDown, TurnLeft)
	late := onTime()
	late.Received = late.Deadline.Add(time.Second)
	reused := onTime()
	reused.Reused = true
	fast := onTime()
	fast.Received = fast.Opened.Add(time.Second)
	for _, tt := range []struct {
		name  string
		ch    Challenge
		steps [][]string
		tm    Timing
		want  []string // checks that must fail
		also  []string // checks that may fail too
	}{
		{"right frames in the wrong order", challenge(LookDown, TurnRight, TurnLeft), p1, onTime(),
			[]string{CheckMovement}, nil},
		{"reversed order", challenge(TurnLeft, LookDown, TurnRight),
			p1, onTime(), []string{CheckMovement}, nil},
		{"two people", challenge(TurnRight, LookUp),
			[][]string{{"live_p1_03_frontal"}, {"live_p1_01_right"}, {"live_p2_02_up"}}, onTime(),
			[]string{CheckSame}, nil},
		{"two people, the other one straight", challenge(TurnLeft, LookUp),
			[][]string{{"live_p2_01_frontal"}, {"live_p1_05_left"}, {"live_p2_02_up"}}, onTime(),
			[]string{CheckSame}, nil},
		{"one frame repeated", challenge(TurnRight, LookUp),
			[][]string{{"live_p1_03_frontal"}, {"live_p1_03_frontal"}, {"live_p1_03_frontal"}}, onTime(),
			[]string{CheckMovement, CheckDistinct}, nil},
		// The replay's frames 2 and 3 are also near-duplicates (the phone
		// barely moved); the movement check is what must catch it.
		{"phone-screen replay", challenge(TurnLeft, LookUp),
			[][]string{{"live_spoof1_01_frontal", "live_spoof1_02_frontal"}, {"live_spoof1_03_frontal", "live_spoof1_04_frontal"},
				{"live_spoof1_05_frontal", "live_spoof1_06_frontal"}}, onTime(),
			[]string{CheckMovement}, []string{CheckDistinct}},
		{"a near-profile frame has no face found", challenge(TurnLeft, TurnRight),
			[][]string{{"live_p1_03_frontal"}, {"live_p1_02_left"}, {"live_p1_04_right"}}, onTime(),
			[]string{CheckOneFace, CheckMovement}, nil},
		// A false rejection, kept visible: p1's chin-up frame (cap, lit
		// from above, 33° up) is 0.63 from his straight frame, beyond the
		// match threshold (the descriptor is least sure of pitched faces;
		// face_pairs.csv's looking-down Obama measures 0.60-0.65 too).
		{"p1 looking up: descriptor too far", challenge(TurnRight, LookUp, LookDown),
			[][]string{{"live_p1_03_frontal"}, {"live_p1_01_right"}, {"live_p1_06_up"}, {"live_p1_07_down"}}, onTime(),
			[]string{CheckSame}, nil},
		{"late", p1ch, p1, late, []string{CheckTiming}, nil},
		{"nonce reused", p1ch, p1, reused, []string{CheckTiming}, nil},
		{"faster than a person", p1ch, p1, fast, []string{CheckTiming}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := session(t, tt.ch, tt.steps, tt.tm)
			if r.Verdict.Passed {
				t.Fatal("session passed")
			}
			failed := map[string]bool{}
			for _, c := range r.Verdict.Failed() {
				failed[c.Name] = true
			}
			for _, name := range tt.want {
				if !failed[name] {
					t.Errorf("check %s passed, want it to fail (failed: %s)", name, failedChecks(r.Verdict))
				}
				delete(failed, name)
			}
			// These sessions post the shared footage one frame per step,
			// which the continuity check refuses whatever else is wrong
			// (TestContinuity* test it on its own).
			for _, name := range append(tt.also, CheckContinuity) {
				delete(failed, name)
			}
			for name := range failed {
				t.Errorf("check %s failed too (failed: %s)", name, failedChecks(r.Verdict))
			}
		})
	}
}
