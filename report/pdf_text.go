package report

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"

	"github.com/gosimple/unidecode"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/text/unicode/norm"
)

// coverage is the set of Basic Multilingual Plane characters that all
// three embedded faces draw; the Go fonts have nothing outside the BMP.
type coverage [0x10000 / 64]uint64

func (c *coverage) has(r rune) bool {
	return r >= 0 && r < 0x10000 && c[r/64]&(1<<(r%64)) != 0
}

// fontCoverage reads the faces' character maps once per process. A
// character counts only when every face has it, so switching a cell to
// bold or mono can never turn it into an empty box.
var fontCoverage = sync.OnceValues(func() (*coverage, error) {
	var c coverage
	for r := range rune(0x10000) {
		c[r/64] |= 1 << (r % 64)
	}
	var buf sfnt.Buffer
	for _, ttf := range [][]byte{goregular.TTF, gobold.TTF, gomono.TTF} {
		f, err := sfnt.Parse(ttf)
		if err != nil {
			return nil, fmt.Errorf("parse embedded font: %w", err)
		}
		for r := range rune(0x10000) {
			if g, err := f.GlyphIndex(&buf, r); err != nil || g == 0 {
				c[r/64] &^= 1 << (r % 64)
			}
		}
	}
	return &c, nil
})

// piece is one character of a text as recorded (orig) and as printed
// (show): the same, the letter without the marks the fonts lack, or a
// transliteration.
type piece struct{ orig, show string }

// line is one printed line with the text it stands for. When they differ
// the text layer carries orig (PDF ActualText), so copying or searching
// the PDF finds the name as recorded.
type line struct{ show, orig string }

const transliterated = " (transliterated)"

// pieces maps a text to printable characters. Tabs become spaces; other
// control and format characters (invisible in print) are dropped from the
// display. A transliterated character is transliterated in the text layer
// too (copying the PDF gives what the page shows), and each line with one
// ends with "(transliterated)", next to the name it concerns, so a reader
// never takes the spelling for the original's. Text is composed (NFC)
// first, so a name stored as e + combining diaeresis prints as ë.
func (c *coverage) pieces(s string) []piece {
	s = norm.NFC.String(strings.ReplaceAll(s, "\r\n", "\n"))
	ps := make([]piece, 0, len(s))
	for i, para := range strings.Split(s, "\n") {
		if i > 0 {
			ps = append(ps, piece{"\n", "\n"})
		}
		ps = c.appendPieces(ps, para)
	}
	return ps
}

func (c *coverage) appendPieces(ps []piece, s string) []piece {
	translit := false
	for _, r := range s {
		o := string(r)
		switch {
		case c.has(r):
			ps = append(ps, piece{o, o})
		case r == '\t' || unicode.IsSpace(r):
			ps = append(ps, piece{o, " "})
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Mn, r):
			// Invisible, or a mark with no letter it composes with here:
			// left out in print, kept in the text layer.
			ps = append(ps, piece{o, ""})
		default:
			if sh, ok := c.withoutMarks(r); ok {
				ps = append(ps, piece{o, sh})
				continue
			}
			t := unidecode.Unidecode(o)
			if t == "" && !unicode.IsLetter(r) && !unicode.IsMark(r) {
				// Letters unidecode leaves out (Arabic alef) are silent
				// in the transliteration; a symbol it cannot spell is
				// shown by its code point rather than dropped.
				t = fmt.Sprintf("[U+%04X]", r)
			}
			for _, tr := range t {
				ps = append(ps, piece{string(tr), string(tr)})
			}
			translit = true
		}
	}
	if translit {
		for _, r := range transliterated {
			ps = append(ps, piece{string(r), string(r)})
		}
	}
	return ps
}

// withoutMarks drops the combining marks the fonts lack from r and
// recomposes the rest: Ἀ (alpha with psili) prints as Α, Ἄ as Ά, since
// the fonts have the monotonic accented letters but not polytonic ones.
// It fails when the base letter itself is missing.
func (c *coverage) withoutMarks(r rune) (string, bool) {
	d := []rune(norm.NFD.String(string(r)))
	if len(d) == 0 || !c.has(d[0]) {
		return "", false
	}
	cur := string(d[0])
	for _, m := range d[1:] {
		if !unicode.Is(unicode.Mn, m) {
			return "", false
		}
		// Keep a mark when the letter with it is still printable.
		if cand := norm.NFC.String(cur + string(m)); c.hasAll(cand) {
			cur = cand
		}
	}
	return cur, true
}

