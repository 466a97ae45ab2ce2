package screening

import (
	"os"
	"testing"

	"kycd/internal/realdata"
)

// sharedData returns the path of a file in the shared real-data folder,
// e.g. "lists/un_consolidated_2026-02-27.xml" (see internal/realdata).
func sharedData(t testing.TB, rel string) string { return realdata.Path(t, rel) }

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
