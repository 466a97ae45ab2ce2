// Package realdata finds the shared folder of real public data (watch
// lists, labelled name sets, document and face images) that tests and
// benchmarks read. The files are never copied into the repository.
package realdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the shared data folder: $KYCD_SHARED_DATA when set, else the
// first "shared/data" found beside the current directory or one of its
// parents (the repository sits beside "shared" in the workspace), or ""
// when there is none.
func Dir() string {
	if d := os.Getenv("KYCD_SHARED_DATA"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		cand := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(cand); err == nil && st.IsDir() {
			return cand
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// Path returns the path of rel (e.g. "lists/un_consolidated_2026-02-27.xml")
// in the shared folder. Without the file the test is skipped, except under
// CI=true, where the data must be present and its absence fails the test.
func Path(t testing.TB, rel string) string {
	t.Helper()
	dir := Dir()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Stat(path); dir == "" || err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared data %s missing under CI=true (set KYCD_SHARED_DATA): %v", rel, err)
		}
		t.Skipf("shared data %s not available (set KYCD_SHARED_DATA): %v", rel, err)
	}
	return path
}
