package decision

import (
	"fmt"
	"image"
	_ "image/jpeg" // the shared images are JPEG and PNG
	_ "image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"kycd/internal/realdata"
)

// ---- helpers shared by quality_test.go and face_signal_test.go ----

func qualityImagesDir(t testing.TB) string {
	t.Helper()
	return filepath.Dir(realdata.Path(t, "images/faces.csv"))
}

func decodeImageFile(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	return img
}

// sharedImages returns the names of the shared images (JPEG and PNG).
func sharedImages(t testing.TB, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".jpg") || strings.HasSuffix(n, ".png") {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no images in %s", dir)
	}
	return out
}

func hasFinding(s Signal, code string) bool {
	return slices.ContainsFunc(s.Findings, func(f Finding) bool { return f.Code == code })
}

// kindOf is how the shared images are used in the tests: specimens and
// their low-quality copies as documents, everything else as selfies.
func kindOf(name string) string {
	if strings.HasPrefix(name, "doc_") || strings.HasPrefix(name, "lowq_") || strings.Contains(name, "_doc_") {
		return "document"
	}
	return "selfie"
}

// realSignals are both image signals for one shared image.
type realSignals struct {
	name, kind     string
	quality, faces Signal
}

var (
	realOnce    sync.Once
	realResults []realSignals
)

// realImageSignals runs ImageQuality and FacePresence once on every
// shared image, for all the tests that look at them.
func realImageSignals(t *testing.T) []realSignals {
	dir := qualityImagesDir(t)
	realOnce.Do(func() {
		for _, n := range sharedImages(t, dir) {
			img := decodeImageFile(t, filepath.Join(dir, n))
			kind := kindOf(n)
			realResults = append(realResults, realSignals{n, kind, ImageQuality(n, kind, img), FacePresence(n, kind, img)})
		}
	})
	if len(realResults) == 0 {
		t.Fatal("no results for the shared images")
	}
	return realResults
}

func TestRealImageTable(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-44s %-8s %7s %8s %6s %6s %5s %5s %5s %5s  %-6s %s\n", "image", "kind", "minSide", "blur", "glare", "dark", "p99", "contr", "fill", "faces", "status", "codes")
	for _, r := range realImageSignals(t) {
		n, kind, q, f := r.name, r.kind, r.quality, r.faces
		var cs []string
		for _, x := range append(q.Findings, f.Findings...) {
			cs = append(cs, x.Code)
		}
		st := q.Status
		if f.Status == Fail || (f.Status == Warn && st == Pass) {
			st = f.Status
		}
		fill, contrast := "-", "-"
		if kind == "document" {
			fill, contrast = fmt.Sprint(q.Data["fillRatio"]), fmt.Sprint(q.Data["contrast"])
		}
		fmt.Fprintf(&b, "%-44s %-8s %7v %8v %6v %6v %5v %5s %5s %5v  %-6s %s\n", n, kind, q.Data["minSide"], q.Data["blurVariance"],
			q.Data["glareRatio"], q.Data["darkRatio"], q.Data["brightLuma"], contrast, fill, f.Data["faces"], st, strings.Join(cs, ","))
	}
	t.Log(b.String())
}

// ---- generated images ----

// textPage draws a w×h document-like page: light paper with lines of
// glyph-sized boxes drawn in 2 px strokes, deterministic for a seed.
func textPage(w, h int, seed uint64) *image.Gray {
	r := rand.New(rand.NewPCG(seed, 7))
	m := image.NewGray(image.Rect(0, 0, w, h))
	for i := range m.Pix {
		m.Pix[i] = 225
	}
	ink := func(x0, y0, x1, y1 int) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				m.Pix[y*m.Stride+x] = 25
			}
		}
	}
	for y := 12; y+16 < h; y += 28 {
		for x := 10; x+12 < w; {
			gw, gh := 6+r.IntN(4), 10+r.IntN(4)
			// Two or three strokes of a letter-like box.
			ink(x, y, x+2, y+gh)
			if r.IntN(2) == 0 {
				ink(x, y, x+gw, y+2)
			} else {
				ink(x, y+gh-2, x+gw, y+gh)
			}
			if r.IntN(2) == 0 {
				ink(x+gw-2, y, x+gw, y+gh)
			}
			x += gw + 3
			if r.IntN(7) == 0 {
				x += 12 // word gap
			}
		}
	}
	return m
}

