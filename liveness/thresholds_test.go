package liveness

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	_ "image/png" // one face photo is a PNG
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"testing"

	"kycd/face"
	"kycd/internal/realdata"
)

// The tests here measure what set the thresholds in verify.go, on the
// shared face photos (images/face_*: portraits of real people, none of
// them a liveness frame).

func facePhotos(t *testing.T) map[string]image.Image {
	t.Helper()
	dir := filepath.Dir(realdata.Path(t, "images/faces.csv"))
	files, err := filepath.Glob(filepath.Join(dir, "face_*.*"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]image.Image{}
	for _, f := range files {
		if ext := filepath.Ext(f); ext != ".jpg" && ext != ".png" {
			continue
		}
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = img
	}
	if len(out) < 10 {
		t.Fatalf("%d face photos", len(out))
	}
	return out
}

// tiltPrint renders img as a flat print turned by deg about its vertical
// (axis 'y') or horizontal ('x') centre line, seen by a pinhole camera as
// far from it as the image is wide (a strong perspective: a print held
// close to a phone), black where the print does not cover the frame.
func tiltPrint(img image.Image, deg float64, axis byte) *image.RGBA {
	b := img.Bounds()
	w, h := float64(b.Dx()), float64(b.Dy())
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	th := deg * math.Pi / 180
	f := w // focal length = distance = the print's width
	for oy := range b.Dy() {
		for ox := range b.Dx() {
			u, v := float64(ox)-w/2, float64(oy)-h/2
			var x, y float64
			// A print point (x, y, 0) turned by th lands at
			// u = f·x·cos / (f + x·sin) (y axis); invert for x.
			if axis == 'y' {
				x = u * f / (f*math.Cos(th) - u*math.Sin(th))
				y = v * (f + x*math.Sin(th)) / f
			} else {
				y = v * f / (f*math.Cos(th) - v*math.Sin(th))
				x = u * (f + y*math.Sin(th)) / f
			}
			sx, sy := int(math.Floor(x+w/2)), int(math.Floor(y+h/2))
			if sx >= 0 && sy >= 0 && sx < b.Dx() && sy < b.Dy() {
				out.Set(ox, oy, img.At(b.Min.X+sx, b.Min.Y+sy))
			} else {
				out.Set(ox, oy, color.Black)
			}
		}
	}
	return out
}

// TestFlatPrintCannotTurn turns each face photo that could pass the
// straight step (its face turned at most StraightYaw) as a flat print
// would be turned in front of the camera (up to 45°, about either axis,
// at a strong perspective) and measures how far the landmarks' pose
// moves: the most it moved set TurnDegrees and LookDegrees above it. A
// real head turned that far moves 45°. (Two photos do not qualify:
// Obama looking down, turned 48°, and the one whose small face the
// detector misses, where it finds a false face turned 21°.)
func TestFlatPrintCannotTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("warps and analyses ~100 images")
	}
	var worstYaw, worstPitch float64
	for name, img := range facePhotos(t) {
		faces, err := locate(img)
		if err != nil {
			t.Fatal(err)
		}
		if len(faces) == 0 {
			continue // the photo whose face is too small for the detector
		}
		base := faces[face.Largest(faces)].Pose()
		if math.Abs(base.Yaw) > StraightYaw {
			t.Logf("%s: face turned %.0f°, not a straight frame", name, base.Yaw)
			continue
		}
		for _, axis := range []byte{'y', 'x'} {
			for _, deg := range []float64{-45, -30, 30, 45} {
				faces, err := locate(tiltPrint(img, deg, axis))
				if err != nil {
					t.Fatal(err)
				}
				if len(faces) == 0 {
					continue
				}
				p := faces[face.Largest(faces)].Pose()
				dy, dp := math.Abs(p.Yaw-base.Yaw), math.Abs(p.Pitch-base.Pitch)
				worstYaw, worstPitch = max(worstYaw, dy), max(worstPitch, dp)
				if dy >= TurnDegrees || dp >= LookDegrees {
					t.Errorf("%s turned %+.0f° about %c: yaw moved %.1f°, pitch %.1f° — a print would pass as a head", name, deg, axis, dy, dp)
				}
			}
		}
	}
	t.Logf("flat prints turned up to 45°: yaw moved at most %.1f° (threshold %.0f°), pitch %.1f° (threshold %.0f°)",
		worstYaw, TurnDegrees, worstPitch, LookDegrees)
}

// TestRegionHashOfCopies: the same photo re-encoded (JPEG quality 50-90)
// or made brighter or darker (±20 levels) keeps its face region's
// perceptual hash within 4 bits; NearDuplicateBits is twice that.
func TestRegionHashOfCopies(t *testing.T) {
	worst := 0
	for name, img := range facePhotos(t) {
		faces, err := locate(img)
		if err != nil {
			t.Fatal(err)
		}
		if len(faces) == 0 {
			continue
		}
		r := faceRegion(Observation{Face: &faces[face.Largest(faces)]}, img.Bounds())
		base := regionHash(img, r)
		var copies []image.Image
		for _, q := range []int{50, 70, 90} {
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
				t.Fatal(err)
			}
			c, err := jpeg.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			copies = append(copies, c)
		}
		for _, d := range []int{-20, 20} {
			copies = append(copies, brighten(img, d))
		}
		for _, c := range copies {
			dist := bits.OnesCount64(base ^ regionHash(c, r))
			worst = max(worst, dist)
			if dist > NearDuplicateBits/2 {
				t.Errorf("%s: a copy's region hash is %d bits away", name, dist)
			}
		}
	}
	t.Logf("copies of the face photos: region hashes at most %d bits apart (threshold %d)", worst, NearDuplicateBits)
}

func brighten(img image.Image, d int) image.Image {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			c := func(v uint32) uint8 { return uint8(min(255, max(0, int(v>>8)+d))) }
			out.Set(x, y, color.RGBA{c(r), c(g), c(bl), 255})
		}
	}
	return out
}
