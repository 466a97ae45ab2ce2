package liveness

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"slices"
	"testing"

	"kycd/face"
	"kycd/internal/relight"
)

// TestLights: the colours are Neutral then hues of Palette, never one hue
// twice in a row, the same for one key and session, different for
// another key or session, and every hue drawn about as often.
func TestLights(t *testing.T) {
	key := []byte("server key")
	count := map[Light]int{}
	seqs := map[string]bool{}
	for i := range 3000 {
		id := "lvs_" + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
		l := Lights(key, id, 4)
		if !slices.Equal(l, Lights(key, id, 4)) {
			t.Fatalf("%s: not the same twice", id)
		}
		ch := Challenge{Moves: []Move{TurnLeft, LookUp, TurnRight}, Lights: l}
		if err := ch.Validate(); err != nil {
			t.Fatalf("%s: %v %v", id, l, err)
		}
		for _, h := range l[1:] {
			count[h]++
		}
		seqs[string(l[1])+string(l[2])+string(l[3])] = true
	}
	if len(seqs) != 6*5*5 {
		t.Errorf("%d sequences drawn, want all 150", len(seqs))
	}
	for _, h := range Palette {
		if n := count[h]; n < 1300 || n > 1700 { // 1500 expected
			t.Errorf("hue %s drawn %d times of 9000", h, n)
		}
	}
	if slices.Equal(Lights(key, "lvs_x", 4), Lights([]byte("other key"), "lvs_x", 4)) &&
		slices.Equal(Lights(key, "lvs_y", 4), Lights([]byte("other key"), "lvs_y", 4)) {
		t.Error("another key draws the same colours")
	}
	for _, bad := range [][]Light{
		{Neutral, "#ff0000"},              // too few
		{"#ff0000", "#ff0000", "#00ff00"}, // no neutral first
		{Neutral, "#ff0000", "#ff0000"},   // twice in a row
		{Neutral, "#123456", "#ff0000"},   // not a hue of the palette
		{Neutral, "#FF0000", "#00ff00"},   // not its spelling
	} {
		if err := (Challenge{Moves: []Move{TurnLeft, LookUp}, Lights: bad}).Validate(); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// synthFace draws a 320×240 frame: a textured wall and a skin-coloured
// face with dark eyes and hair, and its landmarks where the skin outline
// needs them.
func synthFace(seed uint64) (*image.RGBA, *face.Face) {
	r := rand.New(rand.NewPCG(seed, 1))
	img := image.NewRGBA(image.Rect(0, 0, 320, 240))
	for y := range 240 {
		for x := range 320 {
			n := func(base float64) uint8 {
				return uint8(min(255, max(0, base+float64(x)/8-float64(y)/10+r.NormFloat64()*4)))
			}
			c := color.RGBA{n(165), n(160), n(140), 255}
			dx, dy := (float64(x)-160)/50, (float64(y)-120)/65
			switch {
			case dx*dx+dy*dy <= 1 && y < 78:
				c = color.RGBA{n(40), n(32), n(28), 255} // hair
			case dx*dx+dy*dy <= 1:
				c = color.RGBA{n(185), n(135), n(112), 255} // skin
				if (y >= 96 && y <= 104) && (x > 132 && x < 150 || x > 170 && x < 188) {
					c = color.RGBA{n(30), n(25), n(25), 255} // eyes
				}
			}
			img.SetRGBA(x, y, c)
		}
	}
	f := &face.Face{Box: face.Rect{X: 110, Y: 60, W: 100, H: 120}}
	for k, p := range map[int][2]float64{1: {115, 105}, 41: {135, 108}, 40: {148, 108}, 28: {160, 110}, 47: {172, 108}, 46: {185, 108},
		15: {205, 105}, 13: {200, 140}, 54: {178, 150}, 51: {160, 145}, 48: {142, 150}, 3: {120, 140}} {
		f.Landmarks[k] = face.Point{X: p[0], Y: p[1]}
	}
	return img, f
}

// viaJPEG is img as the page sends it: JPEG at quality 85.
func viaJPEG(t *testing.T, img image.Image) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	out, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func rgbOf(t *testing.T, l Light) (float64, float64, float64) {
	t.Helper()
	r, g, b, ok := l.RGB()
	if !ok {
		t.Fatalf("colour %q", l)
	}
	return r, g, b
}

// TestLightSynthetic: on synthetic frames, a face lit by the asked
// colours passes; the same frames tinted all over, overlaid with the
// colour, not lit at all, or lit by other hues fail; frames too dark or
// overexposed to measure are not run, never passed.
func TestLightSynthetic(t *testing.T) {
	box := image.Rect(110, 60, 210, 180)
	ch := Challenge{Moves: []Move{TurnLeft, LookUp, TurnRight}, Lights: []Light{Neutral, "#ff0000", "#00ffff", "#0000ff"}}
	other := []Light{Neutral, "#ffff00", "#0000ff", "#ff00ff"} // a neighbouring or opposite hue each step
	// A render draws frame k of step (k 0 under Neutral, k 1 under the
	// step's colour).
	type render func(img image.Image, step, k int) image.Image
	shown := func(lights []Light, step, k int) Light {
		if k == 0 {
			return Neutral
		}
		return lights[step]
	}
	lit := func(amount float64, lights []Light) render {
		return func(img image.Image, step, k int) image.Image {
			r, g, b := rgbOf(t, shown(lights, step, k))
			return relight.Face(img, box, r, g, b, amount)
		}
	}
	for _, tt := range []struct {
		name   string
		frame  render
		want   string // "pass", "fail" or "not_run"
		bright float64
	}{
		{"face lit, dim room (k 0.5)", lit(0.5, ch.Lights), "pass", 1},
		{"face lit, lit room (k 0.25)", lit(0.25, ch.Lights), "pass", 1},
		{"face lit, daylight (k 0.05)", lit(0.05, ch.Lights), "fail", 1},
		{"face lit by other hues", lit(0.5, other), "fail", 1},
		{"no light at all (footage)", func(img image.Image, _, _ int) image.Image { return img }, "fail", 1},
		{"whole frame tinted", func(img image.Image, step, k int) image.Image {
			r, g, b := rgbOf(t, shown(ch.Lights, step, k))
			return relight.Tint(img, r, g, b, 0.5)
		}, "fail", 1},
		{"colour layer over the frame", func(img image.Image, step, k int) image.Image {
			if k == 0 {
				return img
			}
			r, g, b := rgbOf(t, ch.Lights[step])
			return relight.Blend(img, r, g, b, 0.25)
		}, "fail", 1},
		{"too dark", lit(0.5, ch.Lights), "not_run", 0.08},
		{"overexposed", lit(0.5, ch.Lights), "not_run", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var obs []Observation
			for s := range ch.Steps() {
				for k := range 2 {
					img, f := synthFace(uint64(10*s + k))
					var frame image.Image = img
					if tt.bright != 1 {
						frame = relight.Tint(img, 1, 1, 1, tt.bright-1)
						if tt.bright < 1 {
							frame = scale(img, tt.bright)
						}
					}
					frame = viaJPEG(t, tt.frame(frame, s, k))
					obs = append(obs, Observation{Step: s, Light: measureLight(frame, f)})
				}
			}
			var ev LightEvidence
			c := checkLight(ch, obs, &ev)
			got := "fail"
			switch {
			case c.Passed:
				got = "pass"
			case c.NotRun:
				got = "not_run"
			case c.Code != CodeLightMismatch:
				t.Errorf("failed without the code: %+v", c)
			}
			if got != tt.want || c.Passed && c.NotRun {
				t.Errorf("%s, want %s: %s", got, tt.want, c.Detail)
			}
			for _, st := range ev.Steps {
				t.Logf("step %d %s: face %.3f background %.3f shift %.3f cos %.2f", st.Step, st.Light, st.FaceShift, st.BackgroundShift, st.Shift, st.Cos)
			}
		})
	}
}

// scale darkens img: every channel times k.
func scale(img image.Image, k float64) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			out.SetRGBA(x, y, color.RGBA{uint8(float64(c.R) * k), uint8(float64(c.G) * k), uint8(float64(c.B) * k), 255})
		}
	}
	return out
}

