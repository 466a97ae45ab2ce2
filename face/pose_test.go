package face

import (
	"math"
	"math/rand/v2"
	"testing"
)

// projected places poseModel's points in an image as a camera would see
// the model face turned by yaw, pitch and roll (degrees) at s pixels per
// millimetre, centred at (320, 240), with noise (pixels) added.
func projected(yaw, pitch, roll, s, noise float64, r *rand.Rand) *Face {
	rad := math.Pi / 180
	cy, sy := math.Cos(yaw*rad), math.Sin(yaw*rad)
	cp, sp := math.Cos(pitch*rad), math.Sin(pitch*rad)
	cr, sr := math.Cos(roll*rad), math.Sin(roll*rad)
	f := &Face{}
	for _, m := range poseModel {
		// Ry(yaw): +z (the nose) toward +x.
		x, y, z := m.x*cy+m.z*sy, m.y, -m.x*sy+m.z*cy
		// Pitch up: +z toward +y.
		y, z = y*cp+z*sp, -y*sp+z*cp
		// Roll clockwise in the image (y up): +y toward +x.
		x, y = x*cr+y*sr, -x*sr+y*cr
		_ = z
		f.Landmarks[m.idx] = Point{X: 320 + s*x + noise*r.NormFloat64(), Y: 240 - s*y + noise*r.NormFloat64()}
	}
	return f
}

func TestPoseRecoversProjectedAngles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct{ yaw, pitch, roll float64 }{
		{0, 0, 0}, {30, 0, 0}, {-30, 0, 0}, {0, 20, 0}, {0, -20, 0}, {0, 0, 15},
		{25, 15, 5}, {-40, -10, -8}, {60, 0, 0},
	} {
		p := projected(tt.yaw, tt.pitch, tt.roll, 2, 0, r).Pose()
		if math.Abs(p.Yaw-tt.yaw) > 0.5 || math.Abs(p.Pitch-tt.pitch) > 0.5 || math.Abs(p.Roll-tt.roll) > 0.5 ||
			math.Abs(p.Scale-2) > 0.01 || p.Residual > 1e-6 {
			t.Errorf("pose %+v: got yaw %.2f pitch %.2f roll %.2f scale %.3f residual %.2g", tt, p.Yaw, p.Pitch, p.Roll, p.Scale, p.Residual)
		}
	}
}

// TestPoseNoise: landmarks off by 1 px (about what the tiny 68-point net
// gives on a face 100-150 px wide) move the angles by a few degrees, far
// less than the challenge's thresholds in package liveness.
func TestPoseNoise(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var worstYaw, worstPitch float64
	for range 500 {
		p := projected(0, 0, 0, 0.7, 1, r).Pose() // 0.7 px/mm: a face ~110 px wide
		worstYaw, worstPitch = max(worstYaw, math.Abs(p.Yaw)), max(worstPitch, math.Abs(p.Pitch))
	}
	t.Logf("1 px landmark noise at 0.7 px/mm: worst |yaw| %.1f°, |pitch| %.1f° in 500 draws", worstYaw, worstPitch)
	if worstYaw > 12 || worstPitch > 12 {
		t.Errorf("pose too sensitive to landmark noise: yaw %.1f°, pitch %.1f°", worstYaw, worstPitch)
	}
}

func TestPoseDegenerate(t *testing.T) {
	var f Face // every landmark at the origin
	if p := f.Pose(); p != (Pose{}) {
		t.Errorf("Pose of collapsed landmarks = %+v, want zero", p)
	}
}
