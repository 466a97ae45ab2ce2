package decision

import (
	"math"
	"regexp"

	"kycd/mrz"
	"kycd/mrz/ocr"
)

// What the engine read, as read: for each document capture, the raw MRZ
// lines or the raw barcode text, how sure the reader was of each part,
// and which fields of the decision came from it, so that an auditor sees
// what the server read and not only its interpretation.
//
// processingResult is stored in clear (document details are encrypted at
// rest), so the raw text is recorded as the interpreted fields are: the
// document number keeps its last four characters (the report cannot
// print more, whatever its personal-data rule), and a barcode's street
// address is starred out, character for character so that the AAMVA
// subfile offsets still hold.

// mrzFields are the fields an MRZ read gives the decision.
var mrzFields = []string{"documentCode", "issuingState", "surname", "givenNames", "documentNumber", "nationality", "dateOfBirth", "sex", "expiryDate"}

// numberSpans are where the document number sits in each format: line,
// first and last column (exclusive). A TD1 number longer than nine
// characters goes on in the optional data (ICAO 9303-5 §4.2.2), which is
// masked with it.
var numberSpans = map[mrz.Format][][3]int{
	mrz.TD1: {{0, 5, 14}, {0, 15, 30}}, mrz.TD2: {{1, 0, 9}}, mrz.TD3: {{1, 0, 9}},
	mrz.MRVA: {{1, 0, 9}}, mrz.MRVB: {{1, 0, 9}}, mrz.FRID: {{1, 0, 12}},
}

// maskRuns stars out the characters of s at positions idx, except the
// last keep of them.
func maskRuns(s []byte, idx []int, keep int) {
	for i, p := range idx {
		if i < len(idx)-keep {
			s[p] = '*'
		}
	}
}

// rawMRZ is the zone as read, the number masked.
func rawMRZ(r *ocr.Result) []string {
	lines := make([][]byte, len(r.Lines))
	for i, l := range r.Lines {
		lines[i] = []byte(l)
	}
	var idx [][2]int
	spans := numberSpans[r.Format]
	if len(spans) == 2 && (len(lines[0]) < 15 || lines[0][14] != '<') {
		spans = spans[:1] // the number fits its field
	}
	for _, sp := range spans {
		if sp[0] >= len(lines) {
			continue
		}
		for c := sp[1]; c < min(sp[2], len(lines[sp[0]])); c++ {
			if lines[sp[0]][c] != '<' {
				idx = append(idx, [2]int{sp[0], c})
			}
		}
	}
	if spans == nil {
		// A format without a known number field: nothing is recorded
		// rather than a number in clear.
		return nil
	}
	for i, p := range idx {
		if i < len(idx)-4 {
			lines[p[0]][p[1]] = '*'
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = string(l)
	}
	return out
}

// mrzReading is what the engine read from a capture's zone: nil when no
// zone was found.
func mrzReading(r *ocr.Result) map[string]any {
	if r == nil || len(r.Lines) == 0 {
		return nil
	}
	raw := rawMRZ(r)
	if raw == nil {
		return nil
	}
	conf := make([][]float64, len(r.Confidence))
	for i, l := range r.Confidence {
		conf[i] = make([]float64, len(l))
		for j, c := range l {
			conf[i][j] = math.Round(c*100) / 100
		}
	}
	m := map[string]any{"source": "mrz", "format": string(r.Format), "raw": raw, "characterConfidence": conf,
		"minConfidence": round3(r.MinConfidence), "fields": []string{}}
	if r.Document != nil && (r.Status == ocr.StatusRead || r.Status == ocr.StatusInvalid) {
		m["fields"] = mrzFields
	}
	return m
}

// aamvaElement matches one element of a DL/ID subfile: its three-letter
// ID at the start of a line, and its value.
var aamvaElement = regexp.MustCompile(`(?m)(?:^|\n|DL|ID)(DAQ|DAG|DAH)([^\n\r]*)`)

// barcodeReading is what the engine read from a capture's barcode: nil
// when none was decoded. A barcode has no per-character probability: its
// Reed–Solomon correction either restores every codeword or fails, so
// each field's confidence is that the symbol decoded (with the number of
// codewords corrected and erased) and that the parser validated the
// field's format.
func barcodeReading(b *BarcodeRead) map[string]any {
	if b == nil || b.Text == nil {
		return nil
	}
	raw := append([]byte(nil), b.Text...)
	for _, m := range aamvaElement.FindAllSubmatchIndex(raw, -1) {
		var idx []int
		for p := m[4]; p < m[5]; p++ {
			if raw[p] != ' ' {
				idx = append(idx, p)
			}
		}
		keep := 0
		if string(raw[m[2]:m[3]]) == "DAQ" {
			keep = 4
		}
		maskRuns(raw, idx, keep)
	}
	m := map[string]any{"source": "pdf417_aamva", "raw": string(raw), "ecLevel": b.ECLevel,
		"codewordsCorrected": b.Corrected, "codewordsErased": b.Erasures, "fields": []string{}}
	if c := b.Card; c != nil {
		values := [][2]string{{"familyName", c.FamilyName}, {"givenNames", c.FirstName + c.MiddleName}, {"documentNumber", c.DocumentNumber},
			{"dateOfBirth", c.DateOfBirth.String()}, {"expiryDate", c.Expiry.String()}, {"sex", c.Sex}, {"address", c.State + c.PostalCode}}
		from, conf := []string{}, map[string]string{}
		for _, v := range values {
			if v[1] != "" {
				from = append(from, v[0])
				conf[v[0]] = "validated" // decoded with every codeword corrected, and its format checked
			}
		}
		m["fields"], m["fieldConfidence"] = from, conf
	}
	return m
}

// readingOf is the record of what was read from one capture.
func readingOf(r DocumentRead) map[string]any {
	if m := barcodeReading(r.Barcode); m != nil && (r.Barcode.Card != nil || mrzReading(r.Result) == nil) {
		return m
	}
	return mrzReading(r.Result)
}
