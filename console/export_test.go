package console

// SetExportChunk makes the CSV export read n rows at a time (tests page
// through a few rows with it); the returned func restores the size.
func SetExportChunk(n int) func() {
	old := exportChunk
	exportChunk = n
	return func() { exportChunk = old }
}