func (c *coverage) hasAll(s string) bool {
	for _, r := range s {
		if !c.has(r) {
			return false
		}
	}
	return true
}

// line prepares a text for one line without wrapping it.
func (d *doc) line(s string) line {
	return d.wrap(strings.ReplaceAll(s, "\n", " "), 1e6)[0]
}

// wrap breaks text into lines no wider than w in the current font: at
// spaces, at newlines, and inside a word only when the word alone is
// wider than w (hashes, long ids, event types), preferably after a
// punctuation mark. It always returns at least one line.
func (d *doc) wrap(text string, w float64) []line {
	ps := d.cov.pieces(text)
	var out []line
	var cur, word []piece
	curW := 0.0
	spaceW := d.f.GetStringWidth(" ")
	flush := func() {
		var l line
		for _, p := range cur {
			l.show += p.show
			l.orig += p.orig
		}
		out = append(out, l)
		cur, curW = cur[:0], 0
	}
	addWord := func() {
		if len(word) == 0 {
			return
		}
		ww := d.width(word)
		switch {
		case len(cur) > 0 && curW+spaceW+ww <= w:
			cur = append(cur, piece{" ", " "})
			cur = append(cur, word...)
			curW += spaceW + ww
		case ww <= w:
			if len(cur) > 0 {
				flush()
			}
			cur, curW = append(cur, word...), ww
		default:
			if len(cur) > 0 {
				flush()
			}
			rest := word
			for {
				n, nw := d.fit(rest, w)
				if n == len(rest) {
					cur, curW = append(cur, rest...), nw
					break
				}
				cur = append(cur, rest[:n]...)
				flush()
				rest = rest[n:]
			}
		}
		word = word[:0]
	}
	for _, p := range ps {
		switch {
		case p.orig == "\n":
			addWord()
			flush()
		case p.show == " ":
			addWord()
		default:
			word = append(word, p)
		}
	}
	addWord()
	if len(cur) > 0 || len(out) == 0 {
		flush()
	}
	return out
}

// fit returns how many leading pieces of a word wider than w go on one
// line (at least one, so wrapping always advances) and their width. It
// breaks after the last punctuation mark that fits, so "svc.kyc.request"
// splits at a dot rather than inside a name.
func (d *doc) fit(word []piece, w float64) (int, float64) {
	n, total, cut, cutW := 0, 0.0, 0, 0.0
	for n < len(word) {
		pw := d.f.GetStringWidth(word[n].show)
		if n > 0 && total+pw > w {
			break
		}
		total += pw
		n++
		if strings.ContainsAny(word[n-1].show, "._-/,;:→") {
			cut, cutW = n, total
		}
	}
	if n < len(word) && cut > 0 {
		return cut, cutW
	}
	return n, total
}

func (d *doc) width(ps []piece) float64 {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.show)
	}
	return d.f.GetStringWidth(b.String())
}

// drawLine prints one line in a box of width w and height h at (x, y).
func (d *doc) drawLine(x, y, w, h float64, l line, align string) {
	if l.show == "" {
		return
	}
	actual := l.orig != l.show
	if actual {
		d.f.RawWriteStr("/Span <</ActualText " + pdfTextString(l.orig) + ">> BDC")
	}
	d.f.SetXY(x, y)
	d.f.CellFormat(w, h, l.show, "", 0, align, false, 0, "")
	if actual {
		d.f.RawWriteStr("EMC")
	}
}

// pdfTextString encodes s as a PDF text string: UTF-16BE with a byte
// order mark, written in hex so no character needs escaping.
func pdfTextString(s string) string {
	var b strings.Builder
	b.WriteString("<FEFF")
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, "%04X", u)
	}
	b.WriteString(">")
	return b.String()
}
