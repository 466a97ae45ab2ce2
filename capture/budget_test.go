package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/png"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestProcessRefusesCostlyImages: a 16-bit all-zero PNG is a few hundred
// KB, but image/png decodes it at 8 bytes a pixel. The pixel limit alone
// let 40 MP of it through (650 MB and 9 s of CPU each); the budget prices
// depth too and refuses from the header, allocating almost nothing.
func TestProcessRefusesCostlyImages(t *testing.T) {
	for _, tt := range []struct {
		name    string
		src     []byte
		wantMsg string
	}{
		{"the issue's 8000×5000 16-bit RGBA", zeroPNG(t, 8000, 5000, 6, 16), "8000×5000"},
		{"16 MP of 16-bit RGBA, at the pixel limit", zeroPNG(t, 4000, 4000, 6, 16), "16 bits per channel"},
		{"9 MP of 16-bit RGBA", zeroPNG(t, 3000, 3000, 6, 16), "too large to process"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := Process(bytes.NewReader(tt.src), Limits{})
			runtime.ReadMemStats(&after)
			var e *Error
			if !errors.As(err, &e) || e.Code != ETooManyPixels || !strings.Contains(e.Message, tt.wantMsg) {
				t.Fatalf("Process = %v, want %s mentioning %q", err, ETooManyPixels, tt.wantMsg)
			}
			// The upload is read once (with ReadAll's growth); no pixel is.
			if n := after.TotalAlloc - before.TotalAlloc; n > 4*uint64(len(tt.src))+1<<20 {
				t.Errorf("refusing it allocated %d bytes for a %d-byte upload", n, len(tt.src))
			}
		})
	}
}

// TestCostBoundsAllocation: for each kind of image, everything finish
// allocates stays within what cost charged the budget for it. Allocation
// totals are an upper bound on the peak, so the estimate is safe.
func TestCostBoundsAllocation(t *testing.T) {
	turned := func(src []byte) []byte { return withAPP1(src, exifBlock(binary.LittleEndian, 6, "", false)) }
	photo := mustJPEG(t, quadImage(1600, 1200))
	for _, tt := range []struct {
		name string
		src  []byte
		l    Limits
	}{
		{"jpeg 4:2:0", photo, Limits{}},
		{"jpeg turned", turned(photo), Limits{}},
		{"jpeg scaled down", photo, Limits{MaxStoredPixels: 1_000_000}},
		{"jpeg grey", mustJPEG(t, image.NewGray(image.Rect(0, 0, 1600, 1200))), Limits{}},
		{"jpeg progressive", scanBomb(1600, 1200, 3), Limits{}},
		{"png rgba", mustPNG(t, quadImage(1200, 1000)), Limits{}},
		{"png rgba turned", withPNGChunk(mustPNG(t, quadImage(1200, 1000)), "eXIf", exifBlock(binary.BigEndian, 8, "", false)), Limits{}},
		{"png 16-bit rgba", zeroPNG(t, 1500, 1500, 6, 16), Limits{}},
		{"png 16-bit grey", zeroPNG(t, 1500, 1500, 0, 16), Limits{}},
		{"webp lossy", testdata(t, "yellow_rose.lossy.webp"), Limits{}},
		{"webp lossy with alpha", testdata(t, "yellow_rose.lossy-with-alpha.webp"), Limits{}},
		{"webp lossless", testdata(t, "tux.lossless.webp"), Limits{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u, err := prepare(tt.src, tt.l.withDefaults(), 0)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			if _, err := u.finish(); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			spent := int64(after.TotalAlloc - before.TotalAlloc)
			// The upload itself was allocated before finish.
			if charged := u.cost - int64(len(tt.src)); spent > charged {
				t.Errorf("finish allocated %d bytes, cost charged %d", spent, charged)
			} else {
				t.Logf("finish allocated %d bytes of %d charged (%.0f%%)", spent, charged, 100*float64(spent)/float64(charged))
			}
		})
	}
}

