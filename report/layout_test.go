package report

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"kycd/kyc"
)

// The layout tests render every kind of report (KYC and AML, sandbox and
// live, with and without matches, decided and undecided, long names) and
// read each back as a reader sees it: the words' boxes (pdftotext -bbox)
// and the pages rendered at 100 % (96 dpi, as a screen shows them). With
// KYCD_TEST_ARTIFACTS set, the PDFs and PNGs stay there to be looked at.

// layoutCase is one report to render.
type layoutCase struct {
	name    string
	sandbox bool
	render  func(t *testing.T) []byte
}

func layoutCases() []layoutCase {
	kyc1 := func(f func(t *testing.T) *KYCReport) func(t *testing.T) []byte {
		return func(t *testing.T) []byte { return renderKYC(t, f(t)) }
	}
	aml1 := func(f func() *AMLReport) func(t *testing.T) []byte {
		return func(t *testing.T) []byte {
			var buf bytes.Buffer
			if err := WriteAMLPDF(&buf, f()); err != nil {
				t.Fatal(err)
			}
			return buf.Bytes()
		}
	}
	return []layoutCase{
		{"kyc-live-approved", false, kyc1(func(t *testing.T) *KYCReport { return typicalKYC(t) })},
		{"kyc-live-awaiting", false, kyc1(awaitingKYC)},
		{"kyc-live-long", false, kyc1(func(t *testing.T) *KYCReport { return longKYC(t) })},
		{"kyc-live-masked", false, kyc1(func(t *testing.T) *KYCReport {
			rep := typicalKYC(t)
			rep.maskPersonalData()
			return rep
		})},
		{"kyc-sandbox", true, kyc1(sandboxKYC)},
		{"kyc-sandbox-long-names", true, kyc1(longNamesKYC)},
		{"aml-live-undecided", false, aml1(amlWithHistory)},
		{"aml-live-decided", false, aml1(func() *AMLReport { return decidedAML(false, true) })},
		{"aml-live-partly-decided", false, aml1(func() *AMLReport { return decidedAML(false, false) })},
		{"aml-live-no-match", false, aml1(func() *AMLReport { return noMatchAML(false) })},
		{"aml-sandbox-undecided", true, aml1(func() *AMLReport {
			rep := amlWithHistory()
			rep.Check.Environment = kyc.Sandbox
			return rep
		})},
		{"aml-sandbox-decided", true, aml1(func() *AMLReport { return decidedAML(true, true) })},
		{"aml-sandbox-no-match", true, aml1(func() *AMLReport { return noMatchAML(true) })},
		{"aml-sandbox-long-names", true, aml1(longNamesAML)},
	}
}

// TestReportLayout: on every page of every kind of report, the summary
// banner's text lies inside its box (the sandbox AML title ran out of
// it), no heading is the last text of a page (page 2 of the KYC report
// ended with "Captured images"), every word is within the margins, and
// page 1 of a sandbox report says once that the sandbox makes no real
// decisions (its summary said so twice).
func TestReportLayout(t *testing.T) {
	for _, c := range layoutCases() {
		t.Run(c.name, func(t *testing.T) {
			path := savePDF(t, c.name, c.render(t))
			if !havePoppler(t) {
				return
			}
			pages := pdfPages(t, path)
			words := pageWords(t, path)
			pngs := rasterise100(t, path, len(pages))
			checkBannerInsideBox(t, words[0], pngs[0])
			for i := range pages {
				checkNoOrphanHeading(t, i+1, words[i])
			}
			checkInsideMargins(t, path)
			if c.sandbox {
				// The summary, before the details (whose "Decision
				// reason" is the recorded reason, word for word).
				summary, _, _ := strings.Cut(strings.ToLower(pageFlow(t, path, 1)), "organization and environment")
				if n := strings.Count(summary, "makes no real decisions"); n > 1 {
					t.Errorf("page 1's summary says %d times that the sandbox makes no real decisions, want once", n)
				}
			}
		})
	}
}

// word is one word as pdftotext -bbox reads it, in points.
type word struct {
	x0, y0, x1, y1 float64
	text           string
}

func (w word) height() float64 { return w.y1 - w.y0 }

// pageWords reads each page's words, in drawing order.
func pageWords(t *testing.T, path string) [][]word {
	t.Helper()
	html := string(run(t, "pdftotext", "-bbox", path, "-"))
	var pages [][]word
	for _, p := range strings.Split(html, "<page ")[1:] {
		var ws []word
		for _, m := range wordBox.FindAllStringSubmatch(p, -1) {
			f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
			ws = append(ws, word{f(m[1]), f(m[2]), f(m[3]), f(m[4]), m[5]})
		}
		pages = append(pages, ws)
	}
	return pages
}

