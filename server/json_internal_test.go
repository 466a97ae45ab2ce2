package server

import (
	"errors"
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
