package face

import (
	"image"
	"image/color"
	"math"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"
)

// gradient returns a w × h image whose pixel (x, y) is (x, y, x+y+1).
func gradient(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(10, 20, 10+w, 20+h)) // not at the origin
	for y := range h {
		for x := range w {
			img.SetNRGBA(10+x, 20+y, color.NRGBA{uint8(x), uint8(y), uint8(x + y + 1), 0xff})
		}
	}
	return img
}

func TestSquareInputPadsLikeFaceAPI(t *testing.T) {
	px := newRGBReader(gradient(8, 8))
	for _, tt := range []struct {
		name     string
		r        region
		centered bool
		// wantRed is the red channel (x+1 of the source, 0 for padding
		// after adding 1 below) of the size × size result, row by row.
		wantRed []float32
	}{
		// 2 wide, 4 high: 2 columns of padding, 1 before and 1 after.
		{"centered", region{X: 3, Y: 0, W: 2, H: 4}, true, []float32{0, 4, 5, 0, 0, 4, 5, 0, 0, 4, 5, 0, 0, 4, 5, 0}},
		// 3 wide: 1 column, which goes after (Math.round(0.5) = 1).
		{"centered odd", region{X: 3, Y: 0, W: 3, H: 4}, true, []float32{4, 5, 6, 0, 4, 5, 6, 0, 4, 5, 6, 0, 4, 5, 6, 0}},
		{"after", region{X: 3, Y: 0, W: 2, H: 4}, false, []float32{4, 5, 0, 0, 4, 5, 0, 0, 4, 5, 0, 0, 4, 5, 0, 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := squareInput(func(x, y int) (uint8, uint8, uint8) {
				r, g, b := px(x, y)
				return r + 1, g, b // so that column 0 is not mistaken for padding
			}, tt.r, 4, tt.centered)
			var red []float32
			for i := 0; i < len(in.Data); i += 3 {
				red = append(red, in.Data[i])
			}
			if !slices.Equal(red, tt.wantRed) {
				t.Errorf("red=%v, want %v", red, tt.wantRed)
			}
		})
	}
}

func TestSquareInputResizesLikeTensorFlow(t *testing.T) {
	px := newRGBReader(gradient(8, 8))
	// 8 → 3: source positions 0, 8/3, 16/3; bilinear between neighbours,
	// no half-pixel centres, so the first row and column are exact.
	in := squareInput(px, region{0, 0, 8, 8}, 3, false)
	for oy := range 3 {
		for ox := range 3 {
			sx, sy := float64(ox)*8/3, float64(oy)*8/3
			if got, want := float64(in.At(oy, ox, 0)), sx; math.Abs(got-want) > 1e-5 {
				t.Errorf("red at %d,%d=%v, want %v", ox, oy, got, want)
			}
			if got, want := float64(in.At(oy, ox, 1)), sy; math.Abs(got-want) > 1e-5 {
				t.Errorf("green at %d,%d=%v, want %v", ox, oy, got, want)
			}
		}
	}
}

func TestClipRect(t *testing.T) {
	for _, tt := range []struct {
		r    Rect
		want region
		ok   bool
	}{
		{Rect{10.7, 20.2, 30.9, 40.5}, region{10, 20, 30, 40}, true},
		// Clipped at the left, then the width floored on its own, as
		// Box.clipAtImageBorders().floor() does.
		{Rect{-32.4, 146, 286.5, 291}, region{0, 146, 254, 291}, true},
		{Rect{490, 490, 20, 20}, region{490, 490, 10, 10}, true},
		{Rect{500.5, 10, 5, 5}, region{}, false},
	} {
		got, ok := clipRect(tt.r, 500, 500)
		if ok != tt.ok || ok && got != tt.want {
			t.Errorf("clipRect(%v)=%v,%v, want %v,%v", tt.r, got, ok, tt.want, tt.ok)
		}
	}
}

