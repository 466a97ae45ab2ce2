package server

import (
	"errors"
	"strings"
	"testing"
	"time"

	"kycd/kyc"
)

// FuzzParseObject: any body yields an object or a VALIDATION_ERROR naming
// fields, never a panic or another kind of error; reading the applicant
// fields and checking them never panics either.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"firstName":"A","lastName":"B"}`, `[`, `null`, `{"metadata":{"a":[1]}}`, `{"a":1}{"b":2}`, "\xff", `{"dob":"2020-02-30","firstName":1e400}`,
		`{"a":1,"a":2}`, `{"m":{"x":[{"y":1,"y":2}]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := parseObject(b)
		if err != nil {
			var e *kyc.Error
			if !errors.As(err, &e) || e.Code != kyc.EValidation || len(e.Details) == 0 {
				t.Fatalf("parseObject(%q) = %v", b, err)
			}
			return
		}
		in := readApplicantInput(o)
		err = o.check(in.Validate(true, testNow, ""))
		var e *kyc.Error
		if err != nil && (!errors.As(err, &e) || e.Code != kyc.EValidation || len(e.Details) == 0) {
			t.Fatalf("check(%q) = %v", b, err)
		}
	})
}

var testNow = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// TestDuplicateKeys: every repeated member is named by its path; the same
// name in two objects is not a repeat.
func TestDuplicateKeys(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"b":2}`:                                 "",
		`{"a":1,"a":1}`:                                 "a",
		`{"a":{"b":1},"c":{"b":2}}`:                     "",
		`{"a":{"b":1,"b":2}}`:                           "a.b",
		`{"l":[{"x":1},{"x":2,"y":[1,{"z":0,"z":1}]}]}`: "l[1].y[1].z",
		`[{"a":1,"a":2}]`:                               "[0].a",
		`{"a":1,"\u0061":2,"a":3}`:                      "a",
		`{"s":"{\"a\":1,\"a\":2}"}`:                     "",
		`{"a":[1,2,3],"b":{},"a":[]}`:                   "a",
		`{"a":1,"a":`:                                   "a",
		`not json {"a":1,"a":2}`:                        "",
	} {
		var got []string
		for _, fe := range duplicateKeys([]byte(in)) {
			got = append(got, fe.Field)
		}
		if g := strings.Join(got, ","); g != want {
			t.Errorf("duplicateKeys(%s) = %q, want %q", in, g, want)
		}
	}
}
