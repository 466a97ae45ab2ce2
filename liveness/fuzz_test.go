package liveness

import (
	"math"
	"testing"
	"time"

	"kycd/face"
)

// FuzzVerify: whatever observations a page's frames produce (any steps,
// face counts, poses, hashes), Verify neither panics nor passes a session
// whose checks did not all pass, and always reports the eight checks;
// the light check's measures are never NaN, whatever the colours.
func FuzzVerify(f *testing.F) {
	f.Add([]byte{0, 1, 10, 0, 1, 1, 40, 20, 2, 1, 5, 50}, uint8(3))
	f.Add([]byte{}, uint8(0))
	f.Add([]byte{9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, uint8(255))
	f.Fuzz(func(t *testing.T, data []byte, late uint8) {
		ch := Challenge{Moves: []Move{TurnLeft, LookUp, MoveCloser}, Lights: Lights([]byte("k"), "lvs_fuzz", 4)}
		var obs []Observation
		for i := 0; i+4 <= len(data) && len(obs) < 40; i += 4 {
			o := Observation{Step: int(data[i]%6) - 1, Faces: int(data[i+1] % 3)}
			o.Pixels[0], o.RegionHash = data[i+2], uint64(data[i+3])<<56|uint64(i)
			if o.Faces > 0 {
				var d face.Descriptor
				d[0] = float32(data[i+3]) / 255
				o.Face = &face.Face{Score: 0.9, Descriptor: d}
				o.Pose = face.Pose{Yaw: float64(int8(data[i+2])), Pitch: float64(int8(data[i+3])), Scale: float64(data[i+1]) / 100}
				c := func(a, b, d byte) RegionColour {
					return RegionColour{R: float64(a), G: float64(b), B: float64(d), Pixels: int(a) * 4, Share: float64(b) / 255}
				}
				o.Light = LightSample{Face: c(data[i], data[i+2], data[i+3]), Background: c(data[i+3], data[i+1], data[i+2])}
			}
			obs = append(obs, o)
		}
		opened := time.Unix(1e9, 0)
		v := Verify(ch, obs, Timing{Opened: opened, Deadline: opened.Add(Deadline), Received: opened.Add(time.Duration(late) * 100 * time.Millisecond)})
		if len(v.Checks) != 8 || len(v.Frames) != len(obs) {
			t.Fatalf("%d checks, %d frames for %d observations", len(v.Checks), len(v.Frames), len(obs))
		}
		failed := v.Failed()
		if v.Passed != (len(failed) == 0) {
			t.Fatalf("passed %v with failed checks %v", v.Passed, failed)
		}
		for _, c := range failed {
			if c.Code == "" {
				t.Fatalf("failed check without a code: %+v", c)
			}
		}
		if v.Selfie >= len(obs) || v.Selfie < -1 {
			t.Fatalf("selfie %d of %d", v.Selfie, len(obs))
		}
		for _, s := range v.Steps {
			if math.IsNaN(s.Measured) {
				t.Fatalf("step %+v", s)
			}
		}
		for _, s := range v.Light.Steps {
			if math.IsNaN(s.Shift) || math.IsNaN(s.Cos) || math.IsNaN(s.FaceShift) || math.IsNaN(s.BackgroundShift) {
				t.Fatalf("light step %+v", s)
			}
		}
	})
}
