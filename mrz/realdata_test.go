package mrz

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kycd/internal/realdata"
)

// The shared data folder's images/mrz_vectors.json and
// images/doc_mrz_groundtruth.json (their structure: images/SOURCES.md).
type (
	vectorFile struct {
		Vectors []struct {
			ID            string            `json:"id"`
			Title         string            `json:"title"`
			Lines         []string          `json:"lines"`
			ExpectedValid *bool             `json:"expected_valid"` // null: an OCR-garbled copy of another vector
			Fields        map[string]string `json:"fields"`
			Recomputed    struct {
				Format string    `json:"format"`
				Checks []gtCheck `json:"checks"`
			} `json:"recomputed"`
		} `json:"vectors"`
		CheckDigitVectors []struct {
			Input    string `json:"input"`
			Expected string `json:"expected"`
		} `json:"check_digit_vectors"`
	}
	groundTruth struct {
		Image     string    `json:"image"`
		MRZ       []string  `json:"mrz"`
		Format    string    `json:"format"`
		Validates bool      `json:"validates"`
		Checks    []gtCheck `json:"checks"`
	}
	// gtCheck is the collector's own check-digit recomputation. Result is
	// "OK", "empty-ok" or "FAIL(expected N)".
	gtCheck struct {
		Field   string `json:"field"`
		Data    string `json:"data"`
		Printed string `json:"printed"`
		Result  string `json:"result"`
	}
)

// Vectors this package does not read, on purpose. Parse must refuse them
// as ELayout.
var outOfScope = map[string]string{
	"CH-DL-01":  "Swiss driving licence: national 9/30/30 layout without check digits",
	"FRA-DL-01": "French driving licence: national 1-line layout",
}

// Vectors whose printed check digit verifies only under an issuer's
// deviation from ICAO, which Parse accepts for that issuer (see
// reader.document): the collector's recomputation, plain ICAO, fails it.
var issuerQuirks = map[string]string{
	"TD1-12": "Belgian card: document-number check digit over the number with its '<'",
}

// Documents the collectors mark as validating whose MRZ breaks the ICAO
// grammar: Parse must refuse them as ECharacter.
var nonConforming = map[string]string{
	"doc_2x36_rou_id_specimen.jpg": `nationality "132": digits where ICAO 9303-3 allows only letters (the collector notes it too)`,
}

// Vector fields the collectors got wrong, with the evidence. The test
// skips them (and logs that it does).
var fieldErrata = map[string]string{
	"TD1-20 optional1": `"12902968000000" starts with the document-number check digit at position 15 ` +
		`(the collector's own recomputation reads "955555546" check digit "1"); the optional data is the ` +
		`13-digit Serbian personal number "2902968000000", which encodes the birth date 29.02.1968`,
}

// formats maps the collectors' format names to ours.
var formats = map[string]Format{"TD1": TD1, "TD2": TD2, "TD3": TD3, "MRV-A": MRVA, "MRV-B": MRVB, "FRA-ID-1994": FRID}

// tally counts outcomes per format for the summary.
type tally map[string]map[string]int

func (t tally) add(format, outcome string) {
	if t[format] == nil {
		t[format] = map[string]int{}
	}
	t[format][outcome]++
}

func (t tally) log(tb testing.TB, title string) {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range t {
			if !yield(k) {
				return
			}
		}
	})
	for _, f := range keys {
		var parts []string
		for _, o := range []string{"valid", "invalid", "error", "corrected", "out of scope", "not ICAO"} {
			if n := t[f][o]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, o))
			}
		}
		tb.Logf("%s %-6s %s", title, f, strings.Join(parts, ", "))
	}
}

