package pdf417

import (
	"encoding/hex"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// zxingOracle returns a reader backed by zxing-cpp's ZXingReader (Debian
// package zxing-cpp-tools), for comparing decode rates in tests only —
// kycd never runs it. It is used when PDF417_ZXING=1 and the tool is
// installed; otherwise it returns nil.
func zxingOracle(t testing.TB) func(image.Image) ([]byte, bool) {
	if os.Getenv("PDF417_ZXING") != "1" {
		return nil
	}
	bin, err := exec.LookPath("ZXingReader")
	if err != nil {
		t.Logf("PDF417_ZXING=1 but ZXingReader is not installed (apt-get install zxing-cpp-tools): %v", err)
		return nil
	}
	dir := t.TempDir()
	return func(img image.Image) ([]byte, bool) {
		path := filepath.Join(dir, "img.png")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		f.Close()
		out, err := exec.Command(bin, "-format", "PDF417", path).Output()
		if err != nil {
			return nil, false
		}
		for _, line := range strings.Split(string(out), "\n") {
			if h, ok := strings.CutPrefix(line, "Bytes:"); ok {
				b, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(h), " ", ""))
				return b, err == nil
			}
		}
		return nil, false
	}
}
