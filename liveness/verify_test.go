package liveness

import (
	"strings"
	"testing"
	"time"

	"kycd/face"
)

// person returns a descriptor for person p: people are 1.0 apart, and
// variant v of a person is v·0.1 from the base.
func person(p, v int) face.Descriptor {
	var d face.Descriptor
	d[p] = 1 / 1.4142135 // two people: distance 1
	d[64+v] = float32(v) * 0.1
	return d
}

// obsAt is a frame of step with one face of person p (variant v) at the
// given pose; hash distinguishes its pixels and region.
func obsAt(step, p, v int, yaw, pitch, scale float64, hash uint64) Observation {
	f := &face.Face{Score: 0.9, Descriptor: person(p, v)}
	return Observation{Step: step, Width: 640, Height: 480, Faces: 1, Face: f,
		Pose: face.Pose{Yaw: yaw, Pitch: pitch, Scale: scale}, Pixels: [32]byte{byte(hash), byte(hash >> 8)}, RegionHash: hash}
}

func TestVerify(t *testing.T) {
	ch := Challenge{Moves: []Move{TurnLeft, LookDown, MoveCloser}}
	// A good session: two frames per step, each step reaching its move.
	good := func() []Observation {
		return []Observation{
			obsAt(0, 0, 0, 3, 10, 0.7, 0x00000000ffff0001),
			obsAt(0, 0, 1, -2, 11, 0.7, 0x00000000ffff0002),
			obsAt(1, 0, 2, 12, 10, 0.7, 0x0000ffffffff0003),
			obsAt(1, 0, 3, 28, 9, 0.7, 0x0000ffff00000004),
			obsAt(2, 0, 2, 0, -4, 0.7, 0xffff000000000005),
			obsAt(2, 0, 1, 1, -10, 0.69, 0xffffffff00000006),
			obsAt(3, 0, 1, 0, 10, 0.8, 0x00ff00ff00ff0007),
			obsAt(3, 0, 2, 1, 11, 0.95, 0xff00ff00ff000008),
		}
	}
	opened := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ok := Timing{Opened: opened, Deadline: opened.Add(Deadline), Received: opened.Add(8 * time.Second)}
	for _, tt := range []struct {
		name   string
		ch     Challenge
		edit   func(o []Observation) []Observation
		timing func(t Timing) Timing
		want   []string // the failed checks' codes; none for a pass
	}{
		{"pass", ch, nil, nil, nil},
		{"a step without frames", ch, func(o []Observation) []Observation { return o[:6] }, nil, []string{CodeIncomplete, CodeMovementMissed}},
		{"too many frames in a step", ch, func(o []Observation) []Observation {
			x := o[7]
			x.Pixels[5], x.RegionHash = 9, 0xff00ff00ff00ff99
			x.Pixels[6] = 1
			y := x
			y.Pixels[6] = 2
			return append(o, x, y)
		}, nil, []string{CodeIncomplete}},
		{"steps out of order", ch, func(o []Observation) []Observation { o[2], o[4] = o[4], o[2]; return o }, nil, []string{CodeIncomplete}},
		{"step beyond the challenge", ch, func(o []Observation) []Observation { o[7].Step = 4; return o }, nil,
			[]string{CodeIncomplete, CodeMovementMissed, CodeDiscontinuous}},
		{"no face", ch, func(o []Observation) []Observation { o[4].Faces, o[4].Face = 0, nil; return o }, nil, []string{CodeNoFace}},
		{"no face where the move was", ch, func(o []Observation) []Observation { o[3].Faces, o[3].Face = 0, nil; return o }, nil,
			[]string{CodeNoFace, CodeMovementMissed}},
		{"two faces", ch, func(o []Observation) []Observation { o[5].Faces = 2; return o }, nil, []string{CodeMultipleFaces}},
		{"another person in a step", ch, func(o []Observation) []Observation { o[3].Face.Descriptor = person(1, 0); return o }, nil, []string{CodeDifferentFaces}},
		{"another person straight", ch, func(o []Observation) []Observation {
			o[0].Face.Descriptor, o[1].Face.Descriptor = person(1, 0), person(1, 1)
			return o
		}, nil, []string{CodeDifferentFaces}},
		{"no straight face", ch, func(o []Observation) []Observation {
			o[0].Faces, o[0].Face, o[1].Faces, o[1].Face = 0, nil, 0, nil
			return o
		}, nil, []string{CodeNoFace, CodeNoFace, CodeNotStraight}},
		{"straight frame turned", ch, func(o []Observation) []Observation {
			o[0].Pose.Yaw, o[1].Pose.Yaw = 25, -24
			o[2].Pose.Yaw, o[3].Pose.Yaw = 40, 50
			return o
		}, nil, []string{CodeNotStraight}},
		{"turn too small", ch, func(o []Observation) []Observation { o[3].Pose.Yaw = 17; return o }, nil, []string{CodeMovementMissed}},
		{"turned the other way", ch, func(o []Observation) []Observation { o[2].Pose.Yaw, o[3].Pose.Yaw = -30, -25; return o }, nil, []string{CodeMovementMissed}},
		{"moves in the wrong order", Challenge{Moves: []Move{LookDown, TurnLeft, MoveCloser}}, nil, nil, []string{CodeMovementMissed}},
		{"not closer", ch, func(o []Observation) []Observation { o[7].Pose.Scale = 0.85; return o }, nil, []string{CodeMovementMissed}},
		{"same pixels", ch, func(o []Observation) []Observation { o[6].Pixels = o[0].Pixels; return o }, nil, []string{CodeDuplicates}},
		{"same face region in two steps", ch, func(o []Observation) []Observation {
			o[5].RegionHash = o[1].RegionHash ^ 0xff // 8 bits apart
			return o
		}, nil, []string{CodeDuplicates}},
		{"near-identical frames within a step are fine", ch, func(o []Observation) []Observation {
			o[1].RegionHash = o[0].RegionHash ^ 1
			return o
		}, nil, nil},
		{"late", ch, nil, func(t Timing) Timing { t.Received = t.Deadline.Add(time.Millisecond); return t }, []string{CodeTooLate}},
		{"just in time", ch, nil, func(t Timing) Timing { t.Received = t.Deadline; return t }, nil},
		{"too fast", ch, nil, func(t Timing) Timing { t.Received = t.Opened.Add(1500 * time.Millisecond); return t }, []string{CodeTooFast}},
		{"reused", ch, nil, func(t Timing) Timing { t.Reused = true; return t }, []string{CodeReplayed}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := good()
			if tt.edit != nil {
				o = tt.edit(o)
			}
			tm := ok
			if tt.timing != nil {
				tm = tt.timing(tm)
			}
			v := Verify(tt.ch, o, tm)
			var codes []string
			for _, c := range v.Failed() {
				codes = append(codes, c.Code)
			}
			if v.Passed != (len(tt.want) == 0) || strings.Join(codes, " ") != strings.Join(tt.want, " ") {
				t.Fatalf("passed %v, failed codes %v, want %v; checks %+v", v.Passed, codes, tt.want, v.Checks)
			}
			if len(v.Checks) != 8 {
				t.Errorf("%d checks, want all 8", len(v.Checks))
			}
			for _, c := range v.Checks {
				if c.Detail == "" || c.Passed == (c.Code != "") && !c.NotRun || c.NotRun && (c.Passed || c.Code != "") {
					t.Errorf("check %+v: a failed check has a code, one not run none, and every check a detail", c)
				}
			}
			// These sessions asked no colours: the light check did not run.
			if last := v.Checks[len(v.Checks)-1]; last.Name != CheckLight || !last.NotRun {
				t.Errorf("light check %+v, want not run", last)
			}
		})
	}
}

