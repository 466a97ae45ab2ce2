package face

import (
	"math"
)

// Pose is where a head points, estimated from its 68 landmarks.
//
// Angles are in degrees, from the subject's point of view in an image as
// a camera sees it (not mirrored): Yaw > 0 when the subject turns to their
// own left (the nose moves toward the image's right), Pitch > 0 when they
// look up (chin raised), Roll > 0 when the head tilts clockwise in the
// image. Scale is the head's size in image pixels per millimetre of the
// model face: it grows as the face comes closer to the camera, whatever
// way it is turned.
//
// The figures come from one generic adult face shape (poseModel), not the
// subject's own, so the absolute angles of one frame can be off by a few
// degrees for a given face; differences between frames of the same face
// are what they are good for.
type Pose struct {
	Yaw, Pitch, Roll float64
	Scale            float64
	// Residual is the root-mean-square distance, in model millimetres,
	// between the landmarks and the fitted model: large when the points do
	// not look like a face seen from any direction.
	Residual float64
}

// poseModel is a generic adult face in millimetres: x toward the
// subject's left (the image's right in a frontal view), y up, z toward
// the camera, the nose tip at the origin. The values are rounded
// anthropometric averages (eye-corner widths 32 and 90 mm, nose 42 mm
// below the eye line, mouth 50 mm wide, chin 120 mm below the eyes, and
// the depths of the eye corners, mouth and chin behind the nose tip); the
// landmark numbers are the iBUG 300-W scheme that Face.Landmarks uses.
// Only points on rigid features are used: the jaw line (0-16) is a
// silhouette that slides round the cheek as the head turns, and the
// eyelids and lips move on their own.
var poseModel = []struct {
	idx     int
	x, y, z float64
}{
	{27, 0, 2, -20},     // nasion, between the eyes
	{30, 0, -42, 0},     // nose tip
	{31, -14, -46, -18}, // nostril wings
	{35, 14, -46, -18},
	{33, 0, -50, -14},   // below the nose
	{36, -45, 0, -40},   // outer eye corners (36: the subject's right)
	{45, 45, 0, -40},    //
	{39, -16, 0, -26},   // inner eye corners
	{42, 16, 0, -26},    //
	{48, -25, -72, -30}, // mouth corners
	{54, 25, -72, -30},  //
	{8, 0, -120, -25},   // chin
}

// Pose estimates the head pose from f's landmarks by fitting poseModel
// with a scaled orthographic camera (the head is far from the camera
// compared with its depth, as in a selfie at arm's length): least squares
// gives the 2 × 3 linear map from the model to the image, whose nearest
// scaled rotation gives the angles. The landmarks must be upright
// (f.Turn 0), as Locate finds them.
func (f *Face) Pose() Pose {
	n := len(poseModel)
	// Centre both point sets: the translation then drops out.
	var mx, my, mz, px, py float64
	for _, m := range poseModel {
		p := f.Landmarks[m.idx]
		mx, my, mz = mx+m.x, my+m.y, mz+m.z
		px, py = px+p.X, py-p.Y // image y points down; the model's up
	}
	fn := float64(n)
	mx, my, mz, px, py = mx/fn, my/fn, mz/fn, px/fn, py/fn

	// Normal equations: A = (Σ p Xᵀ)(Σ X Xᵀ)⁻¹ for the two image rows.
	var xx [3][3]float64
	var px3, py3 [3]float64
	for _, m := range poseModel {
		v := [3]float64{m.x - mx, m.y - my, m.z - mz}
		p := f.Landmarks[m.idx]
		u, w := p.X-px, -p.Y-py
		for i := range 3 {
			for j := range 3 {
				xx[i][j] += v[i] * v[j]
			}
			px3[i] += u * v[i]
			py3[i] += w * v[i]
		}
	}
	inv, ok := inverse3(xx)
	if !ok {
		return Pose{}
	}
	a1 := mulVec(inv, px3) // xx is symmetric, so row·inv = inv·row
	a2 := mulVec(inv, py3)

	// The nearest pair of orthogonal rows of equal length (the polar
	// decomposition of the 2 × 3 map, done in closed form on its rows).
	r1, r2, s := orthonormalRows(a1, a2)
	if s == 0 {
		return Pose{}
	}
	r3 := cross(r1, r2)

	var res float64
	for _, m := range poseModel {
		v := [3]float64{m.x - mx, m.y - my, m.z - mz}
		p := f.Landmarks[m.idx]
		du := (p.X-px)/s - dot(r1, v)
		dv := (-p.Y-py)/s - dot(r2, v)
		res += du*du + dv*dv
	}
	deg := 180 / math.Pi
	return Pose{
		// R = Rz(roll)·Rx(pitch)·Ry(yaw) acting on the model: yaw brings
		// +z (the nose) toward +x, pitch toward +y, and roll turns +y
		// toward +x; so R's third row is (−cos p·sin y, −sin p, cos p·cos y)
		// and its middle column (sin r·cos p, cos r·cos p, ·).
		Yaw:      math.Atan2(-r3[0], r3[2]) * deg,
		Pitch:    math.Asin(clamp1(-r3[1])) * deg,
		Roll:     math.Atan2(r1[1], r2[1]) * deg,
		Scale:    s,
		Residual: math.Sqrt(res / fn),
	}
}

