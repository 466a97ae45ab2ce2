// Package testtools is for tests that need a tool from outside Go
// (Chromium, axe-core and the Node references, ImageMagick). Without the
// tool such a test is skipped, and the skip must not go unseen: go test
// shows nothing of a passing package but its "ok" line, so a package
// whose tests were skipped for a missing tool fails at the end, after a
// line per tool: "SKIPPED: 7 tests need axe-core (…): run tools/setup".
// KYCD_TEST_SKIP_MISSING=1 accepts the skips (the lines still print, seen
// with -v). Under CI=true a missing tool fails the test itself.
package testtools

import (
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"testing"
)

// SkipEnv is the variable that accepts skips for missing tools.
const SkipEnv = "KYCD_TEST_SKIP_MISSING"

// Setup is the command that installs every tool the tests need.
const Setup = "tools/setup"

var (
	mu      sync.Mutex
	skipped = map[string]map[string]bool{} // what → test names
)

// Need skips (under CI=true: fails) t unless path exists; what names the
// tool for the summary, such as "axe-core (tools/axe)".
func Need(t testing.TB, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, what, err)
	}
}

// Missing skips (under CI=true: fails) t, which cannot run without what,
// and counts it for Main's summary.
func Missing(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing under CI=true (run %s): %v", what, Setup, err)
	}
	mu.Lock()
	if skipped[what] == nil {
		skipped[what] = map[string]bool{}
	}
	skipped[what][t.Name()] = true
	mu.Unlock()
	t.Skipf("SKIPPED: needs %s (run %s): %v", what, Setup, err)
}

// Main runs the package's tests (call it from TestMain) and exits with
// Report's code.
func Main(m *testing.M) {
	os.Exit(Report(os.Stdout, m.Run()))
}

// Report writes a line per missing tool, and returns the exit code: code,
// or 1 when tests were skipped for a missing tool and SkipEnv is not 1.
func Report(w io.Writer, code int) int {
	mu.Lock()
	defer mu.Unlock()
	if len(skipped) == 0 {
		return code
	}
	whats := make([]string, 0, len(skipped))
	for what := range skipped {
		whats = append(whats, what)
	}
	sort.Strings(whats)
	for _, what := range whats {
		n := len(skipped[what])
		fmt.Fprintf(w, "SKIPPED: %d test%s need%s %s: run %s\n", n, map[bool]string{true: "s"}[n != 1], map[bool]string{true: "s"}[n == 1], what, Setup)
	}
	if os.Getenv(SkipEnv) == "1" {
		return code
	}
	fmt.Fprintf(w, "FAIL: tests were skipped for missing tools; install them (%s) or accept the skips with %s=1\n", Setup, SkipEnv)
	if code == 0 {
		code = 1
	}
	return code
}