// TestLightInReceipts: a step's receipt carries the colour the server
// asked for; receipts for other colours are refused.
func TestLightInReceipts(t *testing.T) {
	key := []byte("key")
	lights := Lights(key, "lvs_1", 2)
	r0 := Receipt{Session: "lvs_1", Step: 0, Frames: FramesDigest(nil), Light: lights[0]}
	r1 := Receipt{Session: "lvs_1", Step: 1, Frames: FramesDigest(nil), Light: lights[1]}
	s0, s1 := mustSign(t, key, r0), mustSign(t, key, r1)
	if _, err := CheckReceipts(key, "lvs_1", r0.Revealed, 2, lights, []string{s0, s1}, nil); err != nil {
		t.Fatalf("genuine: %v", err)
	}
	r1.Light = Palette[(slices.Index(Palette, lights[1])+1)%len(Palette)]
	if _, err := CheckReceipts(key, "lvs_1", r0.Revealed, 2, lights, []string{s0, mustSign(t, key, r1)}, nil); err == nil {
		t.Error("a receipt for another colour accepted")
	}
}

// BenchmarkMeasureLight is what the light check adds per frame: the skin
// and background means of a 640×480 frame (the page's largest).
func BenchmarkMeasureLight(b *testing.B) {
	img, f := synthFace(1)
	big := image.NewRGBA(image.Rect(0, 0, 640, 480))
	for y := range 480 {
		for x := range 640 {
			big.Set(x, y, img.At(x/2, y/2))
		}
	}
	f.Box = face.Rect{X: 2 * f.Box.X, Y: 2 * f.Box.Y, W: 2 * f.Box.W, H: 2 * f.Box.H}
	for k := range f.Landmarks {
		f.Landmarks[k] = face.Point{X: 2 * f.Landmarks[k].X, Y: 2 * f.Landmarks[k].Y}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, big, &jpeg.Options{Quality: 85}); err != nil {
		b.Fatal(err)
	}
	frame, err := jpeg.Decode(&buf)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if s := measureLight(frame, f); !s.ok() {
			b.Fatal("not measured")
		}
	}
}

