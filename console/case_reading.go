package console

import (
	"fmt"
	"strings"

	"kycd/decision"
	"kycd/kyc"
)

// readingView is what the engine read from one document image, as read:
// the reviewer sees the raw zone lines or barcode text, not only the
// fields the engine made of them.
type readingView struct {
	Label      string // the image
	Source     string // "Machine-readable zone (TD3)", "PDF417 barcode (AAMVA)"
	Raw        string // as recorded: the number masked to its last four
	Confidence string
	Fields     string // the fields the decision took from it
	// Address is the holder's address the engine read from a licence's
	// barcode, whole (kept sealed, apart from the raw text, where the
	// street is starred out), as envelope lines.
	Address []string
}

// readings lists, for each document image the engine read something
// from, what it read (decision.Readings), and the address read (nil:
// none) on its image's reading.
func readings(pr map[string]any, caps []kyc.Capture, addr *kyc.DocumentAddress) []readingView {
	all := decision.Readings(pr)
	var out []readingView
	for _, c := range caps {
		r, ok := all[c.ID]
		if !ok {
			continue
		}
		v := readingView{Label: captureLabel(c), Fields: "none (the reading was not used)"}
		var fields []string
		for _, f := range listOf(r["fields"]) {
			fields = append(fields, strOf(f))
		}
		if len(fields) > 0 {
			v.Fields = strings.Join(fields, ", ")
		}
		switch r["source"] {
		case "mrz":
			v.Source = "Machine-readable zone (" + strOf(r["format"]) + ")"
			var lines []string
			for _, l := range listOf(r["raw"]) {
				lines = append(lines, strOf(l))
			}
			v.Raw = strings.Join(lines, "\n")
			v.Confidence = fmt.Sprintf("least sure character %v (each character's probability is in the API and report.json)", r["minConfidence"])
		case "pdf417_aamva":
			v.Source = "PDF417 barcode (AAMVA DL/ID)"
			v.Raw = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\x1e", "").Replace(strOf(r["raw"]))
			v.Confidence = fmt.Sprintf("error correction level %v, %v codewords corrected, %v erased", r["ecLevel"], r["codewordsCorrected"], r["codewordsErased"])
			if len(fields) > 0 {
				v.Confidence += "; each field taken validated"
			}
		default:
			continue
		}
		if addr != nil && addr.CaptureID == c.ID {
			v.Address = addr.Lines()
		}
		out = append(out, v)
	}
	return out
}