// gaussianBlur returns m blurred with a separable Gaussian of sigma.
func gaussianBlur(m *image.Gray, sigma float64) *image.Gray {
	rad := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*rad+1)
	var sum float64
	for i := range k {
		d := float64(i - rad)
		k[i] = math.Exp(-d * d / (2 * sigma * sigma))
		sum += k[i]
	}
	w, h := m.Rect.Dx(), m.Rect.Dy()
	tmp := make([]float64, w*h)
	for y := range h {
		for x := range w {
			var v float64
			for i, kv := range k {
				xx := min(max(x+i-rad, 0), w-1)
				v += kv * float64(m.Pix[y*m.Stride+xx])
			}
			tmp[y*w+x] = v / sum
		}
	}
	out := image.NewGray(m.Rect)
	for y := range h {
		for x := range w {
			var v float64
			for i, kv := range k {
				yy := min(max(y+i-rad, 0), h-1)
				v += kv * tmp[yy*w+x]
			}
			out.Pix[y*out.Stride+x] = uint8(math.Round(v / sum))
		}
	}
	return out
}

func TestImageQualitySharpVersusBlurred(t *testing.T) {
	sharp := textPage(800, 560, 1)
	s := ImageQuality("c1", "document", sharp)
	if s.Status != Pass || len(s.Findings) != 0 || s.Score != 1 {
		t.Errorf("sharp page: %s %.2f %v (data %v), want pass", s.Status, s.Score, s.Findings, s.Data)
	}
	b := ImageQuality("c1", "document", gaussianBlur(sharp, 3))
	if b.Status != Fail || !hasFinding(b, CodeImageBlurry) || b.Score >= 0.5 {
		t.Errorf("blurred page: %s %.2f %v (data %v), want fail with %s", b.Status, b.Score, b.Findings, b.Data, CodeImageBlurry)
	}
	if sv, bv := s.Data["blurVariance"].(float64), b.Data["blurVariance"].(float64); sv < 10*bv {
		t.Errorf("blur variance sharp %.0f vs blurred %.0f: want a 10× gap", sv, bv)
	}
}

func TestImageQualityGlare(t *testing.T) {
	page := textPage(800, 560, 2)
	// A reflection: white at the centre of an ellipse, fading out over
	// ~40 px, screened over the print.
	for y := range 560 {
		for x := range 800 {
			dx, dy := float64(x-400)/140, float64(y-300)/80
			a := math.Min(1, math.Max(0, (1.4-math.Hypot(dx, dy))/0.5))
			v := float64(page.Pix[y*page.Stride+x])
			page.Pix[y*page.Stride+x] = uint8(math.Round(v + (255-v)*a))
		}
	}
	s := ImageQuality("c1", "document", page)
	if !hasFinding(s, CodeImageGlare) || s.Status != Fail {
		t.Errorf("glare: %s %v (glareRatio %v), want fail with %s", s.Status, s.Findings, s.Data["glareRatio"], CodeImageGlare)
	}
	// White paper with a hard edge around the print is no glare: a white
	// margin touching the frame, and a white box printed inside it.
	m := image.NewGray(image.Rect(0, 0, 900, 660))
	for i := range m.Pix {
		m.Pix[i] = 255
	}
	in := textPage(800, 560, 3)
	for y := range 560 {
		copy(m.Pix[(y+50)*m.Stride+50:], in.Pix[y*in.Stride:y*in.Stride+800])
	}
	for y := 200; y < 330; y++ {
		for x := 300; x < 500; x++ {
			m.Pix[y*m.Stride+x] = 255
		}
	}
	if s := ImageQuality("c1", "document", m); hasFinding(s, CodeImageGlare) {
		t.Errorf("white paper: %v (glareRatio %v), want no glare", s.Findings, s.Data["glareRatio"])
	}
}

