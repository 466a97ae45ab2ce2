package report

// Table metrics in millimetres and points.
const (
	cellPadX  = 1.2
	cellPadY  = 0.8
	tableFont = 7.5
	lineH     = 3.3
)

// col is one column: its header, its share of the content width, the
// face of its cells and their alignment ("L" or "R").
type col struct {
	head  string
	w     float64
	style fontStyle
	align string
}

// table draws rows that break cleanly across pages. A row that does not
// fit below the cursor moves to the next page, whose top repeats the
// table's header (and the caption, marked "continued"); only a row taller
// than a whole page is split, between two of its wrapped lines.
type table struct {
	d       *doc
	caption string // above the table, and with "(continued)" on later pages
	again   string // above the table on later pages only, when no caption
	header  bool
	cols    []col
	widths  []float64
	x       float64 // left edge; tables span the content width unless placed
	w       float64
	page    int // the page whose top part of this table carries the header
	rows    int
}

// newTable starts a table at the cursor. Column shares are scaled to the
// content width, so callers think in proportions.
func (d *doc) newTable(caption string, header bool, cols ...col) *table {
	return d.tableAt(margin, contentW, caption, header, cols...)
}

// tableAt starts a table of width w at x (beside an image).
func (d *doc) tableAt(x, w float64, caption string, header bool, cols ...col) *table {
	t := &table{d: d, caption: caption, header: header, cols: cols, page: -1, x: x, w: w}
	sum := 0.0
	for _, c := range cols {
		sum += c.w
	}
	for _, c := range cols {
		t.widths = append(t.widths, w*c.w/sum)
	}
	return t
}

// row adds a row in the columns' own faces.
func (t *table) row(cells ...string) {
	styles := make([]fontStyle, len(t.cols))
	for i, c := range t.cols {
		styles[i] = c.style
	}
	t.put(cells, styles)
}

// continues names the table on the pages after its first, for tables
// that follow a section heading instead of carrying a caption.
func (t *table) continues(title string) *table {
	t.again = title
	return t
}

// end leaves a little space under the table.
func (t *table) end() { t.d.setY(t.d.y() + 2.5) }

// layout wraps a row's cells; it returns the lines per cell and the
// number of lines of the tallest cell.
func (t *table) layout(cells []string, styles []fontStyle) ([][]line, int) {
	lines := make([][]line, len(t.cols))
	n := 1
	for i := range t.cols {
		text := ""
		if i < len(cells) {
			text = cells[i]
		}
		t.d.font(styles[i], tableFont)
		lines[i] = t.d.wrap(text, t.widths[i]-2*cellPadX)
		n = max(n, len(lines[i]))
	}
	return lines, n
}

// rowHeight is the height a row of these cells takes in one piece.
func (t *table) rowHeight(cells []string, styles []fontStyle) float64 {
	_, n := t.layout(cells, styles)
	return float64(n)*lineH + 2*cellPadY
}

// put adds a row whose cells use the given faces.
func (t *table) put(cells []string, styles []fontStyle) {
	d := t.d
	lines, n := t.layout(cells, styles)
	rowH := float64(n)*lineH + 2*cellPadY
	room := bodyBottom - d.y()
	if t.page != d.f.PageNo() {
		room -= t.headHeight(t.page == -1)
	}
	// Move the whole row to a new page when it fits there; a row taller
	// than a page starts here if one line fits, and is split below.
	if rowH > room && (rowH <= bodyHeight-t.headHeight(false) || room < lineH+2*cellPadY) {
		d.newPage()
	}
	for from := 0; from < n; {
		if t.page != d.f.PageNo() {
			t.drawHeader()
		}
		fit := int((bodyBottom - d.y() - 2*cellPadY) / lineH)
		if fit < 1 {
			d.newPage()
			continue
		}
		to := min(n, from+fit)
		t.drawChunk(lines, styles, from, to)
		from = to
		if from < n {
			d.newPage()
		}
	}
	t.rows++
}

// headTitle is the line above the table: its caption, or on a page
// after the first its continuation title.
func (t *table) headTitle(first bool) string {
	switch {
	case t.caption != "" && first:
		return t.caption
	case t.caption != "":
		return t.caption + " (continued)"
	case !first && t.again != "":
		return t.again + " (continued)"
	}
	return ""
}

// headLines wraps the column heads; a head may take several lines.
func (t *table) headLines() ([][]line, int) {
	if !t.header {
		return nil, 0
	}
	heads := make([]string, len(t.cols))
	styles := make([]fontStyle, len(t.cols))
	for i, c := range t.cols {
		heads[i], styles[i] = c.head, bold
	}
	return t.layout(heads, styles)
}

// headHeight is the room the title and header take at the top of the
// table's first page (first) or of a later page.
func (t *table) headHeight(first bool) float64 {
	h := 0.0
	if t.headTitle(first) != "" {
		h += 4.5
	}
	if _, n := t.headLines(); n > 0 {
		h += float64(n)*lineH + 2*cellPadY
	}
	return h
}

// drawHeader prints the title and the column heads.
func (t *table) drawHeader() {
	d := t.d
	first := t.page == -1
	t.page = d.f.PageNo()
	if title := t.headTitle(first); title != "" {
		d.font(bold, 8.5)
		d.drawLine(t.x, d.y(), t.w, 4.5, d.line(title), "L")
		d.setY(d.y() + 4.5)
	}
	lines, n := t.headLines()
	if n == 0 {
		return
	}
	h := float64(n)*lineH + 2*cellPadY
	y := d.y()
	d.f.SetFillColor(222, 228, 240)
	d.f.Rect(t.x, y, t.w, h, "F")
	d.font(bold, tableFont)
	x := t.x
	for i, c := range t.cols {
		for j, l := range lines[i] {
			d.drawLine(x+cellPadX, y+cellPadY+float64(j)*lineH, t.widths[i]-2*cellPadX, lineH, l, alignOf(c))
		}
		x += t.widths[i]
	}
	d.f.SetDrawColor(120, 130, 150)
	d.f.SetLineWidth(0.25)
	d.f.Line(t.x, y+h, t.x+t.w, y+h)
	d.setY(y + h)
}

// drawChunk prints wrapped lines [from, to) of every cell of one row.
func (t *table) drawChunk(lines [][]line, styles []fontStyle, from, to int) {
	d := t.d
	y := d.y()
	h := float64(to-from)*lineH + 2*cellPadY
	if t.rows%2 == 1 {
		d.f.SetFillColor(245, 246, 249)
		d.f.Rect(t.x, y, t.w, h, "F")
	}
	x := t.x
	for i, c := range t.cols {
		d.font(styles[i], tableFont)
		for j := from; j < to && j < len(lines[i]); j++ {
			d.drawLine(x+cellPadX, y+cellPadY+float64(j-from)*lineH, t.widths[i]-2*cellPadX, lineH, lines[i][j], alignOf(c))
		}
		x += t.widths[i]
	}
	d.f.SetDrawColor(215, 218, 224)
	d.f.SetLineWidth(0.15)
	d.f.Line(t.x, y+h, t.x+t.w, y+h)
	d.setY(y + h)
}

func alignOf(c col) string {
	if c.align == "" {
		return "L"
	}
	return c.align
}
