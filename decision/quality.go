package decision

import (
	"fmt"
	"image"
	"math"
	"slices"
	"strings"

	"kycd/face"
)

// Image-quality thresholds. Each was set on the shared real images (the
// table TestRealImageTable logs): the value sits between what the bad
// examples measured and what the good ones did.
const (
	// QualitySide is the longer side of the grayscale copy every measure
	// looks at, so that a phone photo and a scan are judged at the same
	// scale (smaller images are measured as they are, never enlarged).
	QualitySide = 640

	// MinSideFail and MinSideWarn bound the shorter side, in pixels. At
	// 200 px a passport page's MRZ has under 6 px per character and cannot
	// be read: the 184-185 px lowq_*_tiny specimens fail, as do the 159 and
	// 179 px card backs, while every legible specimen has ≥ 220 px (the
	// upload path refuses only < 120 px, so that a legible strip, such as
	// a card's two sides side by side, is still read). Below 400 px (~13 px per MRZ
	// character on a page 570 px wide) small print is unreliable: a warn,
	// which most web-sized specimen scans here get.
	MinSideFail = 200
	MinSideWarn = 400

	// BlurFail* and BlurWarn* bound the sharpness: the variance of the
	// Laplacian in the sharpest tenth of an 8×8 grid of tiles, over the
	// estimated document for a document (so it is judged on its print, not
	// on the table around it) and over the frame for a selfie (so smooth
	// skin and a plain wall do not count against it). Print is sharper
	// than faces, hence two pairs. Documents: the blurred ones measured
	// 24 (Gaussian) and 330 (motion), sharp scans and photos ≥ 574.
	// Selfies: the blurred ones 10 and 29, sharp photos ≥ 401 (a soft
	// studio portrait).
	BlurFailDocument = 450
	BlurWarnDocument = 520
	BlurFailSelfie   = 300
	BlurWarnSelfie   = 360

	// GlareWarn and GlareFail bound the share of the image inside glare:
	// blobs of near-white (≥ glareLevel), mostly clipped pixels that fade
	// out softly over part of their rim (a reflection or a blown-out
	// highlight) rather than end at printed edges all round (white paper,
	// a scan's pure white), and that do not touch the frame (a white
	// background or margin does). The synthetic glare measured 0.117; no
	// other image here had any: softly rimmed white areas had under 1%
	// clipped pixels, and clipped ones fell by ≥ 19 at the softest quarter
	// of their rim, but for one 0.3% highlight in a photo (far under
	// GlareWarn). lowq_td3_nld_washed_out is not flagged: its veil is grey,
	// not white, and its ink-to-paper contrast (Data "contrast": the
	// median luma less the 1st percentile) is 92 where a sound but soft
	// scan (doc_td3_deu) has 104, too close for a rule on this data.
	GlareWarn = 0.03
	GlareFail = 0.06

	// DarkFail and DarkWarn bound the luma of the brightest 1% of pixels:
	// under them nothing in the picture is lit. The synthetic low-light
	// selfie measured 102; every other image ≥ 181, whatever its share of
	// dark suit or night sky.
	DarkFail = 128
	DarkWarn = 150

	// FillWarn is the least share of the frame the document should cover,
	// estimated from the box holding 96% of the strong edges. Specimen
	// scans measured 0.71-0.97 and phone photos of documents 0.76-0.94;
	// below a third, the document is small in the frame. It only warns:
	// busy backgrounds make the estimate generous, and a small document in
	// a large photo can still be legible.
	FillWarn = 0.35
)

// Tuning of the measures themselves.
const (
	blurGrid      = 8    // tiles per side
	blurQuantile  = 0.9  // the sharpest tenth of tiles
	glareLevel    = 245  // near-white luma
	glareClipped  = 254  // luma of a clipped (saturated) pixel
	glareSoftEdge = 10   // luma fall within 3 px out of a glare's rim, at most
	glareMinBlob  = 3e-3 // smallest glare area counted, as a share of the image
	darkLevel     = 64   // luma counted as dark in darkRatio
	fillSide      = 320  // working size of the fill estimate
	fillEdge      = 40   // central-difference gradient that counts as an edge
	fillTrim      = 0.02 // share of edge pixels ignored on each side
)