func TestAlignmentIsDlibs(t *testing.T) {
	var f Face
	for i := 36; i < 42; i++ {
		f.Landmarks[i] = Point{100, 100}
	}
	for i := 42; i < 48; i++ {
		f.Landmarks[i] = Point{160, 100}
	}
	for i := 48; i < 68; i++ {
		f.Landmarks[i] = Point{130, 140}
	}
	f.cropW, f.cropH = 200, 200
	// Eyes 50 px from the mouth: side floor(50/0.45) = 111; centre of
	// the three points (130, 113.33): x = 130 − 55.5, y = 113.33 − 47.73.
	if got, want := f.alignment(), (Rect{74, 65, 111, 111}); got != want {
		t.Errorf("alignment=%v, want %v", got, want)
	}
	f.cropW = 20 // face-api.js bounds the side by crop width + x
	if got := f.alignment(); got.W != 94 || got.H != 111 {
		t.Errorf("alignment with a narrow crop=%v", got)
	}
}

func TestLandmarkPointsUndoThePadding(t *testing.T) {
	// A 50 × 100 crop is centred in a 100 × 100 square: 25 px each side,
	// 28 of the 112 input pixels. The output 0.5, 0.5 is the centre.
	out := make([]float32, 136)
	out[0], out[1] = 0.5, 0.5
	out[2], out[3] = 0.25, 0
	pts := landmarkPoints(out, 50, 100)
	if got, want := pts[0], (Point{0.5, 0.5}); math.Abs(got.X-want.X) > 1e-9 || math.Abs(got.Y-want.Y) > 1e-9 {
		t.Errorf("centre=%v, want %v", got, want)
	}
	if got, want := pts[1], (Point{0, 0}); math.Abs(got.X-want.X) > 1e-9 || got.Y != want.Y {
		t.Errorf("left edge=%v, want %v", got, want)
	}
}

func TestSuppressRects(t *testing.T) {
	dets := []detection{
		{0.6, Rect{0, 0, 10, 10}},
		{0.9, Rect{1, 1, 10, 10}}, // overlaps the first by 0.68
		{0.7, Rect{50, 50, 10, 10}},
		{0.7, Rect{51, 50, 10, 10}}, // tie: the later one is kept
	}
	got := suppressRects(dets, 416, detectorIoU)
	want := []detection{dets[1], dets[3]}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("suppressRects=%v, want %v", got, want)
	}
}

func TestCompareAndSimilarity(t *testing.T) {
	var a, b Descriptor
	a[0], b[0] = 0.3, -0.3
	if got := Compare(a, b); math.Abs(got-0.6) > 1e-7 {
		t.Errorf("Compare=%v, want 0.6", got)
	}
	for _, tt := range []struct{ d, want float64 }{{0, 1}, {0.3, 0.75}, {MatchThreshold, 0.5}, {1.2, 0}, {2, 0}} {
		if got := Similarity(tt.d); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Similarity(%v)=%v, want %v", tt.d, got, tt.want)
		}
	}
}

func TestLocateOnFlatImageAndBadOptions(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 300, 200))
	for i := range img.Pix {
		img.Pix[i] = 128
	}
	faces, err := Analyze(img, Options{})
	if err != nil || len(faces) != 0 {
		t.Errorf("flat image: %d faces, err %v", len(faces), err)
	}
	if _, err := Locate(img, Options{InputSize: 100}); err == nil {
		t.Error("input size 100: no error")
	}
	if faces, err := Locate(image.NewGray(image.Rect(0, 0, 0, 0)), Options{}); err != nil || faces != nil {
		t.Errorf("empty image: %v, %v", faces, err)
	}
	if Largest(nil) != -1 {
		t.Error("Largest(nil) != -1")
	}
}

// TestAnalyzeDeterministicAndConcurrent: the same image gives the same
// faces, to the bit, on one core, on several, and from concurrent calls.
func TestAnalyzeDeterministicAndConcurrent(t *testing.T) {
	img := decodeFile(t, filepath.Join(imagesDir(t), "face_obama_01_official_portrait.jpg"))
	prev := runtime.GOMAXPROCS(1)
	one, err := Analyze(img, Options{})
	runtime.GOMAXPROCS(prev)
	if err != nil || len(one) != 1 {
		t.Fatalf("%d faces, err %v", len(one), err)
	}
	var wg sync.WaitGroup
	results := make([][]Face, 3)
	for i := range results {
		wg.Go(func() { results[i], _ = Analyze(img, Options{}) })
	}
	wg.Wait()
	for i, r := range results {
		if !reflect.DeepEqual(r, one) {
			t.Errorf("call %d differs from the single-core run", i)
		}
	}
}

