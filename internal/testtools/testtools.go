// Package testtools is for tests that need a tool from outside Go
// (Chromium, axe-core and the Node references, ImageMagick). Without the
// tool such a test is skipped, and the skip must not go unseen: go test
// shows nothing of a passing package but its "ok" line, so the package
// writes a line per tool at the end ("SKIPPED: 7 tests need axe-core (…):
// run tools/setup") to its output (seen with -v or when it fails) and to
// the terminal the tests run from (/dev/tty), which go test does not
// capture. The run still passes: `go test ./...` must work on a machine
// with only Go. KYCD_TEST_STRICT=1 makes such skips fail the package;
// under CI=true a missing tool fails the test itself.
package testtools

import (
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"testing"
)

// StrictEnv is the variable that makes skips for missing tools fail.
const StrictEnv = "KYCD_TEST_STRICT"

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
// Report's code. The summary goes to the test output and, where there is
// one, to the terminal.
func Main(m *testing.M) {
	var w io.Writer = os.Stdout
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = io.MultiWriter(os.Stdout, tty)
	}
	os.Exit(Report(w, m.Run()))
}

// Report writes a line per missing tool, and returns the exit code: code,
// or 1 when tests were skipped for a missing tool and StrictEnv is 1.
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
	if os.Getenv(StrictEnv) != "1" {
		return code
	}
	fmt.Fprintf(w, "FAIL: tests were skipped for missing tools (%s=1); install them: %s\n", StrictEnv, Setup)
	if code == 0 {
		code = 1
	}
	return code
}
