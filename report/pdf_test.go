package report

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The helpers below read rendered PDFs back with poppler, the way a
// reader's viewer would. Without poppler those checks are skipped, except
// under CI=true where the tools must be installed.

// artifactDir is where a test keeps its PDFs and PNGs for people to look
// at: $KYCD_TEST_ARTIFACTS/<test> when set, else a temporary directory.
func artifactDir(t testing.TB) string {
	t.Helper()
	base := os.Getenv("KYCD_TEST_ARTIFACTS")
	if base == "" {
		return t.TempDir()
	}
	dir := filepath.Join(base, strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("artifact dir: %v", err)
	}
	return dir
}

// havePoppler reports whether pdftotext, pdfinfo and pdftoppm are there.
func havePoppler(t testing.TB) bool {
	t.Helper()
	for _, tool := range []string{"pdftotext", "pdfinfo", "pdftoppm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required under CI=true (install poppler-utils): %v", tool, err)
			}
			t.Logf("%s not installed (poppler-utils); skipping the read-back checks", tool)
			return false
		}
	}
	return true
}

// savePDF writes a rendered PDF to the test's artifact directory.
func savePDF(t testing.TB, name string, pdf []byte) string {
	t.Helper()
	path := filepath.Join(artifactDir(t), name+".pdf")
	if err := os.WriteFile(path, pdf, 0o644); err != nil {
		t.Fatalf("save pdf: %v", err)
	}
	t.Logf("PDF %s (%d bytes)", path, len(pdf))
	return path
}

func run(t testing.TB, name string, args ...string) []byte {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	if stderr.Len() > 0 {
		// poppler reports damaged files on stderr and still exits 0.
		t.Errorf("%s %v wrote to stderr:\n%s", name, args, stderr.String())
	}
	return out
}

// pdfPages reads back the text of each page (pdftotext -layout separates
// pages with form feeds) and checks the page count against pdfinfo.
func pdfPages(t testing.TB, path string) []string {
	t.Helper()
	text := string(run(t, "pdftotext", "-layout", "-enc", "UTF-8", path, "-"))
	pages := strings.Split(strings.TrimSuffix(text, "\f"), "\f")
	m := regexp.MustCompile(`(?m)^Pages:\s+(\d+)$`).FindStringSubmatch(string(run(t, "pdfinfo", path)))
	if m == nil {
		t.Fatalf("pdfinfo shows no page count for %s", path)
	}
	if n, _ := strconv.Atoi(m[1]); n != len(pages) {
		t.Fatalf("pdfinfo says %d pages, pdftotext gave %d", n, len(pages))
	}
	return pages
}

// pdfFlow reads the text back in content order (pdftotext -raw), with
// runs of white space made single spaces. A table cell's wrapped lines are
// drawn one after the other, so text that wraps inside a cell reads as
// one phrase here, unlike in the column layout.
func pdfFlow(t testing.TB, path string) string {
	t.Helper()
	return strings.Join(strings.Fields(string(run(t, "pdftotext", "-raw", "-enc", "UTF-8", path, "-"))), " ")
}

// checkEveryPage asserts the header and footer of every page: the title,
// the subject's public id, "Page i of n", the footer identity and the
// sandbox band when expected. The note on fonts and scripts is printed
// once, at the end, not as a footnote on every page.
func checkEveryPage(t *testing.T, pages []string, title, subject, footer string, sandbox bool) {
	t.Helper()
	if n := strings.Count(strings.Join(pages, "\f"), "Latin, Greek, Cyrillic"); n != 1 {
		t.Errorf("the fonts note is printed %d times, want once (no footnote on every page)", n)
	} else if !strings.Contains(pages[len(pages)-1], "Latin, Greek, Cyrillic") {
		t.Error("the fonts note is not on the last page")
	}
	for i, p := range pages {
		for _, want := range []string{title, subject, "Page " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(pages)), footer} {
			if !strings.Contains(p, want) {
				t.Errorf("page %d lacks %q", i+1, want)
			}
		}
		if got := strings.Contains(p, "SANDBOX — not a real decision"); got != sandbox {
			t.Errorf("page %d: sandbox band shown = %v, want %v", i+1, got, sandbox)
		}
	}
}

// mustContain asserts each string occurs in the text.
func mustContain(t *testing.T, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("PDF text lacks %q", w)
		}
	}
}

var wordBox = regexp.MustCompile(`<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>`)

// checkInsideMargins asserts that every word lies within the page's side
// margins: wrapped text never runs off the content area.
func checkInsideMargins(t *testing.T, path string) {
	t.Helper()
	const left, right = margin * 72 / 25.4, (pageW - margin) * 72 / 25.4
	html := string(run(t, "pdftotext", "-bbox", path, "-"))
	words := wordBox.FindAllStringSubmatch(html, -1)
	if len(words) == 0 {
		t.Fatal("pdftotext -bbox found no words")
	}
	for _, w := range words {
		x0, _ := strconv.ParseFloat(w[1], 64)
		x1, _ := strconv.ParseFloat(w[3], 64)
		if x0 < left-0.5 || x1 > right+0.5 {
			t.Errorf("word %q spans x %.1f–%.1f pt, outside the margins %.1f–%.1f", w[5], x0, x1, left, right)
		}
	}
}

// rasterise renders pages first..last at 50 dpi, checks each PNG is not
// blank and returns their paths.
func rasterise(t *testing.T, path string, first, last int) []string {
	t.Helper()
	prefix := strings.TrimSuffix(path, ".pdf") + "-from" + strconv.Itoa(first)
	run(t, "pdftoppm", "-r", "50", "-png", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last), path, prefix)
	matches, err := filepath.Glob(prefix + "-*.png")
	if err != nil || len(matches) < last-first+1 {
		t.Fatalf("pdftoppm made %v (%v), want %d pages", matches, err, last-first+1)
	}
	for _, m := range matches {
		checkNotBlank(t, m)
		t.Logf("PNG %s", m)
	}
	return matches
}

// checkNotBlank asserts a rendered page has ink: some dark pixels.
func checkNotBlank(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	dark, total := darkPixels(img)
	if dark*1000 < total { // under 0.1 % of the page
		t.Errorf("%s looks blank: %d of %d pixels are dark", path, dark, total)
	}
}

func darkPixels(img image.Image) (dark, total int) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if (r+g+bl)/3 < 0x8000 {
				dark++
			}
			total++
		}
	}
	return dark, total
}