// rasterise100 renders the pages at 96 dpi (100 % on a screen) and
// returns the PNGs' paths in page order: every page when
// KYCD_TEST_ARTIFACTS keeps them for people to look at, else the first
// (the banner's check needs only it; rendering them all is most of the
// test's time).
func rasterise100(t *testing.T, path string, n int) []string {
	t.Helper()
	prefix := strings.TrimSuffix(path, ".pdf") + "-96dpi"
	args := []string{"-r", "96", "-png"}
	if os.Getenv("KYCD_TEST_ARTIFACTS") == "" {
		args, n = append(args, "-f", "1", "-l", "1"), 1
	}
	run(t, "pdftoppm", append(args, path, prefix)...)
	matches, err := filepath.Glob(prefix + "-*.png")
	if err != nil || len(matches) != n {
		t.Fatalf("pdftoppm made %v (%v), want %d pages", matches, err, n)
	}
	sort.Strings(matches) // -1…-9 or -01…-12: zero-padded to the same width
	for _, m := range matches {
		t.Logf("PNG %s", m)
	}
	return matches
}

const pt = 25.4 / 72 // millimetres per point

// A heading's words are taller than any body text's: sections are 12 pt,
// subsections 10 pt and the banner's headline 13 pt; the body is at most
// 9.5 pt (pdftotext's word boxes are about 1.15 × the font size).
const headingHeight = 11.3

// checkNoOrphanHeading fails when the last line of a page's body is a
// heading: the part it titles starts on the next page.
func checkNoOrphanHeading(t *testing.T, page int, ws []word) {
	t.Helper()
	var body []word
	for _, w := range ws {
		// Between the header's rule (22.5 mm) and the footer's (282 mm).
		if w.y0 > 22.5/pt && w.y1 < 282/pt {
			body = append(body, w)
		}
	}
	if len(body) == 0 {
		return
	}
	last := body[0].y0
	for _, w := range body {
		last = max(last, w.y0)
	}
	var line []string
	tall := false
	for _, w := range body {
		if w.y0 > last-2 {
			line = append(line, w.text)
			tall = tall || w.height() >= headingHeight
		}
	}
	if tall {
		t.Errorf("page %d ends with the heading %q: what it titles starts on the next page", page, strings.Join(line, " "))
	}
}