func TestImageQualityDark(t *testing.T) {
	page := textPage(800, 560, 4)
	for i, v := range page.Pix {
		page.Pix[i] = v / 3 // paper at 75, ink at 8
	}
	s := ImageQuality("c1", "selfie", page)
	if !hasFinding(s, CodeImageDark) || s.Status != Fail {
		t.Errorf("dark: %s %v (brightLuma %v), want fail with %s", s.Status, s.Findings, s.Data["brightLuma"], CodeImageDark)
	}
}

func TestImageQualityDocumentFillsFrame(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	bg := image.NewGray(image.Rect(0, 0, 1600, 1200))
	for i := range bg.Pix {
		bg.Pix[i] = uint8(120 + r.IntN(9)) // a plain table, a little grain
	}
	doc := textPage(400, 280, 6)
	for y := range 280 {
		copy(bg.Pix[(y+460)*bg.Stride+600:], doc.Pix[y*doc.Stride:y*doc.Stride+400])
	}
	s := ImageQuality("c1", "document", bg)
	fill := s.Data["fillRatio"].(float64)
	if !hasFinding(s, CodeDocumentNotFilling) || s.Status != Warn || fill > 0.1 {
		t.Errorf("small document: %s %v fill %.3f, want warn with %s and fill ≈ 0.06", s.Status, s.Findings, fill, CodeDocumentNotFilling)
	}
	// The fill only concerns documents.
	if s := ImageQuality("c1", "selfie", bg); hasFinding(s, CodeDocumentNotFilling) || s.Data["fillRatio"] != nil {
		t.Errorf("selfie: %v %v, want no fill measure", s.Findings, s.Data)
	}
	big := ImageQuality("c1", "document", textPage(1600, 1200, 6))
	if f := big.Data["fillRatio"].(float64); f < 0.9 || hasFinding(big, CodeDocumentNotFilling) {
		t.Errorf("full-frame document: fill %.3f %v, want ≥ 0.9 and no finding", f, big.Findings)
	}
}

func TestImageQualitySize(t *testing.T) {
	for _, c := range []struct {
		w, h int
		want Status
	}{{150, 120, Fail}, {300, 250, Warn}, {640, 480, Pass}} {
		s := ImageQuality("c1", "document", textPage(c.w, c.h, 8))
		small := hasFinding(s, CodeImageTooSmall)
		if small != (c.want != Pass) || s.Data["minSide"] != min(c.w, c.h) {
			t.Errorf("%d×%d: %v minSide %v, want too-small=%v", c.w, c.h, s.Findings, s.Data["minSide"], c.want != Pass)
		}
		if c.want != Pass && s.Status != c.want {
			t.Errorf("%d×%d: status %s, want %s", c.w, c.h, s.Status, c.want)
		}
	}
}

func TestImageQualityEdgeCases(t *testing.T) {
	if s := ImageQuality("c1", "passport", textPage(100, 100, 1)); s.Status != NotRun || s.CaptureID != "c1" {
		t.Errorf("unknown kind: %s %q, want not_run for c1", s.Status, s.CaptureID)
	}
	for _, img := range []image.Image{nil, image.NewGray(image.Rect(0, 0, 0, 0))} {
		if s := ImageQuality("c1", "selfie", img); s.Status != Fail || !hasFinding(s, CodeImageTooSmall) {
			t.Errorf("empty image: %s %v, want fail", s.Status, s.Findings)
		}
	}
	// Deterministic: the same image gives the same signal.
	page := textPage(700, 500, 9)
	if a, b := ImageQuality("c1", "document", page), ImageQuality("c1", "document", page); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("two runs differ:\n%v\n%v", a, b)
	}
}

