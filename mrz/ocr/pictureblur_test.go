package ocr

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// pictureBlurRef is pictureBlur as first written (the steps of every
// tile measured, flat or not): the reference the faster one must equal.
func pictureBlurRef(p *plane) float64 {
	const tile = 16
	var sig []float64
	for ty := 0; ty+tile <= p.h; ty += tile {
		for tx := 0; tx+tile <= p.w; tx += tile {
			lo, hi := float32(255), float32(0)
			steep := float32(0)
			for y := ty; y < ty+tile; y++ {
				row := p.pix[y*p.w : (y+1)*p.w]
				for x := tx; x < tx+tile; x++ {
					v := row[x]
					lo, hi = min(lo, v), max(hi, v)
					if x > 0 && x < p.w-1 {
						steep = max(steep, abs32(row[x+1]-row[x-1])/2)
					}
					if y > 0 && y < p.h-1 {
						steep = max(steep, abs32(p.pix[(y+1)*p.w+x]-p.pix[(y-1)*p.w+x])/2)
					}
				}
			}
			if hi-lo < 48 || steep == 0 {
				continue
			}
			sig = append(sig, float64(hi-lo)/(float64(steep)*math.Sqrt(2*math.Pi)))
		}
	}
	if len(sig) == 0 {
		return 0
	}
	sort.Float64s(sig)
	return sig[len(sig)/5]
}

// TestPictureBlurSkipsFlatTiles: pictureBlur, which measures the steps of
// contrasty tiles only, gives what measuring every tile gave, on pictures
// of flat paper, noise, soft and hard edges and text-like bars.
func TestPictureBlurSkipsFlatTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := range 12 {
		w, h := 40+rng.IntN(200), 30+rng.IntN(150)
		p := newPlane(w, h)
		soft := float64(k % 4)
		for y := range h {
			for x := range w {
				v := 200 + 6*rng.NormFloat64()
				if (x/7+y/11+k)%3 == 0 {
					// A bar, its edges softened by soft pixels.
					d := math.Min(float64(x%7), float64(6-x%7))
					v -= 150 * math.Min(1, (d+0.5)/(soft+0.5))
				}
				p.pix[y*w+x] = float32(min(max(v, 0), 255))
			}
		}
		if got, want := pictureBlur(p), pictureBlurRef(p); got != want {
			t.Errorf("picture %d (%dx%d): %v, want %v", k, w, h, got, want)
		}
	}
	if got := pictureBlur(newPlane(64, 64)); got != 0 {
		t.Errorf("flat picture: %v", got)
	}
}