func readJSON(t *testing.T, rel string, v any) {
	t.Helper()
	b, err := os.ReadFile(realdata.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

// TestVectors: every valid vector parses and verifies, with the fields and
// check digits the collectors give; every corrupted one is refused or
// fails a check digit, the one the collectors name; every OCR-garbled one
// reads as the vector it garbles.
func TestVectors(t *testing.T) {
	var file vectorFile
	readJSON(t, "images/mrz_vectors.json", &file)
	if len(file.Vectors) < 50 {
		t.Fatalf("%d vectors, want the whole set", len(file.Vectors))
	}
	byID := map[string][]string{}
	for _, v := range file.Vectors {
		byID[v.ID] = v.Lines
	}
	sum := tally{}
	garbles := regexp.MustCompile(`(?:autocorrect to|yield) ([A-Z0-9-]+)`)
	for _, v := range file.Vectors {
		t.Run(v.ID, func(t *testing.T) {
			d, err := ParseLines(v.Lines, ref)
			if why, ok := outOfScope[v.ID]; ok {
				if ErrorCode(err) != ELayout {
					t.Fatalf("out of scope (%s): Parse = %+v, %v; want an ELayout error", why, d, err)
				}
				sum.add("other", "out of scope")
				return
			}
			if v.ExpectedValid == nil {
				m := garbles.FindStringSubmatch(v.Title)
				if m == nil || byID[m[1]] == nil {
					t.Fatalf("cannot tell which vector %q garbles", v.Title)
				}
				want, err2 := ParseLines(byID[m[1]], ref)
				if err != nil || err2 != nil || !d.Valid {
					t.Fatalf("Parse = %+v, %v (of %s: %v)", d, err, m[1], err2)
				}
				if !reflect.DeepEqual(fields(d), fields(want)) || !reflect.DeepEqual(d.Checks, want.Checks) {
					t.Errorf("read as %+v\nwant %s: %+v", d, m[1], want)
				}
				sum.add(string(d.Format), "corrected")
				return
			}
			if !*v.ExpectedValid && err != nil {
				t.Logf("refused: %v", err)
				sum.add(v.Recomputed.Format, "error")
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d.Valid != *v.ExpectedValid {
				t.Errorf("Valid = %v, want %v: %+v", d.Valid, *v.ExpectedValid, d.Checks)
			}
			if want := formats[v.Recomputed.Format]; d.Format != want {
				t.Errorf("Format = %s, want %s (%s)", d.Format, want, v.Recomputed.Format)
			}
			compareChecks(t, d.Checks, v.Recomputed.Checks, issuerQuirks[v.ID] != "")
			compareFields(t, v.ID, d, v.Fields)
			sum.add(string(d.Format), map[bool]string{true: "valid", false: "invalid"}[d.Valid])
		})
	}
	sum.log(t, "mrz_vectors.json:")

	for _, c := range file.CheckDigitVectors {
		if got := CheckDigit(c.Input); string(got) != c.Expected {
			t.Errorf("CheckDigit(%q) = %c, want %s", c.Input, got, c.Expected)
		}
	}
	t.Logf("mrz_vectors.json: %d check-digit vectors", len(file.CheckDigitVectors))
}

// TestDocumentGroundTruth: the MRZ printed on each document image of the
// shared folder parses in its format; those that validate verify, those
// that do not are refused or fail a check digit; every check digit agrees
// with the collector's recomputation.
func TestDocumentGroundTruth(t *testing.T) {
	var docs []groundTruth
	readJSON(t, "images/doc_mrz_groundtruth.json", &docs)
	if len(docs) < 40 {
		t.Fatalf("%d documents, want the whole set", len(docs))
	}
	sum := tally{}
	for _, g := range docs {
		t.Run(g.Image, func(t *testing.T) {
			d, err := ParseLines(g.MRZ, ref)
			if why, ok := nonConforming[g.Image]; ok {
				if ErrorCode(err) != ECharacter {
					t.Fatalf("not ICAO (%s): Parse = %+v, %v; want an ECharacter error", why, d, err)
				}
				t.Logf("refused: %v", err)
				sum.add(g.Format, "not ICAO")
				return
			}
			if !g.Validates && err != nil {
				t.Logf("refused: %v", err)
				sum.add(g.Format, "error")
				return
			}
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d.Valid != g.Validates {
				t.Errorf("Valid = %v, want %v: %+v", d.Valid, g.Validates, d.Checks)
			}
			if want := formats[g.Format]; d.Format != want {
				t.Errorf("Format = %s, want %s (%s)", d.Format, want, g.Format)
			}
			compareChecks(t, d.Checks, g.Checks, false)
			sum.add(string(d.Format), map[bool]string{true: "valid", false: "invalid"}[d.Valid])
		})
	}
	sum.log(t, "doc_mrz_groundtruth.json:")
}

// compareChecks holds Parse's check digits against a recomputation. With
// quirk, a check may cover other data than ICAO's (an issuer's deviation)
// and then must verify.
func compareChecks(t *testing.T, got []Check, want []gtCheck, quirk bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d checks %+v, want %d %+v", len(got), got, len(want), want)
	}
	for i, w := range want {
		g := got[i]
		field, _, _ := strings.Cut(w.Field, "(") // "document_number(issue+dept+office+seq)"
		if g.Field != field || string(g.Found) != w.Printed {
			t.Errorf("check %d = %s %q found %c, want %s %q found %s", i, g.Field, g.Data, g.Found, w.Field, w.Data, w.Printed)
			continue
		}
		if g.Data != w.Data {
			if !quirk || !g.OK {
				t.Errorf("%s covers %q, want %q", g.Field, g.Data, w.Data)
			}
			continue
		}
		wantOK := w.Result == "OK" || w.Result == "empty-ok"
		wantExpected := w.Printed
		if e, ok := strings.CutPrefix(w.Result, "FAIL(expected "); ok {
			wantExpected = strings.TrimSuffix(e, ")")
		}
		if g.OK != wantOK || (w.Result != "empty-ok" && string(g.Expected) != wantExpected) {
			t.Errorf("%s %q: expected %c, OK %v; want %s", g.Field, g.Data, g.Expected, g.OK, w.Result)
		}
	}
}

// compareFields holds a Document against the fields a vector gives.
// Values may carry a note after the first space ("0 (must be 1)") when
// they are check digits.
func compareFields(t *testing.T, id string, d *Document, want map[string]string) {
	t.Helper()
	found := func(field string) string {
		for _, c := range d.Checks {
			if c.Field == field {
				return string(c.Found)
			}
		}
		return "(no check)"
	}
	for k, w := range want {
		if why, ok := fieldErrata[id+" "+k]; ok {
			t.Logf("%s = %q not compared: %s", k, w, why)
			continue
		}
		var got string
		switch k {
		case "document_code":
			got = d.DocumentCode
		case "issuing_state":
			got = d.IssuingState
		case "nationality":
			got = d.Nationality
		case "surname":
			got = d.Surname
		case "given_names":
			got = d.GivenNames
		case "document_number":
			got = d.DocumentNumber
		case "sex":
			got = d.Sex
		case "birth_date":
			got = yymmdd(d.BirthDate)
		case "expiry_date":
			got = yymmdd(d.ExpiryDate)
		case "personal_number", "optional_data", "optional1", "administrative_code":
			// The collectors write a '<' inside optional data as is in some
			// vectors ("121282<88882") and as a space in others
			// ("010195 112X"); Parse keeps it.
			got, w = d.OptionalData1, strings.ReplaceAll(w, " ", "<")
		case "optional2":
			got = d.OptionalData2
		case "issue_date": // FRID: the document number starts with the issue year and month…
			got = d.DocumentNumber[:4]
		case "office": // …then the office code
			got = d.DocumentNumber[4:7]
		case "document_number_cd", "birth_date_cd", "expiry_date_cd", "personal_number_cd", "composite_cd":
			field := strings.TrimSuffix(strings.TrimSuffix(k, "_cd"), "_date") + "_date"
			if !strings.HasSuffix(k, "_date_cd") {
				field = strings.TrimSuffix(k, "_cd")
			}
			got, w = found(field), strings.Fields(w)[0]
		case "valid_check_digits": // "[number, birth, expiry, composite] = [True, True, True, False]"
			_, list, _ := strings.Cut(w, "= ")
			var ok []string
			for _, c := range d.Checks {
				ok = append(ok, map[bool]string{true: "True", false: "False"}[c.OK])
			}
			got = "[" + strings.Join(ok, ", ") + "]"
			w = list
		default:
			t.Errorf("field %q = %q: the test does not know it", k, w)
			continue
		}
		if got != w {
			t.Errorf("%s = %q, want %q", k, got, w)
		}
	}
}

// yymmdd turns "1974-08-12" back into the printed "740812".
func yymmdd(date string) string {
	if len(date) != len("1974-08-12") {
		return date
	}
	return date[2:4] + date[5:7] + date[8:10]
}
