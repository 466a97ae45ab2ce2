package ocr

import "slices"

// A translucent layer whose edge runs along a line of the zone (a stock
// photo's watermark band, a strip of tape, a sharp-edged reflection)
// cuts its characters through their height: above the edge the ink is
// the print's, below it the ink is lifted toward the layer's colour. Each
// cell is normalised to its neighbourhood's one ink and one paper level,
// so such a glyph reaches the classifier with part of its strokes faint,
// and the rest of it can look like another glyph with confidence (MILICA
// read as MTLTCA, an expiry 110808 as 310608 with every check digit
// holding). The classifier never saw two inks in one glyph: a zone with
// such cells is not taken from this look; only a look that undid the
// layer (see readFlattened) may read it.
//
// Every letter and digit of OCR-B reaches the top and the bottom of the
// character height, so each third of the height of a character cell has
// ink; a filler (<) has ink in the middle third only, and is left out.
const (
	// cutMinDepth: the least ink depth (paper minus ink, gray levels) of
	// a neighbourhood for the test to mean anything.
	cutMinDepth = 40
	// cutLow, cutHigh and cutFull: an outer third (top or bottom) of the
	// neighbourhood's characters whose ink depth is between cutLow and
	// cutHigh of the deepest third has ink, but lifted, while the other
	// outer third has the print's (cutFull or more): a layer's edge runs
	// between them. Under cutLow a third has no ink at all.
	cutLow  = 0.12
	cutHigh = 0.6
	cutFull = 0.8
	// cutSpan: the character cells either side that make a cell's
	// neighbourhood.
	cutSpan = 3
)

// thirdsDepth is the ink depth (paper minus ink) of the top, middle and
// bottom third of the character height in a raw cell.
func thirdsDepth(raw []float32) [3]float32 {
	// The glyph spans the cell's middle 1/cellHeightRatio.
	glyph := float64(CellH) / cellHeightRatio
	m := (CellH - int(glyph)) / 2
	g := (CellH - 2*m) / 3
	var out [3]float32
	var hist [256]int
	for p := range 3 {
		hist = [256]int{}
		cnt := 0
		for v := m + p*g; v < m+(p+1)*g; v++ {
			for _, s := range raw[v*CellW : (v+1)*CellW] {
				hist[clampByte(s)]++
				cnt++
			}
		}
		out[p] = percentile(&hist, cnt, 0.9) - percentile(&hist, cnt, 0.02)
	}
	return out
}

// cutCells tells, for the cells of a line read as text, whether a
// layer's edge runs through the characters of its neighbourhood; depth
// is thirdsDepth of each cell.
func cutCells(text string, depth [][3]float32) []bool {
	out := make([]bool, len(text))
	if len(depth) != len(text) {
		return out
	}
	var chars []int // the cells holding a letter or a digit
	for k := range len(text) {
		if text[k] != '<' {
			chars = append(chars, k)
		}
	}
	var col [3][]float32
	for n, k := range chars {
		for p := range 3 {
			col[p] = col[p][:0]
		}
		for _, j := range chars[max(0, n-cutSpan):min(len(chars), n+cutSpan+1)] {
			for p := range 3 {
				col[p] = append(col[p], depth[j][p])
			}
		}
		var d [3]float32
		for p := range 3 {
			slices.Sort(col[p])
			d[p] = col[p][len(col[p])/2]
		}
		full := max(d[0], d[1], d[2])
		if full < cutMinDepth {
			continue
		}
		top, bottom := d[0]/full, d[2]/full
		lifted := func(f float32) bool { return f >= cutLow && f <= cutHigh }
		out[k] = (top >= cutFull && lifted(bottom)) || (bottom >= cutFull && lifted(top))
	}
	return out
}
