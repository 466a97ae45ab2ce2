package testtools

import (
	"errors"
	"strings"
	"testing"
)

// TestReport: skips for a missing tool are counted per tool and test, and
// fail the run only when strict.
func TestReport(t *testing.T) {
	t.Setenv("CI", "")
	t.Run("a", func(t *testing.T) { Missing(t, "axe-core (tools/axe)", errors.New("no file")) })
	t.Run("b", func(t *testing.T) { Missing(t, "axe-core (tools/axe)", errors.New("no file")) })
	t.Run("c", func(t *testing.T) { Need(t, "/nonexistent/chromium", "chromium") })
	t.Run("d", func(t *testing.T) { Need(t, "testtools.go", "a file that is there") })
	var out strings.Builder
	t.Setenv(StrictEnv, "")
	if code := Report(&out, 0); code != 0 {
		t.Errorf("Report = %d, want 0 (skips pass unless strict)", code)
	}
	want := "SKIPPED: 2 tests need axe-core (tools/axe): run tools/setup\nSKIPPED: 1 test needs chromium: run tools/setup\n"
	if out.String() != want {
		t.Errorf("Report wrote %q, want %q", out.String(), want)
	}
	t.Setenv(StrictEnv, "1")
	out.Reset()
	if code := Report(&out, 0); code != 1 || !strings.Contains(out.String(), StrictEnv+"=1") {
		t.Errorf("strict: Report = %d, wrote %q; want 1 and a FAIL line", code, out.String())
	}
	mu.Lock()
	skipped = map[string]map[string]bool{} // this test's skips are not the package's
	mu.Unlock()
}