func TestVerifyEvidence(t *testing.T) {
	ch := Challenge{Moves: []Move{TurnRight, LookUp}}
	o := []Observation{
		obsAt(0, 0, 1, 8, 0, 0.7, 1),
		obsAt(0, 0, 0, -3, 1, 0.7, 2), // the most frontal: the selfie
		obsAt(1, 0, 1, -10, 0, 0.7, 0xff00),
		obsAt(1, 0, 2, -30, 0, 0.7, 0xffff),
		obsAt(2, 0, 1, -2, 5, 0.7, 0xff0003),
		obsAt(2, 0, 3, -2, 20, 0.7, 0xffff0000),
	}
	opened := time.Unix(1e9, 0)
	v := Verify(ch, o, Timing{Opened: opened, Deadline: opened.Add(Deadline), Received: opened.Add(5 * time.Second)})
	if !v.Passed || v.Selfie != 1 {
		t.Fatalf("passed %v, selfie %d; %+v", v.Passed, v.Selfie, v.Checks)
	}
	want := []StepResult{
		{Step: 0, Move: LookStraight, Frames: 2, BestFrame: 1, Measured: 3, Required: StraightYaw, Unit: "degrees", Passed: true},
		{Step: 1, Move: TurnRight, Frames: 2, BestFrame: 3, Measured: 27, Required: TurnDegrees, Unit: "degrees", Passed: true},
		{Step: 2, Move: LookUp, Frames: 2, BestFrame: 5, Measured: 19, Required: LookDegrees, Unit: "degrees", Passed: true},
	}
	for i, w := range want {
		if v.Steps[i] != w {
			t.Errorf("step %d: %+v, want %+v", i, v.Steps[i], w)
		}
	}
	if f := v.Frames[5]; f.Distance != 0.3 || f.Pitch != 20 || f.RegionHash != "00000000ffff0000" || f.Step != 2 {
		t.Errorf("frame 6 evidence %+v", f)
	}
	if f := v.Frames[1]; f.Distance != 0 {
		t.Errorf("selfie frame's distance to itself %v", f.Distance)
	}
	if !strings.Contains(v.Checks[2].Detail, "frame 6") {
		t.Errorf("same_person detail %q names the farthest frame", v.Checks[2].Detail)
	}
}
