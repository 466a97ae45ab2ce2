package capture

import (
	"bytes"
	"image"
	"path/filepath"
	"strings"
	"testing"

	"kycd/internal/realdata"
)

// TestProcessRealImages: every document and face photo of the shared data
// is accepted, at its own size, and what comes out decodes. The few whose
// short side is under the default MinSide must be refused as too_small,
// and accepted once MinSide allows them.
func TestProcessRealImages(t *testing.T) {
	dir := realdata.Path(t, "images")
	var files []string
	for _, pat := range []string{"*.jpg", "*.png", "*.webp"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 50 {
		t.Fatalf("found %d images in %s, want the whole set", len(files), dir)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := mustRead(t, path)
			cfg, _, err := image.DecodeConfig(bytes.NewReader(src)) // jpeg and png are registered by the package
			if err != nil {
				t.Fatalf("standard library cannot read the header either: %v", err)
			}
			limits := Limits{}
			if min(cfg.Width, cfg.Height) < DefaultMinSide {
				_, err := Process(bytes.NewReader(src), limits)
				if ErrorCode(err) != ETooSmall {
					t.Fatalf("%d×%d: Process = %v, want %s", cfg.Width, cfg.Height, err, ETooSmall)
				}
				limits.MinSide = min(cfg.Width, cfg.Height)
			}
			got, err := Process(bytes.NewReader(src), limits)
			if err != nil {
				t.Fatalf("Process: %v", err)
			}
			w, h := cfg.Width, cfg.Height
			if got.Metadata.Orientation >= 5 {
				w, h = h, w
			}
			if got.Width != w || got.Height != h {
				t.Errorf("size %d×%d, want %d×%d (orientation %d)", got.Width, got.Height, w, h, got.Metadata.Orientation)
			}
			wantOut := "image/jpeg"
			if strings.HasSuffix(name, ".png") {
				wantOut = "image/png"
			}
			if got.ContentType != wantOut {
				t.Errorf("ContentType %s, want %s", got.ContentType, wantOut)
			}
			if bytes.Contains(got.Data, []byte("Exif\x00")) || bytes.Contains(got.Data, []byte("http://ns.adobe.com/xap")) {
				t.Errorf("metadata survived")
			}
			mustDecodeOutput(t, got)
			t.Logf("%d×%d %s→%s %d→%d bytes, meta %+v", got.Width, got.Height, got.SourceType, got.ContentType, len(src), len(got.Data), got.Metadata)
		})
	}
}

// TestProcessRealTruncated: a real photo cut in half is refused as corrupt,
// not accepted with its lower half grey.
func TestProcessRealTruncated(t *testing.T) {
	for _, name := range []string{"doc_td3_deu_passport_specimen.jpg", "face_obama_01_official_portrait.jpg", "doc_td3_can_passport_specimen.png"} {
		t.Run(name, func(t *testing.T) {
			src := mustRead(t, realdata.Path(t, "images/"+name))
			for _, cut := range []int{len(src) / 2, len(src) - 100} {
				_, err := Process(bytes.NewReader(src[:cut]), Limits{})
				if ErrorCode(err) != ECorrupt {
					t.Errorf("cut at %d of %d: Process = %v, want %s", cut, len(src), err, ECorrupt)
				}
			}
		})
	}
}
