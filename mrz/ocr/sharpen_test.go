package ocr

import (
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestReadBlurredSharpened blurs shared photos whose zone is read, by a
// Gaussian of a share of the zone's width (about a TD3 pitch), to where the first look
// leaves a few characters unsure: the deconvolved second look reads them,
// exactly (and never a wrong reading that passes the check digits).
func TestReadBlurredSharpened(t *testing.T) {
	if testing.Short() {
		t.Skip("reads several photos")
	}
	dir, want := truthByImage(t)
	ref := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		image string
		share float64 // the blur's σ: this share of the zone's width over 44
	}{
		{"doc_td3_hrv_passport_specimen.jpg", 0.15},
		{"doc_td3_ukr_passport_specimen.png", 0.18},
		{"doc_mrvb_uto_icao_visa.png", 0.21},
		{"doc_2x36_fra_id_specimen.jpg", 0.21},
	} {
		img := grayOf(decodeFile(t, filepath.Join(dir, c.image)))
		clean, err := Read(img, ref)
		if err != nil || clean.Status != StatusRead {
			t.Fatalf("%s undamaged: %v, %v", c.image, clean, err)
		}
		r, err := Read(blurGray(img, float64(clean.Box.Dx())/44*c.share), ref)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusRead || !slices.Equal(r.Lines, want[c.image]) {
			t.Errorf("%s blurred by %.2f: %v, want %q", c.image, c.share, r, want[c.image])
		}
	}
}

// TestDeconvolveCells: a strip of cells blurred by a known Gaussian comes
// back closer to the sharp strip after deconvolution with that Gaussian.
func TestDeconvolveCells(t *testing.T) {
	const n = 6
	sharp := make([][]float32, n)
	for i := range sharp {
		sharp[i] = make([]float32, CellW*CellH)
		for v := range CellH {
			for u := range CellW {
				// Paper 220 with a dark bar two samples wide and a dot,
				// different in each cell.
				val := float32(220)
				if u == 3+i%5 || u == 4+i%5 || (v == 4+i && u == 10) {
					val = 30
				}
				sharp[i][v*CellW+u] = val
			}
		}
	}
	const sigma = 1.2
	blurred := make([][]float32, n)
	for i := range blurred {
		blurred[i] = slices.Clone(sharp[i])
	}
	// Blur the strip the way deconvolveCells sees it.
	w := n * CellW
	strip := make([]float32, w*CellH)
	for i, c := range blurred {
		for v := range CellH {
			copy(strip[v*w+i*CellW:], c[v*CellW:(v+1)*CellW])
		}
	}
	out, tmp := make([]float32, len(strip)), make([]float32, len(strip))
	convolve(strip, out, tmp, w, CellH, gaussKernel(sigma), gaussKernel(sigma))
	for i, c := range blurred {
		for v := range CellH {
			copy(c[v*CellW:(v+1)*CellW], out[v*w+i*CellW:])
		}
	}
	dist := func(a [][]float32) float64 {
		var s float64
		for i := range a {
			for k := range a[i] {
				d := float64(a[i][k] - sharp[i][k])
				s += d * d
			}
		}
		return math.Sqrt(s)
	}
	before := dist(blurred)
	deconvolveCells(blurred, sigma, sigma, rlIters)
	after := dist(blurred)
	if after > 0.9*before {
		t.Errorf("deconvolution left %.0f of %.0f (RMS over the strip) from the sharp strip", after, before)
	}
	for i := range blurred {
		for _, v := range blurred[i] {
			if math.IsNaN(float64(v)) || v < -1 {
				t.Fatalf("deconvolved sample %v", v)
			}
		}
	}
}

// TestPSFSigma: a zone as sharp as a focused one is not deconvolved; a
// softer one by the blur beyond a sharp zone's.
func TestPSFSigma(t *testing.T) {
	for _, c := range []struct{ blur, want float64 }{
		{0.8, 0}, {sharpBase, 0}, {1.5, math.Sqrt(1.5*1.5 - sharpBase*sharpBase)},
	} {
		if got := psfSigma(c.blur); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("psfSigma(%v) = %v, want %v", c.blur, got, c.want)
		}
	}
}

// TestAgrees: a second look may settle the characters the first left
// unsure, never change one the first was sure of.
func TestAgrees(t *testing.T) {
	first := &Result{Lines: []string{"IDD<<T22", "64081250"}, Unsure: [][2]int{{0, 6}, {1, 3}}}
	for _, c := range []struct {
		lines []string
		want  bool
	}{
		{[]string{"IDD<<T22", "64081250"}, true},
		{[]string{"IDD<<T32", "64031250"}, true},  // unsure cells settled otherwise
		{[]string{"IDO<<T22", "64081250"}, false}, // a sure D read as O
		{[]string{"IDD<<T22"}, false},
		{[]string{"IDD<<T22", "6408125"}, false},
	} {
		if got := agrees(first, &Result{Lines: c.lines}); got != c.want {
			t.Errorf("agrees(%q) = %v, want %v", c.lines, got, c.want)
		}
	}
}
