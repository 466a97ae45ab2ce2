package ocr

import "testing"

func BenchmarkDeconvolveLine(b *testing.B) {
	cells := make([][]float32, 44)
	for i := range cells {
		cells[i] = make([]float32, CellW*CellH)
		for k := range cells[i] {
			cells[i][k] = float32((k*7 + i*13) % 200)
		}
	}
	for b.Loop() {
		deconvolveCells(cells, 2.1, 1.9, rlIters)
	}
}
