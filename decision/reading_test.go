package decision

import (
	"strings"
	"testing"

	"kycd/aamva"
	"kycd/aamva/aamvatest"
	"kycd/kyc"
	"kycd/mrz"
	"kycd/mrz/ocr"
)

// TestRawMRZ: the zone as read is recorded with the document number
// masked to its last four characters, wherever the format puts it, a
// TD1 number's continuation in the optional data included; the rest of
// the zone is as read.
func TestRawMRZ(t *testing.T) {
	for _, c := range []struct {
		name   string
		format mrz.Format
		lines  []string
		want   []string
	}{
		{"TD3", mrz.TD3, []string{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"},
			[]string{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "*****02C36UTO7408122F1204159ZE184226B<<<<<10"}},
		{"TD3 short number", mrz.TD3, []string{"P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<", "C01X00T4<5D<<6408125F2010315<<<<<<<<<<<<<<<4"},
			[]string{"P<D<<MUSTERMANN<<ERIKA<<<<<<<<<<<<<<<<<<<<<<", "****00T4<5D<<6408125F2010315<<<<<<<<<<<<<<<4"}},
		{"TD1", mrz.TD1, []string{"I<UTOD231458907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"},
			[]string{"I<UTO*****58907<<<<<<<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"}},
		{"TD1 long number", mrz.TD1, []string{"I<UTOD23145890<AB1234<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"},
			[]string{"I<UTO*********<**1234<<<<<<<<<", "7408122F1204159UTO<<<<<<<<<<<6", "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"}},
		{"FRID", mrz.FRID, []string{"IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<", "8806923102858CORINNE<<<<<<<6512068F6"},
			[]string{"IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<", "********02858CORINNE<<<<<<<6512068F6"}},
	} {
		got := rawMRZ(&ocr.Result{Format: c.format, Lines: c.lines})
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	if got := rawMRZ(&ocr.Result{Format: "XYZ", Lines: []string{"ABC"}}); got != nil {
		t.Errorf("unknown format recorded %q", got)
	}
}

// TestMRZReading: the record of a zone read carries the raw lines, one
// confidence per character in the lines' shape, and the fields taken
// from it; a zone not read with confidence gives no fields.
func TestMRZReading(t *testing.T) {
	lines := []string{"P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"}
	conf := [][]float64{make([]float64, 44), make([]float64, 44)}
	for i := range conf {
		for j := range conf[i] {
			conf[i][j] = 0.987654
		}
	}
	conf[1][3] = 0.41
	r := &ocr.Result{Status: ocr.StatusRead, Format: mrz.TD3, Lines: lines, Confidence: conf, MinConfidence: 0.41, Document: &mrz.Document{}}
	m := mrzReading(r)
	c := m["characterConfidence"].([][]float64)
	if m["source"] != "mrz" || len(c) != 2 || len(c[1]) != 44 || c[1][3] != 0.41 || c[0][0] != 0.99 || m["minConfidence"] != 0.41 {
		t.Fatalf("reading: %v", m)
	}
	if f := m["fields"].([]string); len(f) != len(mrzFields) {
		t.Errorf("fields: %v", f)
	}
	r.Status, r.Document = ocr.StatusUnreadable, nil
	if f := mrzReading(r)["fields"].([]string); len(f) != 0 {
		t.Errorf("unreadable zone gave fields %v", f)
	}
	if mrzReading(&ocr.Result{Status: ocr.StatusNotFound}) != nil {
		t.Error("no zone, yet a reading")
	}
}

// TestBarcodeReading: a licence barcode is recorded as read, the number
// masked to its last four characters and the street starred out, each
// character in its place (the subfile offsets hold); every field the
// decision took from it is named, with its confidence.
func TestBarcodeReading(t *testing.T) {
	text := aamvatest.Record(10, false)
	card, err := aamva.Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	m := barcodeReading(&BarcodeRead{Status: "read", Card: card, ECLevel: 3, Corrected: 2, Text: []byte(text)})
	raw := m["raw"].(string)
	if len(raw) != len(text) || strings.Contains(raw, "T64235789") || !strings.Contains(raw, "DAQ*****5789") ||
		strings.Contains(raw, "WEST BROAD") || !strings.Contains(raw, "DAG**** **** ***** ******") {
		t.Fatalf("raw: %q", raw)
	}
	if _, err := aamva.Parse([]byte(strings.NewReplacer("*", "0").Replace(raw))); err != nil {
		t.Errorf("masked text no longer parses (offsets moved?): %v", err)
	}
	if got := strings.Join(m["fields"].([]string), ","); got != "familyName,givenNames,documentNumber,dateOfBirth,expiryDate,sex,address" {
		t.Errorf("fields: %s", got)
	}
	if m["codewordsCorrected"] != 2 || m["fieldConfidence"].(map[string]string)["documentNumber"] != "validated" {
		t.Errorf("confidence: %v", m)
	}
	// A barcode that is no licence: as read, and nothing taken from it.
	m = barcodeReading(&BarcodeRead{Status: "invalid", Text: []byte("HELLO")})
	if m["raw"] != "HELLO" || len(m["fields"].([]string)) != 0 {
		t.Errorf("invalid barcode: %v", m)
	}
}

// TestReadsCarryReading: the document_data signal records each capture's
// reading beside its status.
func TestReadsCarryReading(t *testing.T) {
	text := aamvatest.Record(10, false)
	card, _ := aamva.Parse([]byte(text))
	reads := []DocumentRead{{CaptureID: "cap_back", Result: &ocr.Result{Status: ocr.StatusNotFound},
		Barcode: &BarcodeRead{Status: "read", Card: card, Text: []byte(text)}}}
	s, _ := DocumentDataSignal(&kyc.DocumentData{DocumentType: "driving_licence", IssuingCountry: "US"}, reads,
		&kyc.Applicant{FirstName: "Michael", LastName: "Sample"}, 18, card.Issued)
	r := s.Data["reads"].([]map[string]any)[0]["reading"].(map[string]any)
	if r["source"] != "pdf417_aamva" || !strings.Contains(r["raw"].(string), "DAQ*****5789") {
		t.Fatalf("reading: %v", r)
	}
}

// FuzzReading: whatever text a barcode or a zone yields (the applicant's
// image decides it), recording it never panics, keeps its length, and
// never keeps more than the last four characters of a DAQ value.
func FuzzReading(f *testing.F) {
	f.Add(aamvatest.Record(10, false), "I<UTOD23145890<AB1234<<<<<<<<<")
	f.Add("@\n\x1e\rANSI 6360001000DLDAQ\n", "")
	f.Add("DAQ", "P<")
	f.Fuzz(func(t *testing.T, text, line string) {
		m := barcodeReading(&BarcodeRead{Status: "invalid", Text: []byte(text)})
		raw := m["raw"].(string)
		if len(raw) != len(text) {
			t.Fatalf("length %d → %d", len(text), len(raw))
		}
		for _, loc := range aamvaElement.FindAllStringSubmatchIndex(raw, -1) {
			if raw[loc[2]:loc[3]] == "DAQ" && len(strings.NewReplacer("*", "", " ", "").Replace(raw[loc[4]:loc[5]])) > 4 {
				t.Fatalf("DAQ value kept: %q", raw[loc[4]:loc[5]])
			}
		}
		for _, format := range []mrz.Format{mrz.TD1, mrz.TD2, mrz.TD3, mrz.FRID} {
			mrzReading(&ocr.Result{Status: ocr.StatusUnreadable, Format: format, Lines: []string{line, line, line}[:1+len(line)%3]})
		}
	})
}

// TestJoinAddress: the address joins its image's reading as a copy,
// leaving processingResult's own map (stored in clear) without it; an
// address of an image without a reading, or none, changes nothing.
func TestJoinAddress(t *testing.T) {
	pr := map[string]any{"signals": []any{map[string]any{"name": SigDocumentData, "data": map[string]any{"reads": []any{
		map[string]any{"captureId": "cap_back", "reading": map[string]any{"source": "pdf417_aamva", "fields": []any{"address"}}}}}}}}
	readings := Readings(pr)
	own := readings["cap_back"]
	JoinAddress(readings, nil)
	JoinAddress(readings, &kyc.DocumentAddress{Street: "1 ELSEWHERE", CaptureID: "cap_front"})
	if len(readings) != 1 || readings["cap_back"]["address"] != nil {
		t.Fatalf("joined where it does not belong: %v", readings)
	}
	JoinAddress(readings, &kyc.DocumentAddress{Street: "2300 WEST BROAD STREET", City: "RICHMOND", State: "VA",
		PostalCode: "232690000", Country: "USA", CaptureID: "cap_back"})
	a, _ := readings["cap_back"]["address"].(map[string]any)
	if a["street"] != "2300 WEST BROAD STREET" || a["postalCode"] != "232690000" || readings["cap_back"]["source"] != "pdf417_aamva" {
		t.Errorf("joined reading: %v", readings["cap_back"])
	}
	if _, leaked := own["address"]; leaked {
		t.Errorf("processingResult's own reading was changed: %v", own)
	}
}
