package report

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"codeberg.org/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"

	"kycd/kyc"
)

// The PDFs print every text in the Go fonts, embedded as subsets. Their
// character set (WGL4) covers Latin with its diacritics, monotonic Greek
// and Cyrillic, so names in those scripts print as recorded. Characters
// outside it are never left as empty boxes: a letter whose accents the
// fonts lack prints without them while the text layer keeps the exact
// name (polytonic Greek, some Vietnamese), and other scripts (CJK, Arabic,
// Hebrew, …) print transliterated with unidecode and marked
// "(transliterated)". The report's last section says so once
// (scriptLegend): a note for the reader who wonders about a name, not
// furniture for every page. The fonts have nothing outside the Basic
// Multilingual Plane.
const scriptLegend = "Names and texts are printed in the Go fonts (Latin, Greek, Cyrillic). Accents the fonts lack are left out " +
	"in print but kept in the text layer (copy and search find the exact name); other scripts are printed transliterated " +
	"and marked (transliterated)."

// A4 portrait layout in millimetres. The header and footer have fixed
// heights so the body area is the same on every page, which is what lets
// tables decide where to break before they draw.
const (
	pageW      = 210.0
	pageH      = 297.0
	margin     = 15.0
	contentW   = pageW - 2*margin
	bodyTop    = 27.0
	bodyBottom = 279.0
	bodyHeight = bodyBottom - bodyTop
	// sectionHeadH is what a section's heading takes (section).
	sectionHeadH = 11.0
	// subsectionKeep is what subsection keeps for its title and first
	// lines.
	subsectionKeep = 18.0
)

// fontStyle picks one of the embedded faces.
type fontStyle int

const (
	regular fontStyle = iota
	bold
	mono
)

// doc is one report being drawn: an fpdf document plus the page furniture
// every report shares. fpdf's automatic page break is off: each drawing
// step measures what it needs and calls ensure first, so a table row, an
// image with its facts or a heading is never cut where fpdf happens to run
// out of room.
type doc struct {
	f         *fpdf.Fpdf
	cov       *coverage
	title     string // "KYC compliance report"
	subject   string // the subject's public id, in the header
	generated string // generation time, in the header
	footer    string // right side of the footer (ids, hash prefix)
	sandbox   bool
	// deciders is set for an AML report, whose match cards show each
	// match's decision: the actor of each decision by id.
	deciders map[string]*Person
}

// newDoc sets up an A4 document whose bytes depend only on its content:
// the creation and modification dates are the report's generation time
// and fpdf sorts its resource catalogues, so rendering the same report
// twice gives the same file (a filed copy can be compared byte for byte).
func newDoc(title, subject, generatedAt, footer string, sandbox bool) (*doc, error) {
	cov, err := fontCoverage()
	if err != nil {
		return nil, err
	}
	at, err := time.Parse(kyc.TimeFormat, generatedAt)
	if err != nil {
		// Falling back to the clock would make the file differ on every
		// render, so a malformed time is the caller's bug to see.
		return nil, fmt.Errorf("report generatedAt %q: %w", generatedAt, err)
	}
	f := fpdf.New("P", "mm", "A4", "")
	f.SetCreationDate(at)
	f.SetModificationDate(at)
	f.SetCatalogSort(true)
	f.SetCompression(true)
	f.SetCreator("kycd", true)
	f.SetTitle(title+" "+subject, true)
	// The alias must be set before the fonts are added: fpdf then keeps
	// the digits in every font subset for the page total it fills in.
	f.AliasNbPages("{nb}")
	// Each document gets its own copy of the font files: fpdf v0.12.0
	// writes into the bytes it is given while subsetting (getMetrics
	// appends to a slice of them), which would corrupt gofont's shared
	// slices, make the next render differ and race between renders.
	f.AddUTF8FontFromBytes("go", "", bytes.Clone(goregular.TTF))
	f.AddUTF8FontFromBytes("go", "B", bytes.Clone(gobold.TTF))
	f.AddUTF8FontFromBytes("gomono", "", bytes.Clone(gomono.TTF))
	f.SetMargins(margin, bodyTop, margin)
	f.SetAutoPageBreak(false, pageH-bodyBottom)
	f.SetCellMargin(0)
	d := &doc{f: f, cov: cov, title: title, subject: subject, generated: generatedAt, footer: footer, sandbox: sandbox}
	f.SetHeaderFunc(d.header)
	f.SetFooterFunc(d.pageFooter)
	d.newPage()
	return d, f.Error()
}

// finish writes the document; fpdf collects drawing errors and reports
// the first one here.
func (d *doc) finish(w io.Writer) error {
	if err := d.f.Error(); err != nil {
		return fmt.Errorf("render pdf: %w", err)
	}
	if err := d.f.Output(w); err != nil {
		return fmt.Errorf("write pdf: %w", err)
	}
	return nil
}

func (d *doc) newPage() {
	d.f.AddPage()
	d.f.SetXY(margin, bodyTop)
}