// TestProcessScalesDown: an upload over MaxStoredPixels is stored scaled
// down, with its aspect ratio and orientation, so later stages never see
// it at full size.
func TestProcessScalesDown(t *testing.T) {
	src := withAPP1(mustJPEG(t, quadImage(1200, 900)), exifBlock(binary.LittleEndian, 6, "", false))
	got, err := Process(bytes.NewReader(src), Limits{MaxStoredPixels: 600 * 450})
	if err != nil {
		t.Fatal(err)
	}
	if got.Width != 450 || got.Height != 600 || got.SourceWidth != 1200 || got.SourceHeight != 900 {
		t.Fatalf("stored %d×%d from %d×%d, want 450×600 from 1200×900", got.Width, got.Height, got.SourceWidth, got.SourceHeight)
	}
	m := mustDecodeOutput(t, got)
	// Turned 90° clockwise: blue, red / white, green.
	for i, p := range []image.Point{{112, 150}, {337, 150}, {112, 450}, {337, 450}} {
		if c := rgbAt(m, p.X, p.Y); !near(c, []color.RGBA{blue, red, white, green}[i]) {
			t.Errorf("quadrant %d at %v is %v", i, p, c)
		}
	}
	// A photo within the bound is not resampled at all.
	small, err := Process(bytes.NewReader(mustJPEG(t, quadImage(640, 480))), Limits{MaxStoredPixels: 640 * 480})
	if err != nil || small.Width != 640 || small.Height != 480 {
		t.Fatalf("within the bound: %v, %+v", err, small)
	}
}

// TestProcess16BitStoredAs8: a 16-bit PNG is stored at 8 bits per channel,
// so later stages decode it at half the memory.
func TestProcess16BitStoredAs8(t *testing.T) {
	got, err := Process(bytes.NewReader(zeroPNG(t, 800, 600, 6, 16)), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(got.Data))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ColorModel == color.NRGBA64Model || cfg.ColorModel == color.RGBA64Model {
		t.Errorf("stored with 16 bits per channel")
	}
}

func TestGate(t *testing.T) {
	photo := mustJPEG(t, quadImage(640, 480))
	ctx := t.Context()
	t.Run("passes uploads through", func(t *testing.T) {
		g := NewGate(GateOptions{Concurrency: 1})
		if got, err := g.Process(ctx, photo, Limits{}); err != nil || got.Width != 640 {
			t.Fatalf("Process = %+v, %v", got, err)
		}
	})
	t.Run("busy when every slot stays taken", func(t *testing.T) {
		g := NewGate(GateOptions{Concurrency: 1, Wait: 20 * time.Millisecond})
		if err := g.slots.Acquire(ctx, 1); err != nil {
			t.Fatal(err)
		}
		_, err := g.Process(ctx, photo, Limits{})
		if ErrorCode(err) != EBusy {
			t.Fatalf("Process = %v, want %s", err, EBusy)
		}
		g.slots.Release(1)
		if _, err := g.Process(ctx, photo, Limits{}); err != nil {
			t.Fatalf("after the slot came free: %v", err)
		}
	})
	t.Run("busy when the memory stays taken", func(t *testing.T) {
		g := NewGate(GateOptions{Concurrency: 4, Memory: 64 << 20, Wait: 20 * time.Millisecond})
		if err := g.mem.Acquire(ctx, 64<<20); err != nil {
			t.Fatal(err)
		}
		if _, err := g.Process(ctx, photo, Limits{}); ErrorCode(err) != EBusy {
			t.Fatalf("Process = %v, want %s", err, EBusy)
		}
	})
	t.Run("an upload costlier than the whole gate is refused, not queued", func(t *testing.T) {
		g := NewGate(GateOptions{Memory: 100_000})
		if _, err := g.Process(ctx, photo, Limits{}); ErrorCode(err) != ETooManyPixels {
			t.Fatalf("Process = %v, want %s", err, ETooManyPixels)
		}
	})
	t.Run("a client that goes away stops waiting", func(t *testing.T) {
		g := NewGate(GateOptions{Concurrency: 1, Wait: time.Minute})
		if err := g.slots.Acquire(ctx, 1); err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := g.Process(cctx, photo, Limits{}); !errors.Is(err, context.Canceled) {
			t.Fatalf("Process = %v, want context.Canceled", err)
		}
	})
}
