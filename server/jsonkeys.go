package server

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"kycd/kyc"
)

// duplicateKeys names every object member that appears twice in the JSON
// text b, at any depth ("metadata.a", "applicant.firstName"; array elements
// as "list[2].name"), compared after unescaping, so "a" and "\u0061" are
// the same key. encoding/json keeps the last of them silently, so a body
// could say one thing to a client's validator and another to kycd. Text
// that is not valid JSON gives nothing here: the parser reports it.
func duplicateKeys(b []byte) []kyc.FieldError {
	if bytes.IndexByte(b, '{') < 0 {
		return nil
	}
	type frame struct {
		object  bool
		path    string // of this object or array, with a trailing "." for objects
		keys    map[string]bool
		wantKey bool   // objects: the next string token is a key
		member  string // objects: the key whose value is being read
		index   int    // arrays: the index of the next element
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var stack []*frame
	var dups []kyc.FieldError
	seen := map[string]bool{}
	// childPath is the path of the value about to be read in the top frame.
	childPath := func() string {
		if len(stack) == 0 {
			return ""
		}
		f := stack[len(stack)-1]
		if f.object {
			return f.path + f.member
		}
		p := f.path + "[" + strconv.Itoa(f.index) + "]"
		f.index++
		return p
	}
	valueDone := func() {
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = true
		}
	}
	for {
		tok, err := d.Token()
		if err != nil {
			break // io.EOF, or a syntax error the parser will report
		}
		if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
			f := stack[n-1]
			key, ok := tok.(string)
			if !ok { // '}' ends the object
				stack = stack[:n-1]
				valueDone()
				continue
			}
			if f.keys[key] && !seen[f.path+key] {
				seen[f.path+key] = true
				dups = append(dups, kyc.FieldError{Field: f.path + key, Message: "appears more than once in the object"})
			}
			f.keys[key], f.member, f.wantKey = true, key, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			p := childPath()
			if p != "" {
				p += "."
			}
			stack = append(stack, &frame{object: true, path: p, keys: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{path: childPath()})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default: // a scalar value
			if n := len(stack); n > 0 && !stack[n-1].object {
				stack[n-1].index++
			}
			valueDone()
		}
	}
	sort.SliceStable(dups, func(i, j int) bool { return dups[i].Field < dups[j].Field })
	return dups
}