func TestGrades(t *testing.T) {
	for _, c := range []struct {
		v, fail, warn float64
		higher        bool
		st            Status
		lo, hi        float64
	}{
		{400, 200, 400, true, Pass, 1, 1},
		{300, 200, 400, true, Warn, 0.75, 0.75},
		{100, 200, 400, true, Fail, 0.25, 0.25},
		{0.01, 0.06, 0.03, false, Pass, 1, 1},
		{0.045, 0.06, 0.03, false, Warn, 0.75, 0.75},
		{0.09, 0.06, 0.03, false, Fail, 0.25, 0.25},
		{0.5, 0.06, 0.03, false, Fail, 0, 0},
	} {
		var st Status
		var sc float64
		if c.higher {
			st, sc = higherBetter(c.v, c.fail, c.warn)
		} else {
			st, sc = lowerBetter(c.v, c.fail, c.warn)
		}
		if st != c.st || sc < c.lo-1e-9 || sc > c.hi+1e-9 {
			t.Errorf("grade(%v, fail %v, warn %v) = %s %.3f, want %s in [%v,%v]", c.v, c.fail, c.warn, st, sc, c.st, c.lo, c.hi)
		}
	}
}

// ---- the shared real images ----

func TestRealImageQuality(t *testing.T) {
	// What each image must be flagged for; every other image must not be.
	want := map[string][]string{
		"synth_blur_face_obama_01.jpg":           {CodeImageBlurry},
		"synth_blur_gaussian_doc_td3_uto.jpg":    {CodeImageBlurry},
		"synth_motionblur_doc_td3_can.jpg":       {CodeImageBlurry},
		"blur_clock_motion.png":                  {CodeImageBlurry},
		"synth_glare_doc_td3_fin.jpg":            {CodeImageGlare},
		"synth_lowlight_noisy_face_biden_02.jpg": {CodeImageDark},
		"lowq_td3_gbr_tiny_272x185.jpg":          {CodeImageTooSmall},
		"lowq_td3_uto_tiny_275x184.jpg":          {CodeImageTooSmall},
		"doc_td1_che_id_back.jpg":                {CodeImageTooSmall},
		"doc_td1_deu_id_back_lowres.jpg":         {CodeImageTooSmall},
	}
	for _, r := range realImageSignals(t) {
		n, s := r.name, r.quality
		for _, code := range []string{CodeImageBlurry, CodeImageGlare, CodeImageDark, CodeDocumentNotFilling} {
			if hasFinding(s, code) != slices.Contains(want[n], code) {
				t.Errorf("%s: %s=%v, want %v (data %v)", n, code, hasFinding(s, code), !hasFinding(s, code), s.Data)
			}
		}
		// Too small is a warn for many web-sized specimens; only these fail.
		if slices.Contains(want[n], CodeImageTooSmall) && s.Status != Fail {
			t.Errorf("%s: %s %v, want fail for size", n, s.Status, s.Findings)
		}
		if len(want[n]) > 0 && s.Status != Fail {
			t.Errorf("%s: status %s, want fail", n, s.Status)
		}
	}
}

// BenchmarkImageSignals times ImageQuality, FacePresence and both on a
// 2.1 MP photo and a 2.5 MP scan, decoded beforehand.
func BenchmarkImageSignals(b *testing.B) {
	dir := qualityImagesDir(b)
	for _, c := range []struct{ name, kind string }{
		{"face_biden_01_fulllength.jpg", "selfie"},
		{"doc_td3_deu_passport_specimen.jpg", "document"},
	} {
		img := decodeImageFile(b, filepath.Join(dir, c.name))
		b.Run("quality/"+c.name, func(b *testing.B) {
			for b.Loop() {
				ImageQuality("c", c.kind, img)
			}
		})
		b.Run("faces/"+c.name, func(b *testing.B) {
			for b.Loop() {
				FacePresence("c", c.kind, img)
			}
		})
		b.Run("both/"+c.name, func(b *testing.B) {
			for b.Loop() {
				ImageQuality("c", c.kind, img)
				FacePresence("c", c.kind, img)
			}
		})
	}
}
