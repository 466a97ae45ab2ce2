package screening

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedData returns the path of a file in the shared real-data folder
// (/work/shared/data, two levels above this package), e.g.
// "lists/un_consolidated_2026-02-27.xml". The files are never copied into
// the repository. Without the folder the test is skipped, except under
// CI=true, where the data must be present and its absence fails the test.
func sharedData(t testing.TB, rel string) string {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "data", filepath.FromSlash(rel))
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("shared data %s missing under CI=true: %v", rel, err)
		}
		t.Skipf("shared data %s not available: %v", rel, err)
	}
	return path
}

// openShared opens a shared data file and closes it when the test ends.
func openShared(t testing.TB, rel string) *os.File {
	t.Helper()
	f, err := os.Open(sharedData(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