// qualityMeasures are ImageQuality's measurements of one image.
type qualityMeasures struct {
	minSide    int
	blur       float64 // Laplacian variance, sharpest tiles
	glare      float64 // share of the image in glare
	darkRatio  float64 // share of pixels darker than darkLevel
	brightLuma int     // 99th percentile of luma
	contrast   int     // median luma − 1st percentile
	fill       float64 // estimated share of the frame the content covers
}

// measureQuality measures img on its QualitySide grayscale copy; doc
// says whether it is a document (whose sharpness is measured over the
// estimated document only).
func measureQuality(img image.Image, doc bool) qualityMeasures {
	b := img.Bounds()
	g, _ := face.Gray(img, QualitySide)
	p1, p50, p99, dark := lumaStats(g)
	small, f := face.Gray(g, fillSide)
	box := contentBox(small)
	// A document's sharpness is judged on the document, not on the table
	// around it: with a small document, the sharpest tenth of the whole
	// frame would be all table.
	sharpIn := g.Rect
	if r := scaleRect(box, f).Intersect(g.Rect); doc && r.Dx() >= 4*blurGrid && r.Dy() >= 4*blurGrid {
		sharpIn = r
	}
	return qualityMeasures{
		minSide:    min(b.Dx(), b.Dy()),
		blur:       sharpness(g, sharpIn),
		glare:      glareRatio(g),
		darkRatio:  dark,
		brightLuma: p99,
		contrast:   p50 - p1,
		fill:       float64(box.Dx()*box.Dy()) / float64(max(1, small.Rect.Dx()*small.Rect.Dy())),
	}
}

// scaleRect scales r by f, outwards.
func scaleRect(r image.Rectangle, f float64) image.Rectangle {
	return image.Rect(int(float64(r.Min.X)*f), int(float64(r.Min.Y)*f), int(math.Ceil(float64(r.Max.X)*f)), int(math.Ceil(float64(r.Max.Y)*f)))
}

