package jsonkeys

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

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
	} {
		var got []string
		for _, fe := range Duplicates([]byte(in)) {
			got = append(got, fe.Field)
		}
		if g := strings.Join(got, ","); g != want {
			t.Errorf("Duplicates(%s) = %q, want %q", in, g, want)
		}
	}
}

// BenchmarkDuplicateKeys: the repeated-member check on a typical applicant
// body (it runs on every JSON body before parsing).
func BenchmarkDuplicateKeys(b *testing.B) {
	body := []byte(`{"firstName":"Ada","lastName":"Lovelace","email":"ada@example.com","phone":"+447700900123","dob":"1990-12-10","country":"GB","externalRef":"c-42","metadata":{"plan":"gold","n":12345678901234567890}}`)
	for b.Loop() {
		if Duplicates(body) != nil {
			b.Fatal("duplicates")
		}
	}
}

// FuzzDuplicateKeys: on valid JSON, the scanner names exactly what a
// reference built on json.Decoder.Token names.
func FuzzDuplicateKeys(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `[{"a":1},{"a":{"b":[1,{"c":2,"c":3}],"b":0}}]`, `{"\u0061":1,"a":2}`, `{"":1,"":2}`,
		`{"a":"}\"{","a":"x"}`, `{"x":[[],[{}],{"y":{"y":1}}],"z":true,"z":null}`,
		"{\"\xff\":1,\"\xfe\":2}"} { // invalid UTF-8: both keys are U+FFFD to encoding/json
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var got, want []string
		for _, fe := range Duplicates(b) {
			got = append(got, fe.Field)
		}
		want = referenceDuplicates(b)
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("Duplicates(%s) = %q, reference %q", b, got, want)
		}
	})
}

// referenceDuplicates is Duplicates written the slow, obvious way.
func referenceDuplicates(b []byte) []string {
	d := json.NewDecoder(bytes.NewReader(b))
	var out []string
	var walk func(path string) bool
	walk = func(path string) bool {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			prefix := path
			if prefix != "" || path != "" {
				prefix += "."
			}
			seen := map[string]bool{}
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return false
				}
				key := k.(string)
				if seen[key] && !slices.Contains(out, prefix+key) {
					out = append(out, prefix+key)
				}
				seen[key] = true
				if !walk(prefix + key) {
					return false
				}
			}
			_, err = d.Token()
			return err == nil
		case json.Delim('['):
			for i := 0; d.More(); i++ {
				if !walk(path + "[" + strconv.Itoa(i) + "]") {
					return false
				}
			}
			_, err = d.Token()
			return err == nil
		}
		return true
	}
	walk("")
	sort.Strings(out)
	return out
}

// TestProblemsNUL: a key or string value holding NUL (\u0000) is named by
// its path; an escaped backslash followed by "u0000" is not a NUL; and
// repeats are still found.
func TestProblemsNUL(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":"x"}`:                          "",
		`{"a":"x\u0000y"}`:                   "a",
		`{"a":"x\\u0000y"}`:                  "",
		`{"m":{"k":"\u0000"}}`:               "m.k",
		`{"m":{"k\u0000":"v"}}`:              "m.k",
		`{"l":["ok","\u0000"]}`:              "l[1]",
		`{"a":"\u0000","a":"b"}`:             "a,a",
		`"\u0000"`:                           "body",
		`{"n":1,"s":"\u00001","t":"\u0041"}`: "s",
	} {
		var got []string
		for _, fe := range Problems([]byte(in)) {
			got = append(got, fe.Field)
		}
		if g := strings.Join(got, ","); g != want {
			t.Errorf("Problems(%s) = %q, want %q", in, g, want)
		}
	}
}

// FuzzProblems: on valid JSON, Problems names a NUL exactly when the
// decoded document holds one somewhere in a string.
func FuzzProblems(f *testing.F) {
	for _, s := range []string{`{"a":"\u0000"}`, `{"a\u0000":1}`, `["\\u0000"]`, `{"a":{"b":["x","y\u0000"]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		hasNUL := false
		for _, fe := range Problems(b) {
			if fe.Message == "must not contain NUL characters" {
				hasNUL = true
			}
		}
		d := json.NewDecoder(bytes.NewReader(b))
		want := false
		for {
			tok, err := d.Token()
			if err != nil {
				break
			}
			if s, ok := tok.(string); ok && strings.IndexByte(s, 0) >= 0 {
				want = true
			}
		}
		if hasNUL != want {
			t.Fatalf("Problems(%s): NUL %v, decoded holds one: %v", b, hasNUL, want)
		}
	})
}