// BenchmarkAnalyzeFace times Analyze (detection, landmarks, descriptor)
// on the shared single-face photos and documents, decoding excluded, and
// reports the median and 99th percentile per face and the bytes
// allocated. Run with -cpu 2 for the two cores.
func BenchmarkAnalyzeFace(b *testing.B) {
	dir := imagesDir(b)
	var imgs []image.Image
	for _, name := range []string{
		"face_obama_01_official_portrait.jpg", "face_biden_02_portrait.jpg", "face_paulrudd_02.jpg",
		"face_obama_06_oval_office_looking_down.jpg", "doc_td3_uto_icao_specimen.jpg", "face_obama_04_lowres_320x240.jpg",
	} {
		imgs = append(imgs, decodeFile(b, filepath.Join(dir, name)))
	}
	if _, err := loadNets(); err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		faces, err := Analyze(imgs[i%len(imgs)], Options{})
		times = append(times, time.Since(start))
		if err != nil || len(faces) != 1 {
			b.Fatalf("%d faces, err %v", len(faces), err)
		}
		i++
	}
	sort.Slice(times, func(a, c int) bool { return times[a] < times[c] })
	pct := func(p float64) float64 {
		return float64(times[min(len(times)-1, int(p*float64(len(times))))].Milliseconds())
	}
	b.ReportMetric(pct(0.5), "p50-ms/face")
	b.ReportMetric(pct(0.99), "p99-ms/face")
}

// TestLocateTurnedFindsAFaceOnItsSide: a portrait turned a quarter
// anticlockwise is found by turning it back, with the same face, descriptor
// and landmarks (mapped into the turned image's coordinates).
func TestLocateTurnedFindsAFaceOnItsSide(t *testing.T) {
	img := decodeFile(t, filepath.Join(imagesDir(t), "face_obama_04_lowres_320x240.jpg"))
	upright, err := Analyze(img, Options{})
	if err != nil || len(upright) != 1 {
		t.Fatalf("upright: %d faces, err %v", len(upright), err)
	}
	// Turn anticlockwise: pixel (x, y) goes to (y, w-1-x).
	b := img.Bounds()
	side := image.NewNRGBA(image.Rect(0, 0, b.Dy(), b.Dx()))
	px := newRGBReader(img)
	for y := range b.Dy() {
		for x := range b.Dx() {
			r, g, bl := px(x, y)
			side.SetNRGBA(y, b.Dx()-1-x, color.NRGBA{r, g, bl, 0xff})
		}
	}
	faces, turned, err := LocateTurned(side, Options{})
	if err != nil || len(faces) != 1 || turned != 90 || faces[0].Turn != 90 {
		t.Fatalf("turned: %d faces, turn %d, err %v", len(faces), turned, err)
	}
	if err := Describe(side, &faces[0]); err != nil {
		t.Fatal(err)
	}
	got, want := faces[0], upright[0]
	if got.Descriptor != want.Descriptor || got.Score != want.Score || got.Quality != want.Quality {
		t.Errorf("turned face differs: score %v vs %v, distance %v", got.Score, want.Score, Compare(got.Descriptor, want.Descriptor))
	}
	// (x, y) upright is (y, W−x) in the anticlockwise-turned image.
	W := float64(b.Dx())
	if g, w := got.Box, (Rect{X: want.Box.Y, Y: W - want.Box.X - want.Box.W, W: want.Box.H, H: want.Box.W}); math.Abs(g.X-w.X) > 1e-9 || math.Abs(g.Y-w.Y) > 1e-9 || g.W != w.W || g.H != w.H {
		t.Errorf("box %v, want %v", g, w)
	}
	if g, w := got.Landmarks[30], (Point{want.Landmarks[30].Y, W - want.Landmarks[30].X}); math.Abs(g.X-w.X) > 1e-9 || math.Abs(g.Y-w.Y) > 1e-9 {
		t.Errorf("nose tip %v, want %v", g, w)
	}
	t.Logf("quality upright: %+v", want.Quality)
}
