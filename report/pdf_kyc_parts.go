package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"codeberg.org/go-pdf/fpdf"

	"kycd/kyc"
)

// The printed box of a thumbnail, in millimetres.
const (
	thumbBoxW = 64.0
	thumbBoxH = 48.0
	thumbGap  = 4.0
)

// captures prints each image beside its facts, then its full SHA-256 and
// capture metadata. An image that cannot be shown is replaced by a box
// saying why, so the rest of the report is still produced and the reader
// sees that an image is missing.
func (d *doc) captures(caps []CapturePart, thumbs []thumb) {
	if len(caps) == 0 {
		d.para("No images were captured.", regular, 9)
		return
	}
	for i := range caps {
		c := &caps[i]
		title := fmt.Sprintf("Image %d of %d — %s", i+1, len(caps), orNone(c.Kind))
		if c.Side != nil && *c.Side != "" {
			title += " (" + *c.Side + ")"
		}
		if c.Attempt > 1 {
			title += fmt.Sprintf(", attempt %d", c.Attempt)
		}
		facts := captureFacts(c)
		t := d.factsTable()
		d.ensure(d.captureHeight(t, facts))
		d.subsection(title)
		top := d.y()
		d.thumbnail(i, thumbs[i], top)
		d.setY(top) // the facts start level with the image
		for _, f := range facts {
			t.put(f[:], []fontStyle{bold, regular})
		}
		d.setY(max(d.y(), top+thumbBoxH) + 2)

		m := d.kvTable()
		m.kv("SHA-256", orNone(c.SHA256), true)
		for _, k := range sortedKeys(c.Metadata) {
			m.kv("Metadata: "+k, orNone(value(c.Metadata[k])), false)
		}
		readingRows(m, c.Reading)
		m.end()
	}
}

// captureFacts are what an image's card lists beside its thumbnail.
func captureFacts(c *CapturePart) [][2]string {
	return [][2]string{
		{"Capture id", c.ID}, {"Kind", orNone(c.Kind)}, {"Side", optStr(c.Side)},
		{"Document type", optStr(c.DocumentType)}, {"Country", optStr(c.Country)},
		{"Content type", orNone(c.ContentType)}, {"Dimensions", fmt.Sprintf("%d × %d px", c.Width, c.Height)},
		{"Size", strconv.Itoa(c.Size) + " bytes"}, {"Captured", orNone(c.CapturedAt)},
		{"Capture method", orNone(c.Method)},
	}
}

// factsTable is the table of an image's facts, right of its thumbnail.
func (d *doc) factsTable() *table {
	x := margin + thumbBoxW + thumbGap
	return d.tableAt(x, pageW-margin-x, "", false, col{w: 0.35, style: bold}, col{w: 0.65})
}

// captureHeight is what an image's card needs on one page: its title,
// the thumbnail and the facts beside it.
func (d *doc) captureHeight(t *table, facts [][2]string) float64 {
	factsH := 0.0
	for _, f := range facts {
		factsH += t.rowHeight(f[:], []fontStyle{bold, regular})
	}
	return subsectionKeep + max(thumbBoxH, factsH)
}

// firstCaptureHeight is the first image card's height (0 without images),
// which the "Captured images" heading keeps with it.
func (d *doc) firstCaptureHeight(caps []CapturePart) float64 {
	if len(caps) == 0 {
		return 0
	}
	return d.captureHeight(d.factsTable(), captureFacts(&caps[0]))
}

