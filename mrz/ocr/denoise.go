package ocr

import "time"

// A zone photographed in a dim room has little ink against its paper
// (Result.Contrast under minContrast) and the camera's noise is then a
// large part of what each cell shows: a stroke's edge frays, and the
// classifier hesitates between glyphs that differ by one stroke. Such a
// zone, found but not read, is looked at again through cells smoothed by
// a Gaussian of under a sample (less than a stroke's width, which stays
// a stroke): the noise of neighbouring samples averages out.

// denoiseSigma is the smoothing's width in cell samples. It was chosen
// on split A of the generated low-light class of bench/mrz (0.5 and 0.7
// read one more photo there, 1.0 none).
const denoiseSigma = 0.7

// denoiseLook reads a dim zone found but not read (full, decoded as r)
// again through smoothed cells. As with the sharpened look, a reading is
// taken only when it ranks above r and keeps every character r was sure
// of; otherwise r stands, with its retake hint.
func denoiseLook(net *Net, py *Pyramid, full *scored, r *Result, base *plane, ref time.Time) *Result {
	if r.Contrast >= minContrast || len(r.Unsure) > maxSharpUnsure {
		return r
	}
	s := lookAgain(net, py, full, func(_ *Line, raw [][]float32) CellSamples {
		smoothCells(raw, denoiseSigma)
		return normaliseCells(raw)
	})
	if r2 := result(&s, base, ref); rank(r2) > rank(r) && agrees(r, r2) {
		return r2
	}
	return r
}

// smoothCells blurs the cells, laid side by side in one strip as the
// line lays them, by a Gaussian of sigma samples.
func smoothCells(cells [][]float32, sigma float64) {
	n := len(cells)
	w, h := n*CellW, CellH
	strip := make([]float32, w*h)
	for i, c := range cells {
		for v := range CellH {
			copy(strip[v*w+i*CellW:v*w+(i+1)*CellW], c[v*CellW:(v+1)*CellW])
		}
	}
	out, tmp := make([]float32, w*h), make([]float32, w*h)
	k := gaussKernel(sigma)
	convolve(strip, out, tmp, w, h, k, k)
	for i, c := range cells {
		for v := range CellH {
			copy(c[v*CellW:(v+1)*CellW], out[v*w+i*CellW:v*w+(i+1)*CellW])
		}
	}
}
