package face

import (
	"cmp"
	"image"
	"math"
	"runtime"
	"slices"
	"sync"

	pigo "github.com/esimov/pigo/core"
)

// params are the tunables of detectGray, a struct so that the calibration
// test can sweep them.
type params struct {
	minFacePx   int
	minFaceFrac float64
	shift       float64
	scale       float64
	iou         float64
	overlap     float64
	minScore    float64
}

var defaultParams = params{
	minFacePx:   minFacePx,
	minFaceFrac: minFaceFrac,
	shift:       shiftFactor,
	scale:       scaleFactor,
	iou:         clusterIoU,
	overlap:     overlapIoU,
	minScore:    MinScore,
}

// detectGray finds faces in the working copy g, which is f times smaller
// than the image with bounds b, and returns them in b's coordinates.
func detectGray(g *image.Gray, f float64, b image.Rectangle, p params) []Box {
	cols, rows := g.Rect.Dx(), g.Rect.Dy()
	minSize := max(p.minFacePx, int(p.minFaceFrac*float64(min(cols, rows))))
	maxSize := min(cols, rows)
	if maxSize < minSize {
		return nil
	}
	c := cascade()
	img := pigo.ImageParams{Pixels: g.Pix, Rows: rows, Cols: cols, Dim: g.Stride}
	clusters := c.ClusterDetections(scan(c, img, windowSizes(minSize, maxSize, p.scale), p.shift), p.iou)

	var boxes []Box
	for _, d := range clusters {
		if float64(d.Q) < p.minScore {
			continue
		}
		half := float64(d.Scale) / 2
		x0 := clamp(int(math.Round((float64(d.Col)-half)*f)), 0, b.Dx())
		y0 := clamp(int(math.Round((float64(d.Row)-half)*f)), 0, b.Dy())
		x1 := clamp(int(math.Round((float64(d.Col)+half)*f)), 0, b.Dx())
		y1 := clamp(int(math.Round((float64(d.Row)+half)*f)), 0, b.Dy())
		boxes = append(boxes, Box{X: b.Min.X + x0, Y: b.Min.Y + y0, W: x1 - x0, H: y1 - y0, Score: float64(d.Q)})
	}
	slices.SortFunc(boxes, func(a, b Box) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.Y, b.Y), cmp.Compare(a.X, b.X), cmp.Compare(a.W, b.W))
	})
	return suppress(boxes, p.overlap)
}

// suppress keeps each box (sorted best first) unless it overlaps a kept
// one by more than iou, or lies mostly (over half its area) inside one:
// faces do not nest, but a nose-and-mouth window inside a face can pass
// the cascade on its own.
func suppress(boxes []Box, iou float64) []Box {
	kept := boxes[:0]
	for _, b := range boxes {
		if !slices.ContainsFunc(kept, func(k Box) bool { return IoU(k, b) > iou || inside(b, k) > 0.5 }) {
			kept = append(kept, b)
		}
	}
	return kept
}

// intersection is the area two boxes share.
func intersection(a, b Box) int {
	w := min(a.X+a.W, b.X+b.W) - max(a.X, b.X)
	h := min(a.Y+a.H, b.Y+b.H) - max(a.Y, b.Y)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// inside is the share of a's area that lies in b.
func inside(a, b Box) float64 {
	if a.W*a.H == 0 {
		return 0
	}
	return float64(intersection(a, b)) / float64(a.W*a.H)
}

// IoU is the intersection over union of two boxes' areas, in [0,1].
func IoU(a, b Box) float64 {
	inter := intersection(a, b)
	if inter == 0 {
		return 0
	}
	return float64(inter) / float64(a.W*a.H+b.W*b.H-inter)
}

// windowSizes lists the window sides pigo's RunCascade would visit from
// minSize to maxSize, so that each can be run on its own.
func windowSizes(minSize, maxSize int, factor float64) []int {
	var s []int
	for size := minSize; size <= maxSize; {
		s = append(s, size)
		// pigo's own step: at least 2 px, so int rounding cannot stall.
		size = int(float64(size) + math.Max(2, float64(size)*factor-float64(size)))
	}
	return s
}

// scan runs the cascade at every window size, spread over the available
// CPUs, and returns the raw detections in window-size order whatever the
// scheduling, so the result is the same on every run.
func scan(c *pigo.Pigo, img pigo.ImageParams, sizes []int, shift float64) []pigo.Detection {
	perSize := make([][]pigo.Detection, len(sizes))
	workers := min(runtime.GOMAXPROCS(0), len(sizes))
	var wg sync.WaitGroup
	// Small windows cost the most (positions grow as 1/size²), so sizes
	// are dealt round-robin to balance the workers.
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(sizes); i += workers {
				perSize[i] = c.RunCascade(pigo.CascadeParams{
					MinSize:     sizes[i],
					MaxSize:     sizes[i],
					ShiftFactor: shift,
					ScaleFactor: 1, // one size per call
					ImageParams: img,
				}, 0)
			}
		})
	}
	wg.Wait()
	return slices.Concat(perSize...)
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }
