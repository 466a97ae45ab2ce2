// Package ocr reads the machine-readable zone (MRZ) of a document photo:
// it finds the zone, lays its character cells over the image (any
// rotation, tilts, perspective), classifies each cell with a small neural
// network trained on synthetic OCR-B lines (tools/mrztrain), and decodes
// the zone with what ICAO 9303 guarantees (the class of every position,
// the check digits). It is pure Go and needs no font at run time.
//
// It prefers no reading to a wrong one: a character that no check digit
// covers is taken only when the classifier is sure of it, and a character
// a check digit covers only when the check digits single it out among the
// readings the classifier finds plausible. Otherwise Read says why it
// could not read, so that the applicant can retake the photo.
package ocr

import (
	"fmt"
	"image"
	"math"
	"sort"
	"time"

	"kycd/mrz"
)

// Status is the outcome of Read.
type Status string

const (
	// Read: every character was read with confidence and every check
	// digit holds. Result.Document is set and valid.
	StatusRead Status = "read"
	// Invalid: every character was read with confidence, but some check
	// digit does not hold as printed, or the zone breaks the MRZ grammar
	// (a forged, damaged or non-ICAO zone). Result.Document is set and not
	// valid, or nil when the text does not parse; Failing says what fails.
	StatusInvalid Status = "invalid"
	// Unreadable: a zone was found but not read with confidence; Hint
	// says what to change.
	StatusUnreadable Status = "unreadable"
	// NotFound: no machine-readable zone in the image.
	StatusNotFound Status = "not_found"
)

// Hint is what an applicant can do about an unreadable zone.
type Hint string

const (
	HintNone     Hint = ""
	HintNoZone   Hint = "no_zone"   // no MRZ seen: show the side with the 2 or 3 lines of <<<
	HintBlurry   Hint = "blurry"    // the lines are blurred: hold still, focus
	HintGlare    Hint = "glare"     // light reflects on the lines: tilt away from the light
	HintCutOff   Hint = "cut_off"   // the lines run off the picture: move back
	HintTooSmall Hint = "too_small" // the lines are too small: move closer
	HintUnclear  Hint = "unclear"   // some characters are unclear: retake in better light
	HintDark     Hint = "too_dark"  // the lines are dim, little ink against the paper: more light
	HintTilted   Hint = "tilted"    // the page is seen at an angle or bent: hold it flat, face on
)

// Result is what Read found.
type Result struct {
	Status Status
	Hint   Hint
	// Format and Lines: the zone as read (also when unreadable: the best
	// guess, for diagnostics only; never act on it).
	Format mrz.Format
	Lines  []string
	// Confidence is the classifier's probability of each character read.
	Confidence [][]float64
	// MinConfidence is the least of Confidence.
	MinConfidence float64
	// Unsure are the characters (line, column, from 0) that kept the
	// zone from being read.
	Unsure [][2]int
	// Failing are the check digits that do not hold (StatusInvalid).
	Failing []string
	// Document is the parsed zone (StatusRead and StatusInvalid).
	Document *mrz.Document
	// Rotation is the angle of the lines in the image, in degrees
	// clockwise (0 upright, 90 when the top of the page is on the right).
	Rotation float64
	// Box is the zone's bounding box in the image's pixels.
	Box image.Rectangle
	// PitchPx is the distance between characters in the image's pixels.
	PitchPx float64
	// Contrast is the median, over the zone's cells, of paper minus ink
	// in gray levels (0-255): low in a dim or washed-out photo.
	Contrast float64
	// Perspective is how much the character pitch changes across the
	// zone: the largest pitch at a line's end over the smallest, minus 1
	// (0 for a page seen face on and flat).
	Perspective float64
	// PrintLines counts the lines of print (8 glyphs or more side by
	// side) seen, upright or turned: a document shows many, a face few.
	PrintLines int
	Elapsed    time.Duration
}

// maxCandidates bounds the zone candidates of one view that the
// classifier ranks (each costs a pass over a third of its cells, both
// ways round), and maxLongChains the long lines of print a view may have
// for a pair of them at its edge to count as a zone cut off: more is a
// pattern or a page of text.
const (
	maxCandidates = 16
	maxLongChains = 24
)

// longChains counts the chains long enough to be a zone's line.
func longChains(cs []*chain) int {
	n := 0
	for _, c := range cs {
		if len(c.blobs) >= 12 {
			n++
		}
	}
	return n
}

// minZoneScore is the least mean log-probability of the likeliest symbol
// per cell (about 0.4 on average) for a candidate to count as a zone.
const minZoneScore = -0.9

// maxSide bounds the image the reader looks at: an MRZ character of a
// passport held across the frame is still 25 pixels wide at this size.
const maxSide = 2000

// Read finds and reads the MRZ in img. ref resolves two-digit years (see
// mrz.Parse). Only a broken embedded model is an error; an image without
// a readable zone is a Result with that status.
func Read(img image.Image, ref time.Time) (*Result, error) {
	net, err := model()
	if err != nil {
		return nil, err
	}
	return ReadWith(net, img, ref), nil
}

// ReadAtUsualScale is Read without the finer second look for a document
// small in a large frame: the portal's read at upload, which only guides
// the applicant ("move closer" is then the right advice) and must stay
// within the upload gate's memory. The finer look keeps about three times
// the working memory alive (90 MB against 33 MB for an 8 MP photo
// without a zone); the decision engine's read, which counts, makes it.
// Both look for the document's page when the zone is not read where it
// lies, and read it warped upright (see readPage): the page's read takes
// the place of the picture's in memory, at most maxPageSide on a side.
func ReadAtUsualScale(img image.Image, ref time.Time) (*Result, error) {
	net, err := model()
	if err != nil {
		return nil, err
	}
	return readWith(net, img, ref, 1), nil
}

// ReadWith is Read with other weights (the training program and the
// benchmark compare models with it).
func ReadWith(net *Net, img image.Image, ref time.Time) *Result {
	return readWith(net, img, ref, 2)
}

// readWith reads with up to looks detection scales (1: the usual one).
func readWith(net *Net, img image.Image, ref time.Time, looks int) *Result {
	start := time.Now()
	g, back := inkGray(img, maxSide)
	py := NewPyramid(g)
	res := readPyramid(net, py, ref, looks)
	if res.Status != StatusRead {
		res = readPage(net, py, ref, res)
	}
	if res.Status != StatusRead {
		res = readFlattened(net, py, ref, res)
	}
	// Back to the caller's pixels.
	if back != 1 {
		res.Box = image.Rect(int(float64(res.Box.Min.X)*back), int(float64(res.Box.Min.Y)*back),
			int(math.Ceil(float64(res.Box.Max.X)*back)), int(math.Ceil(float64(res.Box.Max.Y)*back)))
		res.PitchPx *= back
	}
	res.Elapsed = time.Since(start)
	return res
}

// scored is a candidate read one way.
type scored struct {
	lines  []Line
	probs  [][][]float32
	conts  [][]float32
	thirds [][][3]float32 // see cutCells
	score  float64
	blur   float64 // see cellBlur (full classification only)
}

func readPyramid(net *Net, py *Pyramid, ref time.Time, looks int) *Result {
	base := py.levels[0]
	var cands []scored
	printLines := 0
	cut, bars := false, false
	// The zone is looked for at the scale where an MRZ filling a good
	// part of the picture has characters of a dozen pixels; when nothing
	// is found there, at twice that scale, for a document small in a large
	// frame or seen at an angle (its far end smaller).
	for finer := range looks {
		c, pl, ct, bs, ok := zoneCands(net, py, finer)
		if !ok {
			break
		}
		cands = append(cands, c...)
		if finer == 0 {
			// Lines of print at the usual scale only: the finer look
			// would count the fine print of any picture (the selfie
			// check weighs this count).
			printLines = pl
		}
		cut, bars = cut || ct, bars || bs
		if bestScore(cands) >= minZoneScore {
			break
		}
	}
	notFound := func() *Result {
		return &Result{Status: StatusNotFound, Hint: noZoneHint(cut, bars, pictureBlur(base)), PrintLines: printLines}
	}
	if len(cands) == 0 {
		return notFound()
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	// Lines of marks whose cells do not look like MRZ characters (a
	// pattern, a barcode, print in another font) are no zone at all.
	if cands[0].score < minZoneScore {
		return notFound()
	}
	var best *Result
	for k := range min(len(cands), 4) {
		full := classify(net, py, cands[k].lines, 1)
		r := result(&full, base, ref)
		if r.Status == StatusUnreadable && len(r.Unsure) > 0 && len(r.Unsure) <= maxViewUnsure {
			avg := viewAverage(net, py, &full)
			if r2 := result(&avg, base, ref); rank(r2) > rank(r) {
				r = r2
			}
		}
		if r.Status == StatusUnreadable {
			r = secondLooks(net, py, &full, r, base, ref)
		}
		if best == nil || rank(r) > rank(best) {
			best = r
		}
		if r.Status == StatusRead {
			break
		}
	}
	if best.Status == StatusNotFound {
		return notFound()
	}
	best.PrintLines = printLines
	return best
}

// zoneCands finds the zone candidates on the detection plane of the given
// fineness, both ways round, and ranks them by a first look at every
// third cell. It also says how many lines of print it saw, and whether a
// zone seems cut off by the picture's edge or barred by stripes; ok is
// false when there is no plane that fine (see detectionPlane).
func zoneCands(net *Net, py *Pyramid, finer int) (cands []scored, printLines int, cut, bars, ok bool) {
	det, scale := detectionBase(py, finer)
	if det == nil {
		return nil, 0, false, false, false
	}
	type view struct {
		f         frame
		chains    []*chain
		cut, bars bool
	}
	// The ink is found once; the view the other way round is its
	// transpose (the threshold's square window is the same either way).
	all, turned := blobsBothWays(inkMask(det, 16), det.w, det.h)
	var views [2]view
	both(func(transposed bool) {
		bl, w, h := all, det.w, det.h
		if transposed {
			bl, w, h = turned, h, w
		}
		chains, bs := linesOf(bl)
		v := view{f: frame{scale: scale, transposed: transposed}, chains: chains}
		v.cut = longChains(chains) <= maxLongChains && cutStack(chains, w, h)
		v.bars = barStack(bs)
		if transposed {
			views[1] = v
		} else {
			views[0] = v
		}
	})
	for _, v := range views {
		printLines = max(printLines, len(v.chains))
		cut, bars = cut || v.cut, bars || v.bars
	}
	// Strict stacking first; when it finds nothing, lines that differ
	// more in height (blur swells some glyphs into their neighbours).
	for _, loose := range []bool{false, true} {
		var todo [][]Line
		for _, v := range views {
			cs := zoneCandidates(v.chains, v.f, loose)
			if len(cs) > maxCandidates {
				// A page of regular lines (a pattern, dense print), not a
				// photo of a document: the shared photos give at most 3
				// candidates a view. Rank only the first ones, so that
				// such a page costs a bounded time.
				cs = cs[:maxCandidates]
			}
			for _, c := range cs {
				for _, rev := range []bool{false, true} {
					lines := append([]Line(nil), c.lines...)
					if rev {
						for i, l := range c.lines {
							lines[i] = l.reversed()
						}
					}
					todo = append(todo, lines)
				}
			}
		}
		// A first look at every third cell ranks the candidates, a
		// candidate per core at a time.
		cands = make([]scored, len(todo))
		eachOf(len(todo), func(i int) {
			RefineZone(py, todo[i])
			orderLines(todo[i])
			cands[i] = classify(net, py, todo[i], 3)
		})
		if len(cands) > 0 {
			break
		}
	}
	return cands, printLines, cut, bars, true
}

func bestScore(cands []scored) float64 {
	best := math.Inf(-1)
	for _, c := range cands {
		best = max(best, c.score)
	}
	return best
}

func rank(r *Result) int {
	switch r.Status {
	case StatusRead:
		return 3
	case StatusInvalid:
		return 2
	case StatusUnreadable:
		return 1
	}
	return 0
}

// detectionPlane is the image at a size where MRZ characters are a dozen
// pixels or more (tiny images are enlarged, large ones halved), and
// transposed on request, so that vertical lines become horizontal. Each
// step of finer doubles that scale, up to maxFinerSide pixels on the long
// side and twice the picture's own size; beyond it there is no such plane
// (nil).
func detectionPlane(py *Pyramid, transposed bool, finer int) (*plane, frame) {
	p, scale := detectionBase(py, finer)
	if p == nil {
		return nil, frame{}
	}
	if transposed {
		t := newPlane(p.h, p.w)
		for y := range p.h {
			for x := range p.w {
				t.pix[x*t.w+y] = p.pix[y*p.w+x]
			}
		}
		p = t
	}
	return p, frame{scale: scale, transposed: transposed}
}

// detectionBase is detectionPlane the right way round, and its scale
// (detection pixels per level-0 pixel).
func detectionBase(py *Pyramid, finer int) (*plane, float64) {
	k, up := 0, 1
	long := max(py.levels[0].w, py.levels[0].h)
	for ; long > 1400 && k+1 < len(py.levels); k++ {
		long = max(py.levels[k+1].w, py.levels[k+1].h)
	}
	if long < 400 {
		up = 3
	} else if long < 700 {
		up = 2
	}
	for range finer {
		if k > 0 {
			k--
			long *= 2
		} else {
			up *= 2
		}
	}
	p, scale := py.levels[k], 1/float64(int(1)<<k)
	if finer > 0 && (max(p.w, p.h)*up > maxFinerSide || up > 2) {
		// Past the bound, or a picture so small (under 700 pixels) that
		// a document small in it has characters of 3 pixels or less: no
		// finer look.
		return nil, 0
	}
	if up > 1 {
		p, scale = enlarge(p, up), float64(up)
	}
	return p, scale
}

// maxFinerSide bounds the long side of a finer detection plane, and so
// the time a photo without a zone costs.
const maxFinerSide = 2100

// enlarge scales p up by an integer factor, bilinearly.
func enlarge(p *plane, k int) *plane {
	q := newPlane(p.w*k, p.h*k)
	inChunks(q.h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			sy := (float64(y)+0.5)/float64(k) - 0.5
			for x := range q.w {
				q.pix[y*q.w+x] = p.at((float64(x)+0.5)/float64(k)-0.5, sy)
			}
		}
	})
	return q
}

// noneScore stands for the likeliest symbol's probability in a cell the
// classifier sees no character in: below minZoneScore's level, so that a
// candidate made mostly of such cells is no zone.
const noneScore = 0.3

// classify runs the classifier over every stride-th cell of a candidate
// and scores it by how much the cells look like MRZ characters.
func classify(net *Net, py *Pyramid, lines []Line, stride int) scored {
	s := scored{lines: lines}
	var cells, seen [][]float32
	sampled := make([]CellSamples, len(lines))
	eachOf(len(lines), func(i int) { sampled[i] = SampleLine(py, &lines[i]) })
	for _, cs := range sampled {
		cells = append(cells, cs.Cells...)
		for k, c := range cs.Cells {
			if k%stride == 0 {
				seen = append(seen, c)
			}
		}
		s.probs = append(s.probs, make([][]float32, len(cs.Cells)))
		s.conts = append(s.conts, cs.Contrast)
		s.thirds = append(s.thirds, cs.Thirds)
	}
	probs := forwardAll(net, seen)
	var sum float64
	n := 0
	for i := range s.probs {
		for k := range s.probs[i] {
			if k%stride != 0 {
				continue
			}
			p := probs[n]
			s.probs[i][k] = p
			best := float32(0)
			for _, v := range p[:None] {
				best = max(best, v)
			}
			if p[None] > 0.5 {
				// No character here (glare, a stain): no evidence
				// either way, but a zone is mostly characters.
				best = noneScore
			}
			sum += math.Log(float64(max(best, 1e-6)))
			n++
		}
	}
	s.score = sum / float64(max(n, 1))
	if stride == 1 {
		s.blur = cellBlur(cells)
	}
	return s
}

