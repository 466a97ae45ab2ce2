package report

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
)

func testDoc(t *testing.T) *doc {
	t.Helper()
	d, err := newDoc("Test", "subject", "2026-03-02T09:15:00.000Z", "footer", false)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The scripts the legend promises are in all three faces, and so is
// every character the report's own furniture uses.
func TestFontCoverage(t *testing.T) {
	cov, err := fontCoverage()
	if err != nil {
		t.Fatal(err)
	}
	native := nameLatin + nameCyrillic + "Αλέξανδρος ÀÉÎÕÜßçñøåŒĞİŞȘȚđŽ ЁЇЄҐЎ ΆΈΉΊΌΎΏΐΰ" +
		"—→×·…“”‘’" + scriptLegend
	for _, r := range native {
		if !cov.has(r) && r != ' ' {
			t.Errorf("%q (U+%04X) is not in the embedded fonts", r, r)
		}
	}
	// Polytonic Greek and the scripts that are transliterated are not.
	for _, r := range "Ἀἀ" + nameArabic[:2] + "李ש" {
		if cov.has(r) {
			t.Errorf("%q (U+%04X) unexpectedly covered: revisit pieces", r, r)
		}
	}
}

func TestPieces(t *testing.T) {
	d := testDoc(t)
	for _, tc := range []struct{ in, show, orig string }{
		{nameLatin, nameLatin, nameLatin},
		{nameCyrillic, nameCyrillic, nameCyrillic},
		{nameGreek, "Αλέξανδρος", nameGreek}, // the breathing is kept in the text layer only
		{"Ἄρης", "Άρης", "Ἄρης"},
		{nameArabic, "mHmd `bd llh (transliterated)", "mHmd `bd llh (transliterated)"},
		{"李小龍", "Li Xiao Long (transliterated)", "Li Xiao Long (transliterated)"},
		{"Zoë 😀", "Zoë [U+1F600] (transliterated)", "Zoë [U+1F600] (transliterated)"},
		{"tab\there", "tab here", "tab here"},
		{"zero\u200bwidth", "zerowidth", "zero\u200bwidth"},
		{"Zoe\u0308", "Zoë", "Zoë"},        // decomposed input is composed
		{"\u1F00\u0345x", "αx", "\u1F80x"}, // composed to ᾀ, which the fonts lack
		{"a\u0313", "a", "a\u0313"},        // a lone mark the fonts lack
	} {
		l := d.line(tc.in)
		if l.show != tc.show || l.orig != tc.orig {
			t.Errorf("line(%q) = show %q, text layer %q; want %q, %q", tc.in, l.show, l.orig, tc.show, tc.orig)
		}
	}
}

// Each line of a multi-line text is marked on its own, next to the name.
func TestTransliterationMarkedPerLine(t *testing.T) {
	d := testDoc(t)
	d.font(regular, 8)
	lines := d.wrap("matched: "+nameGreek+"\nalso: "+nameArabic+"\nentity NK-1", 200)
	var got []string
	for _, l := range lines {
		got = append(got, l.show)
	}
	want := []string{"matched: Αλέξανδρος", "also: mHmd `bd llh (transliterated)", "entity NK-1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines = %q, want %q", got, want)
	}
}

// Wrapped lines never exceed the width, lose no word, and break long
// words at punctuation when they can.
func TestWrap(t *testing.T) {
	d := testDoc(t)
	for _, st := range []fontStyle{regular, bold, mono} {
		d.font(st, 7.5)
		text := "The applicant's passport 01JNXA7K3D5F8G2H4J6K8M0P2Q was checked against svc.kyc.request.awaiting_review " +
			strings.Repeat("and-again ", 30) + "d98c6042ad42b68407d2f254aa68071cf62053faa3cc55a6c1afeab3ecc38ffa"
		const w = 30.0
		lines := d.wrap(text, w)
		var words []string
		for _, l := range lines {
			if got := d.f.GetStringWidth(l.show); got > w+1e-9 {
				t.Errorf("style %d: line %q is %.2f mm, wider than %.0f", st, l.show, got, w)
			}
			words = append(words, l.show)
		}
		joined := strings.Join(words, " ")
		for _, word := range strings.Fields(text) {
			if d.f.GetStringWidth(word) <= w && !strings.Contains(joined, word) {
				t.Errorf("style %d: %q fits a line but was split (lines %q)", st, word, words)
			}
		}
		if !strings.Contains(joined, "svc.kyc.") {
			t.Errorf("style %d: the event type was not broken at a dot (lines %q)", st, words)
		}
		if strings.ReplaceAll(joined, " ", "") != strings.ReplaceAll(text, " ", "") {
			t.Errorf("style %d: wrapping changed the text:\n%s", st, joined)
		}
	}
	d.font(regular, 8)
	if got := d.wrap("", 50); len(got) != 1 || got[0].show != "" {
		t.Errorf("wrap(\"\") = %q, want one empty line", got)
	}
	if got := d.wrap("a\n\nb", 50); len(got) != 3 {
		t.Errorf("wrap kept %d lines of a\\n\\nb, want 3 (blank line kept)", len(got))
	}
}

// fpdf v0.12.0 writes into the font bytes it is given; rendering must
// leave gofont's shared slices as they were (newDoc passes copies).
func TestRenderLeavesFontsIntact(t *testing.T) {
	sums := func() [3][32]byte {
		return [3][32]byte{sha256.Sum256(goregular.TTF), sha256.Sum256(gobold.TTF), sha256.Sum256(gomono.TTF)}
	}
	before := sums()
	if err := WriteAMLPDF(&bytes.Buffer{}, amlWithHistory()); err != nil {
		t.Fatal(err)
	}
	if sums() != before {
		t.Fatal("rendering changed the embedded Go font bytes")
	}
}

func TestPDFTextString(t *testing.T) {
	if got, want := pdfTextString("Ἀb"), "<FEFF1F080062>"; got != want {
		t.Errorf("pdfTextString = %s, want %s", got, want)
	}
	if got, want := pdfTextString("😀"), "<FEFFD83DDE00>"; got != want {
		t.Errorf("pdfTextString (surrogates) = %s, want %s", got, want)
	}
}