// orthonormalRows returns the orthonormal pair nearest to the rows a and
// b (equal rotation away from their bisector) and their mean length.
func orthonormalRows(a, b [3]float64) (r1, r2 [3]float64, s float64) {
	la, lb := norm(a), norm(b)
	if la == 0 || lb == 0 {
		return r1, r2, 0
	}
	u, v := scale(a, 1/la), scale(b, 1/lb)
	// The bisector and its perpendicular in the plane of u and v.
	sum, diff := add(u, v), sub(u, v)
	ls, ld := norm(sum), norm(diff)
	if ls == 0 || ld == 0 {
		return r1, r2, 0
	}
	sum, diff = scale(sum, 1/ls), scale(diff, 1/ld)
	c := math.Sqrt(0.5)
	r1 = scale(add(sum, diff), c)
	r2 = scale(sub(sum, diff), c)
	return r1, r2, (la + lb) / 2
}

func inverse3(m [3][3]float64) ([3][3]float64, bool) {
	var inv [3][3]float64
	det := m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) -
		m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
		m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	if math.Abs(det) < 1e-12 {
		return inv, false
	}
	inv[0][0] = (m[1][1]*m[2][2] - m[1][2]*m[2][1]) / det
	inv[0][1] = (m[0][2]*m[2][1] - m[0][1]*m[2][2]) / det
	inv[0][2] = (m[0][1]*m[1][2] - m[0][2]*m[1][1]) / det
	inv[1][0] = (m[1][2]*m[2][0] - m[1][0]*m[2][2]) / det
	inv[1][1] = (m[0][0]*m[2][2] - m[0][2]*m[2][0]) / det
	inv[1][2] = (m[0][2]*m[1][0] - m[0][0]*m[1][2]) / det
	inv[2][0] = (m[1][0]*m[2][1] - m[1][1]*m[2][0]) / det
	inv[2][1] = (m[0][1]*m[2][0] - m[0][0]*m[2][1]) / det
	inv[2][2] = (m[0][0]*m[1][1] - m[0][1]*m[1][0]) / det
	return inv, true
}

func mulVec(m [3][3]float64, v [3]float64) [3]float64 {
	return [3]float64{dot(m[0], v), dot(m[1], v), dot(m[2], v)}
}

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func norm(a [3]float64) float64   { return math.Sqrt(dot(a, a)) }
func add(a, b [3]float64) [3]float64 {
	return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]}
}
func sub(a, b [3]float64) [3]float64 {
	return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]}
}
func scale(a [3]float64, s float64) [3]float64 { return [3]float64{a[0] * s, a[1] * s, a[2] * s} }
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func clamp1(v float64) float64 { return min(1, max(-1, v)) }
