package testtools

import (
	"errors"
	"strings"
	"testing"
)

// TestReport: skips for a missing tool are counted per tool and test, and
// fail the run unless accepted.
func TestReport(t *testing.T) {
	t.Setenv("CI", "")
	t.Run("a", func(t *testing.T) { Missing(t, "axe-core (tools/axe)", errors.New("no file")) })
	t.Run("b", func(t *testing.T) { Missing(t, "axe-core (tools/axe)", errors.New("no file")) })
	t.Run("c", func(t *testing.T) { Need(t, "/nonexistent/chromium", "chromium") })
	t.Run("d", func(t *testing.T) { Need(t, "testtools.go", "a file that is there") })
	var out strings.Builder
	t.Setenv(SkipEnv, "")
	if code := Report(&out, 0); code != 1 {
		t.Errorf("Report = %d, want 1", code)
	}
	want := "SKIPPED: 2 tests need axe-core (tools/axe): run tools/setup\nSKIPPED: 1 test needs chromium: run tools/setup\n"
	if !strings.HasPrefix(out.String(), want) || !strings.Contains(out.String(), SkipEnv+"=1") {
		t.Errorf("Report wrote %q", out.String())
	}
	t.Setenv(SkipEnv, "1")
	if code := Report(&strings.Builder{}, 0); code != 0 {
		t.Errorf("accepted skips: Report = %d, want 0", code)
	}
	mu.Lock()
	skipped = map[string]map[string]bool{} // this test's skips are not the package's
	mu.Unlock()
}