// ImageQuality checks that one capture (kind "document" or "selfie") is
// usable: large enough, sharp, free of glare, lit, and, for a document,
// filling the frame. The measurements are in Data; Status is fail when
// one is past its fail threshold, warn when one is past its warn
// threshold. Score is the worst of the per-measure scores: 1 when
// nothing is wrong, [0.5,1) for a warn, below 0.5 for a fail.
func ImageQuality(captureID, kind string, img image.Image) Signal {
	if kind != "document" && kind != "selfie" {
		s := notRun(SigImageQuality, fmt.Sprintf("Image quality is checked on documents and selfies, not on %q.", kind))
		s.CaptureID = captureID
		return s
	}
	s := newSignal(SigImageQuality)
	s.CaptureID = captureID
	if img == nil || img.Bounds().Empty() {
		s.add(Fail, 0, CodeImageTooSmall, "The image is empty.")
		s.Detail = "The image is empty."
		return s
	}
	m := measureQuality(img, kind == "document")
	s.Data["minSide"] = m.minSide
	s.Data["blurVariance"] = math.Round(m.blur*10) / 10
	s.Data["glareRatio"] = round3(m.glare)
	s.Data["darkRatio"] = round3(m.darkRatio)
	s.Data["brightLuma"] = m.brightLuma
	doc := kind == "document"
	if doc {
		s.Data["contrast"] = m.contrast
		s.Data["fillRatio"] = round3(m.fill)
	}

	var problems []string
	if st, sc := higherBetter(float64(m.minSide), MinSideFail, MinSideWarn); st != Pass {
		s.add(st, sc, CodeImageTooSmall, fmt.Sprintf("The image is %d px on its shorter side; %d px is the least usable and %d px or more is recommended.", m.minSide, MinSideFail, MinSideWarn))
		problems = append(problems, "too small")
	}
	blurFail, blurWarn := float64(BlurFailSelfie), float64(BlurWarnSelfie)
	if doc {
		blurFail, blurWarn = BlurFailDocument, BlurWarnDocument
	}
	if st, sc := higherBetter(m.blur, blurFail, blurWarn); st != Pass {
		s.add(st, sc, CodeImageBlurry, fmt.Sprintf("The image looks blurred: sharpness %.0f, where %.0f or more is expected.", m.blur, blurWarn))
		problems = append(problems, "blurred")
	}
	if st, sc := lowerBetter(m.glare, GlareFail, GlareWarn); st != Pass {
		s.add(st, sc, CodeImageGlare, fmt.Sprintf("Glare or a white-out covers about %.0f%% of the image.", 100*m.glare))
		problems = append(problems, "glare")
	}
	if st, sc := higherBetter(float64(m.brightLuma), DarkFail, DarkWarn); st != Pass {
		s.add(st, sc, CodeImageDark, "The image is too dark: even its brightest parts are dim.")
		problems = append(problems, "too dark")
	}
	if doc && m.fill < FillWarn {
		s.add(Warn, 0.5+0.5*m.fill/FillWarn, CodeDocumentNotFilling, fmt.Sprintf("The document seems to cover only about %.0f%% of the frame (an estimate from where its printed edges are); it should fill most of it.", 100*m.fill))
		problems = append(problems, "document small in the frame")
	}

	switch {
	case len(problems) > 0:
		s.Detail = "Image quality problems: " + strings.Join(problems, ", ") + "."
	case doc:
		s.Detail = fmt.Sprintf("Sharp, lit and %d px on the shorter side; the document seems to fill about %.0f%% of the frame (an estimate from edge positions).", m.minSide, 100*m.fill)
	default:
		s.Detail = fmt.Sprintf("Sharp, lit and %d px on the shorter side.", m.minSide)
	}
	return s
}

// higherBetter grades v against its fail and warn thresholds (fail < warn)
// with a score of 1 at warn or above, [0.5,1) between, [0,0.5) below fail.
func higherBetter(v, fail, warn float64) (Status, float64) {
	switch {
	case v >= warn:
		return Pass, 1
	case v >= fail:
		return Warn, 0.5 + 0.5*(v-fail)/(warn-fail)
	default:
		return Fail, 0.5 * max(0, v) / fail
	}
}

// lowerBetter is higherBetter for measures where less is better (warn <
// fail); the score reaches 0 at twice the fail threshold.
func lowerBetter(v, fail, warn float64) (Status, float64) {
	switch {
	case v < warn:
		return Pass, 1
	case v < fail:
		return Warn, 1 - 0.5*(v-warn)/(fail-warn)
	default:
		return Fail, 0.5 * max(0, 1-(v-fail)/fail)
	}
}

// lumaStats returns the 1st, 50th and 99th percentiles of g's luma and
// the share of pixels darker than darkLevel.
func lumaStats(g *image.Gray) (p1, p50, p99 int, dark float64) {
	var hist [256]int
	w, h := g.Rect.Dx(), g.Rect.Dy()
	for y := range h {
		for _, v := range g.Pix[y*g.Stride : y*g.Stride+w] {
			hist[v]++
		}
	}
	n := w * h
	at := func(q float64) int {
		target, c := int(q*float64(n)), 0
		for v, k := range hist {
			if c += k; c > target {
				return v
			}
		}
		return 255
	}
	d := 0
	for _, k := range hist[:darkLevel] {
		d += k
	}
	return at(0.01), at(0.5), at(0.99), float64(d) / float64(n)
}

