package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"kycd/internal/testtools"
)

// TestMain reports the tests skipped for a missing ImageMagick, and fails
// the run for them unless accepted (testtools).
func TestMain(m *testing.M) { testtools.Main(m) }

// progressiveJPEG makes a w×h progressive JPEG of photo-like content with
// ImageMagick, the way an editor or a messenger re-saves a phone photo.
// sampling is the chroma subsampling: "2x2" is a phone camera's 4:2:0,
// "1x1" full colour resolution (ImageMagick's own choice at quality 90 and
// over).
func progressiveJPEG(t *testing.T, w, h int, sampling string) []byte {
	t.Helper()
	convert, err := exec.LookPath("convert")
	if err != nil {
		testtools.Missing(t, "ImageMagick (convert)", err)
	}
	out := filepath.Join(t.TempDir(), "photo.jpg")
	cmd := exec.Command(convert, "-size", "400x300", "plasma:fractal", "-resize", fmt.Sprintf("%dx%d!", w, h),
		"-attenuate", "0.2", "+noise", "Gaussian",
		"-sampling-factor", sampling, "-quality", "90", "-interlace", "Plane", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("convert: %v: %s", err, b)
	}
	src := mustRead(t, out)
	if info := inspectJPEG(src); !info.progressive {
		t.Fatalf("convert wrote a baseline JPEG")
	}
	return src
}

// TestProgressivePhonePhotosPass is issue 23 item 19: two ordinary
// progressive JPEGs of 12.6 and 14.1 MP, under the 16 MP limit, were
// refused as too_many_pixels ("Upload a JPEG photo…"). The estimate of
// their decode was right (image/jpeg keeps 256 bytes of coefficients per
// 8×8 block besides the pixels), but the budget added the coefficients to
// the normalised copy and the encoder's buffer, which are allocated only
// after the decoder has returned and its coefficients are garbage. They
// now pass with the default budget, alone and through a default Gate.
func TestProgressivePhonePhotosPass(t *testing.T) {
	for _, sz := range [][2]int{{4000, 3150}, {4600, 3070}} {
		src := progressiveJPEG(t, sz[0], sz[1], "2x2")
		t.Logf("%d×%d progressive 4:2:0: %d KB", sz[0], sz[1], len(src)>>10)
		img, err := Process(bytes.NewReader(src), Limits{})
		if err != nil {
			t.Fatalf("%d×%d: Process = %v", sz[0], sz[1], err)
		}
		if img.SourceWidth != sz[0] || img.SourceHeight != sz[1] || int64(img.Width)*int64(img.Height) > DefaultMaxStoredPixels {
			t.Errorf("stored %d×%d from %d×%d", img.Width, img.Height, img.SourceWidth, img.SourceHeight)
		}
		if _, err := NewGate(GateOptions{}).Process(context.Background(), src, Limits{}); err != nil {
			t.Errorf("%d×%d through a default gate: %v", sz[0], sz[1], err)
		}
	}
}

// TestCostlyProgressiveNamesCause: a progressive JPEG that really costs
// more than the budget (full colour resolution, 14.1 MP: ~210 MB to
// decode with image/jpeg) is refused with a message that says so and what
// to do, not "Upload a JPEG photo". A larger gate lets it through.
func TestCostlyProgressiveNamesCause(t *testing.T) {
	src := progressiveJPEG(t, 4600, 3070, "1x1")
	_, err := Process(bytes.NewReader(src), Limits{})
	var e *Error
	if !errors.As(err, &e) || e.Code != ETooManyPixels {
		t.Fatalf("Process = %v, want %s", err, ETooManyPixels)
	}
	if !strings.Contains(e.Message, "progressive JPEG") || strings.Contains(e.Message, "Upload a JPEG photo") {
		t.Errorf("message %q does not name the cause", e.Message)
	}
	if _, err := NewGate(GateOptions{Memory: 256 << 20}).Process(context.Background(), src, Limits{}); err != nil {
		t.Errorf("through a 256 MiB gate: %v", err)
	}
}

// TestTwoStageCostBoundsAllocation: for a progressive JPEG priced in two
// stages, each stage allocates no more than it was charged, and the
// coefficients of the first are collected before the second starts, so
// the live heap never holds both.
func TestTwoStageCostBoundsAllocation(t *testing.T) {
	src := progressiveJPEG(t, 3000, 2000, "2x2")
	u, err := prepare(src, Limits{}.withDefaults(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !u.price.split {
		t.Fatalf("a 6 MP progressive JPEG was not priced in two stages: %+v", u.price)
	}
	var m0, m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	img, err := u.decode()
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	if spent := int64(m1.TotalAlloc - m0.TotalAlloc); spent > u.price.decode {
		t.Errorf("decode allocated %d bytes, charged %d", spent, u.price.decode)
	}
	// What is live after decode is the image and the upload, not the
	// coefficients (4 times the image).
	if live := int64(m1.HeapAlloc) - int64(m0.HeapAlloc); live > u.price.held+u.price.held/4 {
		t.Errorf("after decode %d bytes are live, the image is %d", live, u.price.held)
	}
	if _, err := u.encode(img); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m2)
	if spent := int64(m2.TotalAlloc - m1.TotalAlloc); spent > u.price.after {
		t.Errorf("normalise and encode allocated %d bytes, charged %d", spent, u.price.after)
	}
}