// TestSamePersonLeavesColouredFrames: the frames taken under a screen
// colour are not held to the selfie's descriptor (a colour cast moves
// it); the step's white frame still is, and without colours every frame.
func TestSamePersonLeavesColouredFrames(t *testing.T) {
	obs := []Observation{
		obsAt(0, 0, 0, 0, 0, 0.7, 1), obsAt(0, 0, 1, 1, 0, 0.7, 2),
		obsAt(1, 0, 1, 25, 0, 0.7, 3), obsAt(1, 1, 0, 26, 0, 0.7, 4), // its coloured frame measures as another person
	}
	ch := Challenge{Moves: []Move{TurnLeft, LookUp}}
	if c := checkSamePerson(ch, obs, 0); c.Passed {
		t.Errorf("without colours: %+v", c)
	}
	ch.Lights = []Light{Neutral, "#ff0000", "#00ff00"}
	if c := checkSamePerson(ch, obs, 0); !c.Passed {
		t.Errorf("the coloured frame was compared: %+v", c)
	}
	obs[2], obs[3] = obs[3], obs[2] // the white frame is the other person
	obs[2].Step, obs[3].Step = 1, 1
	if c := checkSamePerson(ch, obs, 0); c.Passed || c.Code != CodeDifferentFaces {
		t.Errorf("the white frame was not compared: %+v", c)
	}
}