// result decodes a candidate and explains a failure. A reading of a zone
// a translucent layer's edge cuts (see cutCells) is not taken from this
// look: it is unreadable, its cut cells unsure.
func result(s *scored, base *plane, ref time.Time) *Result {
	r := decodeResult(s, base, ref)
	if r.Status != StatusRead && r.Status != StatusInvalid {
		return r
	}
	cut := false
	for i := range min(len(s.thirds), len(r.Lines)) {
		for k, c := range cutCells(r.Lines[i], s.thirds[i]) {
			if c {
				cut = true
				r.Confidence[i][k] = 0
				r.Unsure = append(r.Unsure, [2]int{i, k})
			}
		}
	}
	if cut {
		r.Status, r.Hint, r.Document, r.Failing, r.MinConfidence = StatusUnreadable, HintUnclear, nil, nil, 0
	}
	return r
}

func decodeResult(s *scored, base *plane, ref time.Time) *Result {
	d := decode(s.probs)
	if d.notZone {
		return &Result{Status: StatusNotFound}
	}
	r := &Result{Format: d.format, Lines: d.lines, Confidence: d.conf, Failing: d.failing, MinConfidence: 1}
	for _, l := range d.conf {
		for _, c := range l {
			r.MinConfidence = min(r.MinConfidence, c)
		}
	}
	for _, p := range d.unsure {
		r.Unsure = append(r.Unsure, [2]int{p.line, p.col})
	}
	l0 := &s.lines[0]
	tx, ty := l0.tangent(float64(l0.N) / 2)
	r.Rotation = math.Mod(math.Atan2(ty, tx)*180/math.Pi+360, 360)
	r.PitchPx = l0.Pitch()
	r.Box = zoneBox(s.lines)
	r.Contrast = zoneContrast(s)
	r.Perspective = perspective(s.lines)
	switch {
	case d.sure && len(d.failing) == 0:
		r.Status = StatusRead
	case d.sure:
		r.Status = StatusInvalid
	case d.short:
		r.Status, r.Hint = StatusUnreadable, HintCutOff
	default:
		r.Status = StatusUnreadable
		r.Hint = hint(s, d, base, r.Contrast, r.Perspective)
	}
	if r.Status != StatusUnreadable {
		doc, err := mrz.ParseLines(d.lines, ref)
		if err != nil {
			// Every character is clear, yet the zone breaks the MRZ
			// grammar (a letter where a digit belongs, a date not in the
			// calendar). Only when the classifier has no doubt at all is
			// that the document's fault; otherwise it is ours.
			if r.MinConfidence < strictProb {
				r.Status, r.Hint = StatusUnreadable, HintUnclear
				return r
			}
			r.Status, r.Failing = StatusInvalid, []string{"format: " + err.Error()}
			return r
		}
		r.Document = doc
		if !doc.Valid && r.Status == StatusRead {
			r.Status = StatusInvalid
		}
		if doc.Valid && r.Status == StatusInvalid {
			// mrz.Parse knows issuer rules the decoder does not (the
			// Belgian document number): trust it.
			r.Status, r.Failing = StatusRead, nil
		}
	}
	return r
}

func zoneBox(lines []Line) image.Rectangle {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := range lines {
		l := &lines[i]
		for _, c := range []float64{-0.5, float64(l.N) - 0.5} {
			x, y := l.centre(c)
			h := l.height(c)
			minX, minY = min(minX, x-h), min(minY, y-h)
			maxX, maxY = max(maxX, x+h), max(maxY, y+h)
		}
	}
	return image.Rect(int(minX), int(minY), int(math.Ceil(maxX)), int(math.Ceil(maxY)))
}

// String summarises a result for logs and the benchmark.
func (r *Result) String() string {
	return fmt.Sprintf("%s %s %q min %.3f", r.Status, r.Hint, r.Lines, r.MinConfidence)
}

// orderLines puts lines in reading order: top to bottom as the reading
// direction of the first line defines "down" (for a page turned by 90°,
// the detection image is a mirror, whose top-to-bottom order is wrong).
func orderLines(lines []Line) {
	tx, ty := lines[0].tangent(0)
	dx, dy := -ty, tx
	sort.SliceStable(lines, func(i, j int) bool {
		xi, yi := lines[i].centre(float64(lines[i].N) / 2)
		xj, yj := lines[j].centre(float64(lines[j].N) / 2)
		return xi*dx+yi*dy < xj*dx+yj*dy
	})
}