// checkBannerInsideBox fails when a word of page 1's summary banner lies
// outside its coloured box. The banner's words are the tall ones (its
// headline and text, 13 and 9.5 pt) after the "Summary" heading; around
// each, just outside its ends, the rendered page must show the box's fill,
// not the white page.
func checkBannerInsideBox(t *testing.T, ws []word, pngPath string) {
	t.Helper()
	img := readPNG(t, pngPath)
	start := -1
	for i, w := range ws {
		if w.text == "Summary" {
			start = i + 1
			break
		}
	}
	if start < 0 {
		t.Fatal("page 1 has no Summary heading")
	}
	var banner []word
	for _, w := range ws[start:] {
		if w.height() < 10 {
			break // the facts table under the banner
		}
		banner = append(banner, w)
	}
	if len(banner) == 0 {
		t.Fatal("no banner under the Summary heading")
	}
	const px = 96.0 / 72
	for _, w := range banner {
		for _, p := range [][2]float64{{w.x0 - 1.5, w.y0 + 1}, {w.x1 + 1.5, w.y0 + 1}, {w.x0 - 1.5, w.y1 - 1}, {w.x1 + 1.5, w.y1 - 1}} {
			x, y := int(p[0]*px), int(p[1]*px)
			if white(img, x, y) {
				t.Errorf("banner word %q (x %.0f–%.0f mm, y %.0f–%.0f mm) is outside its box: the page is white at (%d, %d) px",
					w.text, w.x0*pt, w.x1*pt, w.y0*pt, w.y1*pt, x, y)
				break
			}
		}
	}
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// white reports whether the pixel is the bare page (every channel above
// 250 of 255); the banners' fills are at most 242 in some channel.
func white(img image.Image, x, y int) bool {
	if !(image.Point{x, y}.In(img.Bounds())) {
		return true
	}
	r, g, b, _ := img.At(x, y).RGBA()
	return r>>8 > 250 && g>>8 > 250 && b>>8 > 250
}

// awaitingKYC is the typical request before a reviewer decided it.
func awaitingKYC(t *testing.T) *KYCReport {
	rep := typicalKYC(t)
	rep.Request.Status, rep.Request.Decision, rep.Request.DecidedAt = "awaiting_review", "pending", nil
	rep.Request.DecisionReason = ptr("Possible politically exposed person: Anna Maria Schmitt (0.91).")
	rep.ReviewerNotes = []ReviewerNote{}
	rep.Timeline = rep.Timeline[:6]
	if err := rep.seal(); err != nil {
		t.Fatal(err)
	}
	return rep
}

// sandboxKYC is a sandbox request decided by the sandbox triggers, with
// the reason the decision engine gives it.
func sandboxKYC(t *testing.T) *KYCReport {
	rep := scriptsKYC(t)
	rep.Request.Status, rep.Request.Decision = "awaiting_review", "pending"
	rep.Request.DecisionReason = ptr("Sandbox test decision (review): sandbox makes no real decisions; the signals show what live would compute (review).")
	if err := rep.seal(); err != nil {
		t.Fatal(err)
	}
	return rep
}

const (
	longFirst = "Maria-Fernanda Guadalupe Alejandra Concepción"
	longLast  = "de los Santos Montenegro-Villavicencio y Echeverría-Zubizarreta"
)

// longNamesKYC is a sandbox request of an applicant and a reviewer with
// long names and a long e-mail address.
func longNamesKYC(t *testing.T) *KYCReport {
	rep := sandboxKYC(t)
	rep.Applicant.FirstName, rep.Applicant.LastName = longFirst, longLast
	rep.Applicant.Email = ptr("maria-fernanda.delossantos.montenegro-villavicencio@correo-electronico.example")
	email := "compliance.officer.second-line@nordbank-payments.example"
	rep.ReviewerNotes[0].By = &Person{Type: "user", ID: "usr_compliance_jdoe", Name: "Johanna Elisabeth von Hohenzollern-Sigmaringen", Email: &email}
	m := match(0, longFirst+" "+longLast, "M. F. de los Santos Montenegro", 0.873)
	rep.Screenings[1].Matches = []kyc.MatchRecord{m}
	if err := rep.seal(); err != nil {
		t.Fatal(err)
	}
	return rep
}

// decidedAML is the monitored check with its matches decided: every one
// (all) or the best only. The reviewer is a user; the second decision
// was an API key's.
func decidedAML(sandbox, all bool) *AMLReport {
	rep := amlWithHistory()
	if sandbox {
		rep.Check.Environment = kyc.Sandbox
	}
	email := "jane.roe@nordbank.example"
	key := "Compliance back end"
	rep.Deciders = map[string]*Person{
		"usr_01JNZJANE": {Type: "user", ID: "usr_01JNZJANE", Name: "Jane Roe", Email: &email},
		"key_01JNZKEY":  {Type: "api_key", ID: "key_01JNZKEY", Key: &key},
	}
	at := kyc.FormatTime(t0.Add(29*24*time.Hour + 30*time.Minute))
	n := 0
	for i := range rep.Check.Results {
		for j := range rep.Check.Results[i].Matches {
			if !all && n > 0 {
				continue
			}
			d, actor, note := kyc.MatchFalsePositive, "usr_01JNZJANE", "Different person: born 1964, not 1971; listed as Austrian only."
			if n == 1 {
				actor, note = "key_01JNZKEY", "Checked against the customer file: a different person."
			}
			rep.Check.Results[i].Matches[j].Review = &kyc.MatchReview{ID: "amd_" + strconv.Itoa(n), Decision: d, Note: note,
				ActorType: kyc.ActorUser, ActorID: actor, DecidedAt: at, Current: true, Changes: []string{}}
			n++
		}
	}
	if all {
		rep.Check.ReviewStatus = kyc.AMLReviewResolved
		resolved := t0.Add(29*24*time.Hour + 30*time.Minute)
		rep.Check.ResolvedAt = &resolved
	} else {
		rep.Check.ReviewStatus = kyc.AMLReviewPending
	}
	return rep
}

// noMatchAML is a check no list had a match for.
func noMatchAML(sandbox bool) *AMLReport {
	rep := amlWithHistory()
	c := rep.Check
	if sandbox {
		c.Environment = kyc.Sandbox
	}
	c.Status, c.MatchCount, c.RiskLevel = kyc.AMLNoMatch, 0, kyc.Risk(kyc.RiskLow)
	for i := range c.Results {
		r := &c.Results[i]
		r.Status, r.MatchCount, r.Matches, r.RiskLevel, r.Error = kyc.ListClear, 0, []kyc.MatchRecord{}, kyc.Risk(kyc.RiskLow), nil
	}
	c.History = c.History[:3]
	return rep
}

// longNamesAML is a sandbox check of a subject with a long name whose
// matches have long names.
func longNamesAML() *AMLReport {
	rep := amlWithHistory()
	c := rep.Check
	c.Environment = kyc.Sandbox
	c.FirstName, c.LastName = longFirst, longLast
	c.Results[1].Matches[0] = match(1, longFirst+" "+longLast, "M. F. G. A. C. de los Santos Montenegro-Villavicencio", 0.912)
	return rep
}

// TestNoOrphanHeadingSweep: the typical request with 0 to 14 more
// findings, which move every later heading down the page by a row at a
// time: none is ever left alone at the foot of a page (the request of the
// issue ended page 2 with "Captured images").
func TestNoOrphanHeadingSweep(t *testing.T) {
	for k := range 15 {
		rep := typicalKYC(t)
		for i := range k {
			rep.Reasons = append(rep.Reasons, map[string]any{"code": "IMAGE_BLURRY", "message": "The document photo is blurry (finding " + strconv.Itoa(i) + ").",
				"signal": "image_quality", "action": "warn", "weight": 15.0})
		}
		if err := rep.seal(); err != nil {
			t.Fatal(err)
		}
		path := savePDF(t, "kyc-findings-"+strconv.Itoa(k), renderKYC(t, rep))
		if !havePoppler(t) {
			return
		}
		for i, ws := range pageWords(t, path) {
			checkNoOrphanHeading(t, i+1, ws)
		}
	}
}
