package docforensics

import (
	"image"
	"math"
	"math/cmplx"
	"slices"
)

// RecaptureMeasures describe the periodic fine structure of an image: a
// screen's pixel grid and a print's halftone dots are periodic with a
// period of a few pixels, and survive being photographed as sharp peaks
// (or moiré) in the spectrum; paper, ink and sensor noise do not.
type RecaptureMeasures struct {
	// PeakRatio is the strongest peak of the averaged spectrum of the
	// high-pass residual (periods of 2 to 8 pixels) against the median
	// power of that band.
	PeakRatio float64 `json:"peakRatio"`
	// PeakPeriod is the period of that peak, in pixels.
	PeakPeriod float64 `json:"peakPeriod"`
	// FlatTexture is the noise floor of the flattest fifth of the image
	// (RenderMeasures.NoiseFloor).
	FlatTexture float64 `json:"flatTexture"`
	Patches     int     `json:"patches"`
}

// Thresholds of Recapture, set on the calibration half of the genuine
// document images (see realdata_test.go).
const (
	// MaxPeakRatio: a band peak this many times the band's median power
	// is a periodic structure of a few pixels (about twice the
	// calibration half's most, 704: security printing has fine periodic
	// patterns too; a photographed screen measures above 100,000).
	MaxPeakRatio = 1500.0
	// MaxFlatTexture: the noise floor (see RenderMeasures) above which
	// even the flattest fifth of the document is covered in fine
	// structure: halftone dots everywhere (the calibration half's most
	// is 8.3; a halftone print photographed close measures 45-61).
	MaxFlatTexture = 20.0
	patch          = 128
)

// Recapture measures the fine periodic structure of img (flatTexture is
// Rendering's noise floor of the same image) and returns the
// findings (DOCUMENT_RECAPTURED) with the measures. The spectra of up to
// 4×4 patches spread over the image are averaged (Welch's method), each
// normalised by its band's median: a screen's grid or a halftone is at
// the same frequency in every patch and adds up; guilloche, print and
// text vary from patch to patch and average out.
func Recapture(img image.Image, flatTexture float64) ([]Finding, RecaptureMeasures) {
	g := lumaOf(img)
	m := RecaptureMeasures{FlatTexture: round4(flatTexture)}
	var out []Finding
	if flatTexture >= MaxFlatTexture {
		out = append(out, finding(CodeRecaptured, "flatTexture", flatTexture, MaxFlatTexture,
			"Even the plainest parts of the document image are covered in fine dots (texture %.1f grey levels, a photographed document shows at most %.0f): a print's halftone, photographed again.", flatTexture, MaxFlatTexture))
	}
	if g.w < patch+2 || g.h < patch+2 {
		return out, m
	}
	nx, ny := min(4, (g.w-2)/patch), min(4, (g.h-2)/patch)
	avg := make([]float64, patch*(patch/2+1))
	for j := range ny {
		for i := range nx {
			x0 := 1 + i*(g.w-2-patch)/max(nx-1, 1)
			y0 := 1 + j*(g.h-2-patch)/max(ny-1, 1)
			if patchSpectrum(g, x0, y0, avg) {
				m.Patches++
			}
		}
	}
	if m.Patches == 0 {
		return out, m
	}
	var band []float64
	best, bestR := 0.0, 0.0
	for v := range patch {
		for u := 0; u <= patch/2; u++ {
			r, ok := inBand(u, v)
			if !ok {
				continue
			}
			p := avg[v*(patch/2+1)+u]
			band = append(band, p)
			if p > best {
				best, bestR = p, r
			}
		}
	}
	slices.Sort(band)
	m.PeakRatio, m.PeakPeriod = round4(best/band[len(band)/2]), round4(float64(patch)/bestR)
	if m.PeakRatio >= MaxPeakRatio {
		out = append(out, finding(CodeRecaptured, "peakRatio", m.PeakRatio, MaxPeakRatio,
			"A fine periodic pattern (period %.1f pixels, %.0f times the background) covers the document image: a screen's pixel grid or a print's halftone, photographed again.",
			m.PeakPeriod, m.PeakRatio))
	}
	return out, m
}

// inBand says whether frequency (u, v) of a patch has a period of 2 to 8
// pixels, and its radius.
func inBand(u, v int) (float64, bool) {
	fv := v
	if fv > patch/2 {
		fv -= patch
	}
	r := math.Hypot(float64(u), float64(fv))
	return r, r >= patch/8 && r <= patch/2
}

// patchSpectrum adds the patch's residual power spectrum, normalised by
// its band's median, to avg; false for a patch with no texture at all (a
// flat fill says nothing).
func patchSpectrum(g *grayPlane, x0, y0 int, avg []float64) bool {
	data := make([]complex128, patch*patch)
	var energy float64
	for y := range patch {
		wy := 0.5 - 0.5*math.Cos(2*math.Pi*float64(y)/float64(patch-1))
		for x := range patch {
			wx := 0.5 - 0.5*math.Cos(2*math.Pi*float64(x)/float64(patch-1))
			px, py := x0+x, y0+y
			r := float64(g.at(px, py) - (g.at(px-1, py)+g.at(px+1, py)+g.at(px, py-1)+g.at(px, py+1))/4)
			energy += r * r
			data[y*patch+x] = complex(r*wx*wy, 0)
		}
	}
	if energy/float64(patch*patch) < 0.01 {
		return false
	}
	fft2(data, patch)
	pow := make([]float64, patch*(patch/2+1))
	var band []float64
	for v := range patch {
		for u := 0; u <= patch/2; u++ {
			c := data[v*patch+u]
			p := real(c)*real(c) + imag(c)*imag(c)
			pow[v*(patch/2+1)+u] = p
			if _, ok := inBand(u, v); ok {
				band = append(band, p)
			}
		}
	}
	slices.Sort(band)
	med := band[len(band)/2]
	if med <= 0 {
		return false
	}
	for i, p := range pow {
		avg[i] += p / med
	}
	return true
}

// fft2 transforms an n×n row-major array in place (n a power of two).
func fft2(a []complex128, n int) {
	row := make([]complex128, n)
	for y := range n {
		fft(a[y*n : (y+1)*n])
	}
	for x := range n {
		for y := range n {
			row[y] = a[y*n+x]
		}
		fft(row)
		for y := range n {
			a[y*n+x] = row[y]
		}
	}
}

// fft is an iterative radix-2 Cooley–Tukey transform in place.
func fft(a []complex128) {
	n := len(a)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			a[i], a[j] = a[j], a[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		w := cmplx.Exp(complex(0, -2*math.Pi/float64(size)))
		for start := 0; start < n; start += size {
			wk := complex(1, 0)
			for k := range size / 2 {
				u, v := a[start+k], a[start+k+size/2]*wk
				a[start+k], a[start+k+size/2] = u+v, u-v
				wk *= w
			}
		}
	}
}
