package pdf417

import (
	"errors"
	"math"
	"sort"
	"unicode/utf8"
)

// debugf, when set by a test, traces the reader's decisions.
var debugf func(format string, args ...any)

// debugCodewords, when set by a test, sees the voted codewords.
var debugCodewords func(cw []int, votes []map[int]int)

// ErrNotFound is returned when no symbol could be read from an image.
var ErrNotFound = errors.New("pdf417: no readable symbol found")

// Result is one decoded symbol.
type Result struct {
	Text      []byte // the message, as encoded (AAMVA payloads are ASCII)
	Rows      int
	Columns   int
	ECLevel   int // 0–8: 2^(level+1) correction codewords
	Erasures  int // codewords that could not be read at all
	Corrected int // codewords changed by error correction
	Macro     *Macro
	Rotation  int // quarter turns clockwise that brought the symbol upright
}

type lineRead struct {
	t     float64
	reads []cwRead
}

// metaVotes counts what the row indicators say about the symbol (§5.6):
// rows, columns and correction level, each carried by a different cluster.
type metaVotes struct {
	rowsUpper, rowsLower, cols, ec map[int]int
}

func argmax(m map[int]int) (int, int) {
	best, n := -1, 0
	for k, c := range m {
		if c > n || (c == n && k < best) {
			best, n = k, c
		}
	}
	return best, n
}

// readSymbol reads the symbol whose start pattern's outer edge is left
// and whose stop pattern's outer edge is right.
// dir is +1 when the symbol reads left to right in the bitmap, -1 when
// it is upside down (start pattern on the right).
func readSymbol(bm *bitmap, left line, rightEdge *line, dir float64) (*Result, error) {
	at := func(l line, t float64) point {
		y := l.yTop + t*(l.yBot-l.yTop)
		return point{l.a*y + l.b, y}
	}
	compact := rightEdge == nil
	var ends func(t float64, cols int) (point, point)
	var cols int
	height := left.yBot - left.yTop
	if !compact {
		right := *rightEdge
		mid0, mid1 := at(left, 0.5), at(right, 0.5)
		length := math.Hypot(mid1.x-mid0.x, mid1.y-mid0.y)
		cosPhi := math.Abs(mid1.x-mid0.x) / length
		m := (left.m + right.m) / 2 * cosPhi
		cols = min(max(int(math.Round((length/m-69)/17)), 1), 30)
		height = math.Max(height, right.yBot-right.yTop)
		ends = func(t float64, _ int) (point, point) { return at(left, t), at(right, t) }
	} else {
		// Without a stop pattern the rows run square to the start
		// pattern's edge, as far as the columns the left row indicator
		// declares; a first pass reads that indicator only.
		n := math.Hypot(left.a, 1)
		vx, vy := dir/n, -dir*left.a/n
		m := left.m / n
		ends = func(t float64, cols int) (point, point) {
			p := at(left, t)
			w := float64(symbolModules(cols, true)) * m
			return p, point{p.x + vx*w, p.y + vy*w}
		}
		votes := map[int]int{}
		var buf []byte
		for i := range 40 {
			p0, p1 := ends(float64(i)/39, 1)
			var r []cwRead
			r, buf = readLine(bm, p0, p1, 1, true, buf)
			for _, c := range r {
				if c.col == 0 && c.cluster == 2 {
					votes[c.value%30+1]++
				}
			}
		}
		var n2 int
		cols, n2 = argmax(votes)
		if n2 < 2 {
			return nil, ErrNotFound
		}
	}
	// Six scan lines to a row of the minimum height (3 modules), so each
	// row is read several times and voted.
	nLines := int(min(max(2*height/left.m, 12), 900))
	tried := map[int]bool{}
	realigned, extended := 0, false
	tMin, tMax := -0.02, 1.02
	var lastErr error = ErrNotFound
	for range 6 {
		tried[cols] = true
		var lines []lineRead
		var buf []byte
		for i := range nLines {
			t := tMin + (tMax-tMin)*float64(i)/float64(nLines-1)
			var r []cwRead
			p0, p1 := ends(t, cols)
			r, buf = readLine(bm, p0, p1, cols, compact, buf)
			if len(r) > 0 {
				lines = append(lines, lineRead{t, r})
			}
		}
		if debugf != nil {
			total := 0
			for _, l := range lines {
				total += len(l.reads)
			}
			debugf("readSymbol: cols %d, %d of %d lines read %d codewords; left %+v right %v", cols, len(lines), nLines, total, left, rightEdge)
		}
		var rf rowFit
		res, seenCols, err := assemble(lines, cols, &rf)
		if err == nil {
			return res, nil
		}
		lastErr = err
		if seenCols > 0 && !tried[seenCols] {
			cols = seenCols
			continue
		}
		// The two edges were found over different spans (damage, or
		// guard bars merged by blur at one end): scan lines then cross
		// rows. The row indicators say which row each end of a line was
		// on; move the right ends so both ends are on the same row.
		// The guard patterns were found over fewer rows than the symbol
		// has (a steep skew hides their ends from a row scan): scan on
		// to where the row indicators put the first and last rows.
		if !extended && rf.lok && math.Abs(rf.la) > 0.5 {
			t0, t1 := (-0.5-rf.lb)/rf.la, (float64(rf.rows)-0.5-rf.lb)/rf.la
			t0, t1 = math.Max(math.Min(t0, t1), -1), math.Min(math.Max(t0, t1), 2)
			if t0 < tMin-0.02 || t1 > tMax+0.02 {
				extended = true
				tMin, tMax = math.Min(tMin, t0), math.Max(tMax, t1)
				nLines = int(float64(nLines) * (tMax - tMin) / 1.04)
				continue
			}
		}
		if realigned < 2 && rf.lok && rf.rok && math.Abs(rf.ra) > 0.5 && (math.Abs(rf.la-rf.ra) > 0.3 || math.Abs(rf.lb-rf.rb) > 0.3) {
			realigned++
			base := ends
			ends = func(t float64, cols int) (point, point) {
				p0, _ := base(t, cols)
				_, p1 := base((rf.la*t+rf.lb-rf.rb)/rf.ra, cols)
				return p0, p1
			}
			continue
		}
		break
	}
	return nil, lastErr
}