// thumbnail places image i in its box at top, keeping its aspect ratio.
func (d *doc) thumbnail(i int, th thumb, top float64) {
	f := d.f
	f.SetDrawColor(170, 170, 170)
	f.SetLineWidth(0.2)
	if th.err != nil {
		f.SetFillColor(240, 240, 240)
		f.Rect(margin, top, thumbBoxW, thumbBoxH, "FD")
		d.font(regular, 8)
		y := top + 4
		for _, l := range d.wrap("Image not shown: "+th.err.Error(), thumbBoxW-6) {
			if y+4 > top+thumbBoxH {
				break // the box is full; the message's start says what happened
			}
			d.drawLine(margin+3, y, thumbBoxW-6, 4, l, "L")
			y += 4
		}
		return
	}
	name := "capture-" + strconv.Itoa(i)
	f.RegisterImageOptionsReader(name, fpdf.ImageOptions{ImageType: "JPG"}, bytes.NewReader(th.jpg))
	w, h := thumbBoxW, thumbBoxW*float64(th.h)/float64(th.w)
	if h > thumbBoxH {
		w, h = thumbBoxH*float64(th.w)/float64(th.h), thumbBoxH
	}
	x, y := margin+(thumbBoxW-w)/2, top+(thumbBoxH-h)/2
	f.ImageOptions(name, x, y, w, h, false, fpdf.ImageOptions{ImageType: "JPG"}, 0, "")
	f.Rect(x, y, w, h, "D")
}

// kycSignals prints the signal breakdown: each check the engine ran, on
// which image, its verdict and score, and the codes of what it found.
func kycSignals(d *doc, signals []any, caps []CapturePart) error {
	kinds := map[string]string{}
	for _, c := range caps {
		kinds[c.ID] = c.Kind
		if c.Side != nil && *c.Side != "" {
			kinds[c.ID] += " " + *c.Side
		}
	}
	d.section("Signal breakdown")
	if len(signals) == 0 {
		d.para("No signals were recorded.", regular, 9)
		return nil
	}
	t := d.newTable("", true, col{head: "Signal", w: 0.16}, col{head: "Image", w: 0.16, style: mono},
		col{head: "Status", w: 0.08}, col{head: "Score", w: 0.06, align: "R"}, col{head: "Detail", w: 0.34},
		col{head: "Finding codes", w: 0.20}).continues("Signal breakdown")
	for _, s := range signals {
		m, err := object(s)
		if err != nil {
			return fmt.Errorf("signal: %w", err)
		}
		if m == nil {
			t.row(none, none, none, none, value(s), none)
			continue
		}
		img := field(m, "captureId")
		if k, ok := kinds[img]; ok {
			img += "\n" + k // which picture, without looking the id up
		}
		t.row(field(m, "name"), img, field(m, "status"), fixed(m, "score", 2), field(m, "detail"), findingCodes(m["findings"]))
	}
	t.end()
	return nil
}

// findingCodes lists a signal's finding codes, one a line.
func findingCodes(v any) string {
	items, ok := v.([]any)
	if !ok {
		return orNone(value(v)) // absent, or not the usual list: shown as is
	}
	codes := make([]string, 0, len(items))
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			codes = append(codes, field(m, "code"))
		} else {
			codes = append(codes, value(it))
		}
	}
	return list(codes, "\n")
}

// kycReasons prints the findings as the decision used them, with the
// action each led to.
func kycReasons(d *doc, reasons []any) error {
	d.section("Decision reasons")
	if len(reasons) == 0 {
		d.para("No reasons were recorded.", regular, 9)
		return nil
	}
	t := d.newTable("", true, col{head: "Code", w: 0.20}, col{head: "Message", w: 0.44}, col{head: "Signal", w: 0.16},
		col{head: "Action", w: 0.12}, col{head: "Weight", w: 0.08, align: "R"}).continues("Decision reasons")
	for _, r := range reasons {
		m, err := object(r)
		if err != nil {
			return fmt.Errorf("reason: %w", err)
		}
		if m == nil {
			t.row(none, value(r), none, none, none)
			continue
		}
		t.row(field(m, "code"), field(m, "message"), field(m, "signal"), field(m, "action"), field(m, "weight"))
	}
	t.end()
	return nil
}