// sharpness is the variance of the 4-neighbour Laplacian in each tile of
// a blurGrid×blurGrid grid over r, at the blurQuantile of the tiles.
// Sharp content anywhere in r keeps it high; a blurred image has no sharp
// tile.
func sharpness(g *image.Gray, r image.Rectangle) float64 {
	r = r.Intersect(g.Rect.Inset(1)) // the Laplacian needs all 4 neighbours
	w, h := r.Dx(), r.Dy()
	if w < blurGrid || h < blurGrid {
		return 0
	}
	var vars []float64
	for ty := range blurGrid {
		y0, y1 := r.Min.Y+ty*h/blurGrid, r.Min.Y+(ty+1)*h/blurGrid
		for tx := range blurGrid {
			x0, x1 := r.Min.X+tx*w/blurGrid, r.Min.X+(tx+1)*w/blurGrid
			var sum, sum2 float64
			n := 0
			for y := y0; y < y1; y++ {
				row := g.Pix[y*g.Stride:]
				up, down := g.Pix[(y-1)*g.Stride:], g.Pix[(y+1)*g.Stride:]
				for x := x0; x < x1; x++ {
					l := float64(int(row[x-1]) + int(row[x+1]) + int(up[x]) + int(down[x]) - 4*int(row[x]))
					sum += l
					sum2 += l * l
					n++
				}
			}
			if n > 0 {
				mean := sum / float64(n)
				vars = append(vars, sum2/float64(n)-mean*mean)
			}
		}
	}
	slices.Sort(vars)
	return vars[int(blurQuantile*float64(len(vars)-1))]
}

// glareRatio is the share of g in near-white blobs that lie inside the
// frame and fade out softly (see GlareFail).
func glareRatio(g *image.Gray) float64 {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w == 0 || h == 0 {
		return 0
	}
	bright := func(p int) bool { return g.Pix[(p/w)*g.Stride+p%w] >= glareLevel }
	// label[p] is 1 + the index of p's blob, 0 for pixels not bright.
	label := make([]int32, w*h)
	var stack []int
	glare := 0
	for start := range w * h {
		if label[start] != 0 || !bright(start) {
			continue
		}
		id := int32(start + 1) // unique per blob
		label[start] = id
		stack = append(stack[:0], start)
		size, clipped, touches := 0, 0, false
		box := image.Rect(w, h, 0, 0)
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			size++
			x, y := p%w, p/w
			if g.Pix[y*g.Stride+x] >= glareClipped {
				clipped++
			}
			touches = touches || x == 0 || y == 0 || x == w-1 || y == h-1
			box = box.Union(image.Rect(x, y, x+1, y+1))
			for _, q := range neighbours(p, w, h) {
				if q >= 0 && label[q] == 0 && bright(q) {
					label[q] = id
					stack = append(stack, q)
				}
			}
		}
		// A reflection saturates the camera; white paper, even in a
		// scan, mostly stays just under it.
		if !touches && 2*clipped >= size && float64(size) >= glareMinBlob*float64(w*h) && softOutline(g, label, id, box) {
			glare += size
		}
	}
	return float64(glare) / float64(w*h)
}

