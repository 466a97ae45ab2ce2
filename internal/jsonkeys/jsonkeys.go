// Package jsonkeys finds repeated object members in JSON text, which
// encoding/json accepts silently (the last one wins).
package jsonkeys

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"kycd/kyc"
)

// Duplicates names every object member that appears twice in the JSON
// text b, at any depth ("metadata.a", "applicant.firstName"; array elements
// as "list[2].name"), compared after unescaping, so "a" and "\u0061" are
// the same key. encoding/json keeps the last of them silently, so a body
// could say one thing to a client's validator and another to kycd.
//
// b must be valid JSON (callers check first, so that a syntax error is
// reported as such): this is a small scanner of its own, which follows the
// structure and does not check it, rather than json.Decoder.Token, which
// allocated for every token and cost more than the parse itself.
func Duplicates(b []byte) []kyc.FieldError { return scan(b, false) }

// Problems is Duplicates, and also names every key or string value that
// holds a NUL character (written \u0000: JSON text cannot hold it raw).
// No database engine stores NUL in text alike (PostgreSQL refuses it with
// an error), so a request body with one is refused before it reaches one.
func Problems(b []byte) []kyc.FieldError { return scan(b, true) }

const repeated = "appears more than once in the object"

func scan(b []byte, nul bool) []kyc.FieldError {
	if !nul && bytes.IndexByte(b, '{') < 0 {
		return nil
	}
	type frame struct {
		object bool
		path   string   // of this object ("…." for members) or array
		keys   []string // objects: the members seen
		member string   // objects: the member whose value comes next
		index  int      // arrays: the index of the current element
	}
	var stack []*frame
	var dups []kyc.FieldError
	wantKey := false
	// childPath is the path of the value starting now in the top frame.
	childPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.object {
			return f.path + f.member
		}
		return f.path + "[" + strconv.Itoa(f.index) + "]"
	}
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case ' ', '\t', '\r', '\n', ':':
			i++
		case '{':
			p := childPath()
			if len(stack) > 0 || p != "" {
				p += "."
			}
			stack = append(stack, &frame{object: true, path: p})
			wantKey = true
			i++
		case '[':
			stack = append(stack, &frame{path: childPath()})
			wantKey = false
			i++
		case '}', ']':
			if len(stack) == 0 {
				return sortFields(dups)
			}
			stack = stack[:len(stack)-1]
			wantKey = false
			i++
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].object {
					wantKey = true
				} else {
					stack[n-1].index++
				}
			}
			i++
		case '"':
			end, escaped := scanString(b, i)
			if end < 0 {
				return sortFields(dups) // unterminated: the parser says so
			}
			isKey := len(stack) > 0 && stack[len(stack)-1].object && wantKey
			if nul && escaped && bytes.Contains(b[i:end+1], []byte(`\u0000`)) {
				var v string
				if json.Unmarshal(b[i:end+1], &v) == nil && strings.IndexByte(v, 0) >= 0 {
					field := childPath()
					if isKey {
						field = stack[len(stack)-1].path + strings.ReplaceAll(v, "\x00", "")
					}
					if field == "" {
						field = "body"
					}
					dups = append(dups, kyc.FieldError{Field: field, Message: "must not contain NUL characters"})
				}
			}
			if isKey {
				f := stack[len(stack)-1]
				key := string(b[i+1 : end])
				// encoding/json decodes invalid UTF-8 as U+FFFD, so two
				// keys of different invalid bytes are one member to it.
				if escaped || !utf8.ValidString(key) {
					if err := json.Unmarshal(b[i:end+1], &key); err != nil {
						return sortFields(dups)
					}
				}
				if slices.Contains(f.keys, key) {
					if field := f.path + key; !slices.ContainsFunc(dups, func(d kyc.FieldError) bool { return d.Field == field && d.Message == repeated }) {
						dups = append(dups, kyc.FieldError{Field: field, Message: repeated})
					}
				} else {
					f.keys = append(f.keys, key)
				}
				f.member, wantKey = key, false
			}
			i = end + 1
		default: // a number, true, false or null: up to the next delimiter
			for i < len(b) && !jsonDelimiter(b[i]) {
				i++
			}
		}
	}
	return sortFields(dups)
}

func jsonDelimiter(c byte) bool {
	switch c {
	case ',', ':', '{', '}', '[', ']', '"', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// scanString returns the index of the quote that closes the string opening
// at b[start], and whether it holds an escape; -1 when it is not closed.
func scanString(b []byte, start int) (end int, escaped bool) {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			escaped = true
			i++
		case '"':
			return i, escaped
		}
	}
	return -1, escaped
}

func sortFields(fe []kyc.FieldError) []kyc.FieldError {
	sort.SliceStable(fe, func(i, j int) bool { return fe[i].Field < fe[j].Field })
	return fe
}