// kycTimeline prints every lifecycle event, oldest first.
func kycTimeline(d *doc, events []TimelinePart) {
	d.section(fmt.Sprintf("Timeline (%d %s)", len(events), plural(len(events), "event", "events")))
	if len(events) == 0 {
		d.para("No events were recorded.", regular, 9)
		return
	}
	// Widths: a timestamp (34 mm at 7.5 pt) and the longest event type
	// (38 mm) fit on one line, so both can be read and searched whole.
	t := d.newTable("", true, col{head: "#", w: 0.04, align: "R"}, col{head: "Time", w: 0.205}, col{head: "Event", w: 0.235},
		col{head: "Status / decision", w: 0.15}, col{head: "Actor", w: 0.19}, col{head: "Reason", w: 0.17}).continues("Timeline")
	for i, e := range events {
		status := orNone(e.ToStatus)
		if e.FromStatus != nil {
			status = *e.FromStatus + " → " + status
		}
		if e.Decision != "" {
			status += "\ndecision " + e.Decision
		}
		actor := orNone(e.ActorType)
		switch {
		case e.Actor != nil:
			actor += "\n" + e.Actor.Lines()
		case e.ActorID != nil && *e.ActorID != "":
			actor += "\n" + *e.ActorID
		}
		t.row(strconv.Itoa(i+1), e.At, e.Type, status, actor, optStr(e.Reason))
	}
	t.end()
}

// kycNotes prints the reviewers' decisions with their notes.
func kycNotes(d *doc, notes []ReviewerNote) {
	d.section("Reviewer notes")
	if len(notes) == 0 {
		d.para("No reviewer notes were recorded.", regular, 9)
		return
	}
	// The reviewer's column holds a name over an e-mail address.
	t := d.newTable("", true, col{head: "Time", w: 0.205}, col{head: "Reviewer", w: 0.20}, col{head: "Decision", w: 0.10},
		col{head: "Reason codes", w: 0.22}, col{head: "Note", w: 0.275}).continues("Reviewer notes")
	for _, n := range notes {
		t.row(n.At, reviewerLines(n), orNone(n.Decision), noteCodes(n), orNone(n.Note))
	}
	t.end()
}

// readingRows prints what kycd read from a document image, as read: the
// raw zone lines or barcode text (the number masked as recorded), how
// sure the reader was, and which fields of the decision came from it.
func readingRows(t *table, r map[string]any) {
	if r == nil {
		return
	}
	fields := make([]string, 0)
	if list, ok := r["fields"].([]any); ok {
		for _, f := range list {
			fields = append(fields, text(f))
		}
	} else if list, ok := r["fields"].([]string); ok {
		fields = list
	}
	taken := "none (the reading was not used)"
	if len(fields) > 0 {
		taken = strings.Join(fields, ", ")
	}
	switch r["source"] {
	case "mrz":
		t.kv("Read: zone ("+text(r["format"])+")", rawText(r["raw"]), true)
		t.kv("Read: confidence", "least sure character "+text(r["minConfidence"])+" (each character's probability is in report.json)", false)
	case "pdf417_aamva":
		t.kv("Read: barcode text", rawText(r["raw"]), true)
		t.kv("Read: confidence", "PDF417 level "+text(r["ecLevel"])+", "+text(r["codewordsCorrected"])+" codewords corrected, "+
			text(r["codewordsErased"])+" erased"+map[bool]string{true: "; each field taken validated", false: ""}[len(fields) > 0], false)
	default:
		return
	}
	t.kv("Read: fields taken", taken, false)
	if a, ok := r["address"].(map[string]any); ok {
		addr := kyc.DocumentAddress{Street: text(a["street"]), City: text(a["city"]), State: text(a["state"]),
			PostalCode: text(a["postalCode"]), Country: text(a["country"])}
		if s, ok := a["street2"].(string); ok {
			addr.Street2 = s
		}
		t.kv("Read: address", strings.Join(addr.Lines(), "\n"), false)
	}
}

// rawText is a reading's raw text: lines joined by line breaks, the
// AAMVA separators shown as line breaks too.
func rawText(v any) string {
	switch raw := v.(type) {
	case []any:
		lines := make([]string, len(raw))
		for i, l := range raw {
			lines[i] = text(l)
		}
		return strings.Join(lines, "\n")
	case []string:
		return strings.Join(raw, "\n")
	case string:
		return strings.NewReplacer("\r\n", "\n", "\r", "\n", "\x1e", "").Replace(raw)
	}
	return none
}

// noteCodes are a decision's reason codes, one a line.
func noteCodes(n ReviewerNote) string {
	if len(n.ReasonCodes) > 0 {
		return strings.Join(n.ReasonCodes, "\n")
	}
	return optStr(n.ReasonCode)
}