// softOutline says whether the blob labelled id, inside box, fades out:
// at a quarter or more of its outline, the luma falls by less than
// glareSoftEdge to the darkest pixel within 3 px outside. Print edges and
// printed lines fall by far more nearly everywhere; a reflection fades
// over paper, and is hard only where print crosses its rim. Only the
// outer outline counts: print under a reflection leaves holes in the blob
// with hard edges.
func softOutline(g *image.Gray, label []int32, id int32, box image.Rectangle) bool {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	box = box.Inset(-1).Intersect(image.Rect(0, 0, w, h))
	// Mark what lies outside the blob by flooding from the box's border
	// through pixels not in it; unreached pixels not in the blob are holes.
	bw := box.Dx()
	out := make([]bool, bw*box.Dy()) // indexed from box.Min
	outside := func(p int) bool { return out[(p/w-box.Min.Y)*bw+p%w-box.Min.X] }
	var stack []int
	mark := func(p int) {
		out[(p/w-box.Min.Y)*bw+p%w-box.Min.X] = true
		stack = append(stack, p)
	}
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			p := y*w + x
			if (x == box.Min.X || y == box.Min.Y || x == box.Max.X-1 || y == box.Max.Y-1) && label[p] != id && !outside(p) {
				mark(p)
			}
		}
	}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, q := range neighbours(p, w, h) {
			if q >= 0 && image.Pt(q%w, q/w).In(box) && label[q] != id && !outside(q) {
				mark(q)
			}
		}
	}
	pix := func(x, y int) int { return int(g.Pix[y*g.Stride+x]) }
	var drops []int
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if label[y*w+x] != id {
				continue
			}
			drop, edge := 0, false
			for i, q := range neighbours(y*w+x, w, h) {
				if q < 0 || !image.Pt(q%w, q/w).In(box) || !outside(q) {
					continue
				}
				// The darkest of the 3 px outward: a thin printed line
				// is an edge even with white paper beyond it.
				d := [4]image.Point{{-1, 0}, {1, 0}, {0, -1}, {0, 1}}[i]
				for k := 1; k <= 3; k++ {
					fx, fy := min(max(x+k*d.X, 0), w-1), min(max(y+k*d.Y, 0), h-1)
					drop = max(drop, pix(x, y)-pix(fx, fy))
				}
				edge = true
			}
			if edge {
				drops = append(drops, drop)
			}
		}
	}
	if len(drops) == 0 {
		return false
	}
	slices.Sort(drops)
	return drops[len(drops)/4] < glareSoftEdge
}

// neighbours returns the 4-neighbours of pixel p of a w×h image (left,
// right, up, down), -1 for those off the image.
func neighbours(p, w, h int) [4]int {
	x, y := p%w, p/w
	n := [4]int{-1, -1, -1, -1}
	if x > 0 {
		n[0] = p - 1
	}
	if x < w-1 {
		n[1] = p + 1
	}
	if y > 0 {
		n[2] = p - w
	}
	if y < h-1 {
		n[3] = p + w
	}
	return n
}

// contentBox estimates where the photographed content lies in g: the box
// holding the middle 1−2·fillTrim of the strong-edge pixels along each
// axis. Documents are dense with printed edges; a plain table or wall
// around them has few. It is empty when g has no strong edge.
func contentBox(g *image.Gray) image.Rectangle {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	if w < 3 || h < 3 {
		return image.Rectangle{}
	}
	cols, rows := make([]int, w), make([]int, h)
	n := 0
	for y := 1; y < h-1; y++ {
		row := g.Pix[y*g.Stride:]
		up, down := g.Pix[(y-1)*g.Stride:], g.Pix[(y+1)*g.Stride:]
		for x := 1; x < w-1; x++ {
			gx, gy := int(row[x+1])-int(row[x-1]), int(down[x])-int(up[x])
			if gx*gx+gy*gy > fillEdge*fillEdge {
				cols[x]++
				rows[y]++
				n++
			}
		}
	}
	if n == 0 {
		return image.Rectangle{}
	}
	x0, x1 := trimmedSpan(cols, n)
	y0, y1 := trimmedSpan(rows, n)
	return image.Rect(x0, y0, x1+1, y1+1)
}

// trimmedSpan returns the first and last index of a histogram of n counts
// once fillTrim of them is cut from each end.
func trimmedSpan(hist []int, n int) (lo, hi int) {
	cut := int(fillTrim * float64(n-1))
	c := 0
	for lo = 0; lo < len(hist); lo++ {
		if c += hist[lo]; c > cut {
			break
		}
	}
	c = 0
	for hi = len(hist) - 1; hi > 0; hi-- {
		if c += hist[hi]; c > cut {
			break
		}
	}
	return lo, max(lo, hi)
}