// rowFit is the row each end of a scan line was on, as a linear function
// of the line's parameter t, fitted on the row indicators read.
type rowFit struct {
	la, lb, ra, rb float64
	lok, rok       bool
	rows           int
}

// assemble places every codeword read in its row and column, votes,
// corrects and decodes. It returns the column count the row indicators
// claim when it differs from cols, so the caller can read again.
func assemble(lines []lineRead, cols int, rf *rowFit) (*Result, int, error) {
	mv := metaVotes{map[int]int{}, map[int]int{}, map[int]int{}, map[int]int{}}
	type obs struct{ t, row float64 }
	var leftRows, rightRows []obs
	for _, l := range lines {
		for _, r := range l.reads {
			if r.col != 0 && r.col != cols+1 {
				continue
			}
			v := r.value % 30
			row := float64(3*(r.value/30) + r.cluster)
			// The right indicator carries the left one's quantities one
			// cluster on (§5.6): cluster 0 left = rows, right = columns.
			kind := r.cluster
			if r.col == cols+1 {
				kind = (r.cluster + 2) % 3
				rightRows = append(rightRows, obs{l.t, row})
			} else {
				leftRows = append(leftRows, obs{l.t, row})
			}
			switch kind {
			case 0:
				mv.rowsUpper[v]++
			case 1:
				mv.ec[v/3]++
				mv.rowsLower[v%3]++
			case 2:
				mv.cols[v+1]++
			}
		}
	}
	ru, _ := argmax(mv.rowsUpper)
	rl, _ := argmax(mv.rowsLower)
	ecl, _ := argmax(mv.ec)
	c, _ := argmax(mv.cols)
	if debugf != nil {
		debugf("meta votes %v %v %v %v (cols %d)", mv.rowsUpper, mv.rowsLower, mv.ec, mv.cols, cols)
	}
	if c > 0 && c != cols {
		return nil, c, ErrNotFound
	}
	if ru < 0 || rl < 0 || ecl < 0 || ecl > 8 {
		return nil, 0, ErrNotFound
	}
	rows := 3*ru + rl + 1
	if rows < 3 || rows > 90 {
		return nil, 0, ErrNotFound
	}
	fitRows := func(o []obs) (a, b float64, ok bool) {
		if len(o) < 2 {
			return 0, 0, false
		}
		for pass := range 2 {
			var st, sr, stt, str, n float64
			for _, p := range o {
				if pass == 1 && math.Abs(p.row-(a*p.t+b)) > 1.5 {
					continue
				}
				st += p.t
				sr += p.row
				stt += p.t * p.t
				str += p.t * p.row
				n++
			}
			d := n*stt - st*st
			if n < 2 || d == 0 {
				return 0, 0, false
			}
			a = (n*str - st*sr) / d
			b = (sr - a*st) / n
		}
		return a, b, true
	}
	la, lb, lok := fitRows(leftRows)
	ra, rb, rok := fitRows(rightRows)
	*rf = rowFit{la, lb, ra, rb, lok, rok, rows}
	switch {
	case !lok && !rok:
		return nil, 0, ErrNotFound
	case !lok:
		la, lb = ra, rb
	case !rok:
		ra, rb = la, lb
	}
	n := rows * cols
	votes := make([]map[int]int, n)
	for _, l := range lines {
		r0, r1 := la*l.t+lb, ra*l.t+rb
		for _, r := range l.reads {
			if r.col < 1 || r.col > cols {
				continue
			}
			est := r0 + (r1-r0)*float64(r.col)/float64(cols+1)
			row := int(math.Round((est-float64(r.cluster))/3))*3 + r.cluster
			if math.Abs(float64(row)-est) > 1.2 || row < 0 || row >= rows {
				continue
			}
			i := row*cols + r.col - 1
			if votes[i] == nil {
				votes[i] = map[int]int{}
			}
			votes[i][r.value]++
		}
	}
	ec := 1 << (ecl + 1)
	if ec >= n {
		return nil, 0, ErrNotFound
	}
	// Each cell takes its most voted value; a cell nobody read is an
	// erasure. When that does not correct, the least certain cells are
	// declared erasures too: an erasure costs the code half an error.
	cw := make([]int, n)
	conf := make([]float64, n)
	var erasures []int
	for i, v := range votes {
		best, count := argmax(v)
		if count == 0 {
			erasures = append(erasures, i)
			continue
		}
		total := 0
		for _, c := range v {
			total += c
		}
		cw[i], conf[i] = best, float64(count)/float64(total)+float64(count)/1000
	}
	if debugf != nil {
		debugf("assemble: %d lines, rows %d cols %d ec %d, %d erasures, left fit %.1f+%.1ft right %.1f+%.1ft", len(lines), rows, cols, ecl, len(erasures), lb, la, rb, ra)
	}
	if debugCodewords != nil {
		debugCodewords(cw, votes)
	}
	order := make([]int, 0, n)
	for i := range n {
		if votes[i] != nil {
			order = append(order, i)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return conf[order[a]] < conf[order[b]] })
	var fixed int
	var err error = ErrTooManyErrors
	var try []int
	for _, extra := range []int{0, ec / 4, ec / 2, 3 * ec / 4} {
		budget := ec - reserve(ec) - len(erasures) - 1
		if extra > budget || (extra > 0 && extra == budget+1) {
			break
		}
		try = append(try[:0], cw...)
		er := append(append([]int(nil), erasures...), order[:min(extra, len(order))]...)
		if fixed, err = correct(try, ec, er); err == nil {
			break
		}
	}
	if err != nil {
		return nil, 0, err
	}
	cw = try
	if cw[0] < 1 || cw[0] > n-ec {
		return nil, 0, ErrFormat
	}
	text, macro, err := DecodeCodewords(cw[:cw[0]])
	if err != nil {
		return nil, 0, err
	}
	return &Result{Text: text, Rows: rows, Columns: cols, ECLevel: ecl, Erasures: len(erasures), Corrected: fixed, Macro: macro}, 0, nil
}

// String returns the message as UTF-8, reading its bytes in ISO/IEC
// 8859-1, the symbology's default character set (§5.4.2); a message that
// is already valid UTF-8 beyond ASCII is kept as it is.
func (r *Result) String() string {
	ascii := true
	for _, b := range r.Text {
		if b >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii || utf8.Valid(r.Text) {
		return string(r.Text)
	}
	s := make([]rune, len(r.Text))
	for i, b := range r.Text {
		s[i] = rune(b)
	}
	return string(s)
}