// ensure starts a new page unless h millimetres fit below the cursor.
func (d *doc) ensure(h float64) {
	if d.y()+h > bodyBottom {
		d.newPage()
	}
}

func (d *doc) y() float64     { return d.f.GetY() }
func (d *doc) setY(y float64) { d.f.SetXY(margin, y) }

func (d *doc) font(s fontStyle, size float64) {
	switch s {
	case bold:
		d.f.SetFont("go", "B", size)
	case mono:
		d.f.SetFont("gomono", "", size)
	default:
		d.f.SetFont("go", "", size)
	}
}

// header draws the title, the subject's public id and the generation time
// on every page, under a sandbox band when the report is from the sandbox.
func (d *doc) header() {
	f := d.f
	if d.sandbox {
		f.SetFillColor(255, 193, 7)
		f.Rect(0, 5, pageW, 7, "F")
		f.SetTextColor(0, 0, 0)
		d.font(bold, 10)
		f.SetXY(margin, 5)
		f.CellFormat(contentW, 7, "SANDBOX — not a real decision", "", 0, "C", false, 0, "")
	}
	f.SetTextColor(20, 20, 20)
	d.font(bold, 14)
	f.SetXY(margin, 13)
	f.CellFormat(contentW, 7, d.title, "", 0, "L", false, 0, "")
	d.font(mono, 9)
	d.drawLine(margin, 13, contentW, 4, d.line(d.subject), "R")
	d.font(regular, 8)
	f.SetTextColor(90, 90, 90)
	f.SetXY(margin, 17.5)
	f.CellFormat(contentW, 4, "Generated "+d.generated, "", 0, "R", false, 0, "")
	f.SetDrawColor(120, 120, 120)
	f.SetLineWidth(0.3)
	f.Line(margin, 22.5, pageW-margin, 22.5)
	f.SetTextColor(0, 0, 0)
}

// pageFooter draws "Page X of Y" and the report's identity. The page
// total is fpdf's alias, filled in when the file is written, so it is
// left-aligned (its width is unknown while drawing).
func (d *doc) pageFooter() {
	f := d.f
	f.SetDrawColor(120, 120, 120)
	f.SetLineWidth(0.3)
	f.Line(margin, 282, pageW-margin, 282)
	f.SetTextColor(60, 60, 60)
	d.font(regular, 8)
	f.SetXY(margin, 283)
	f.CellFormat(40, 4, fmt.Sprintf("Page %d of {nb}", f.PageNo()), "", 0, "L", false, 0, "")
	d.font(mono, 7.5)
	d.drawLine(margin+40, 283, contentW-40, 4, d.line(d.footer), "R")
	f.SetTextColor(0, 0, 0)
}

// section starts a titled part of the report. It keeps room for a few
// lines under the title so a heading never ends a page alone; keep is
// the height of a first block taller than that (an image with its facts,
// a titled list result), which then starts on the same page as the
// heading.
func (d *doc) section(title string, keep ...float64) {
	need := 24.0
	for _, k := range keep {
		need = max(need, sectionHeadH+k)
	}
	d.ensure(need)
	d.setY(d.y() + 3)
	d.font(bold, 12)
	d.f.SetTextColor(20, 40, 90)
	d.drawLine(margin, d.y(), contentW, 6, d.line(title), "L")
	d.f.SetDrawColor(20, 40, 90)
	d.f.SetLineWidth(0.4)
	d.f.Line(margin, d.y()+6.5, pageW-margin, d.y()+6.5)
	d.f.SetTextColor(0, 0, 0)
	d.setY(d.y() + 8)
}

// subsection titles a part inside a section (one list, one capture).
func (d *doc) subsection(title string) {
	d.ensure(subsectionKeep)
	d.setY(d.y() + 1.5)
	d.font(bold, 10)
	lines := d.wrap(title, contentW)
	for _, l := range lines {
		d.drawLine(margin, d.y(), contentW, 5, l, "L")
		d.setY(d.y() + 5)
	}
	d.setY(d.y() + 0.5)
}

// para prints wrapped text across the content width, breaking pages
// between lines.
func (d *doc) para(text string, s fontStyle, size float64) {
	d.font(s, size)
	lh := size * 0.45
	for _, l := range d.wrap(text, contentW) {
		d.ensure(lh)
		d.drawLine(margin, d.y(), contentW, lh, l, "L")
		d.setY(d.y() + lh)
	}
	d.setY(d.y() + 1.5)
}

// kvTable is the label/value table of a record's facts.
func (d *doc) kvTable() *table {
	return d.newTable("", false, col{w: 0.28, style: bold}, col{w: 0.72})
}

// kv adds a fact; mono prints the value in the monospaced face (ids and
// hashes, where every character must be legible).
func (t *table) kv(label, value string, monoValue bool) {
	st := regular
	if monoValue {
		st = mono
	}
	t.put([]string{label, value}, []fontStyle{bold, st})
}
