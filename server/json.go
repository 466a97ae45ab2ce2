package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strings"

	"kycd/internal/jsonkeys"
	"kycd/kyc"
)

// maxJSONBody bounds every JSON request body. Applicant records are a few
// KiB at most; uploads (later) have their own limits.
const maxJSONBody = 1 << 20

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := marshal(v)
	if err != nil {
		// Our own response types always marshal; this is a programming error.
		http.Error(w, `{"error":{"type":"internal","message":"Internal error.","code":"INTERNAL_ERROR","details":[]}}`, http.StatusInternalServerError)
		return
	}
	writeRaw(w, status, b)
}

// marshal is json.Marshal without HTML escaping: this is an API, and
// "Bearer <API_KEY>" should read as such in a terminal.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
	_, _ = w.Write([]byte{'\n'})
}

// readBody reads a bounded request body. A body over the limit is 413.
// Content-Type is not enforced: the body is always parsed as JSON, so that
// curl -d (which sends a form content type) works; parse errors mention the
// header when it was not JSON.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	limit := int64(maxJSONBody)
	if r.URL.Path == batchPath {
		limit = maxBatchBody // up to kyc.MaxBatchSubjects subjects
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, &statusError{err: &kyc.Error{Code: kyc.EValidation, Message: fmt.Sprintf("The request body is larger than %d bytes.", limit),
			Details: []kyc.FieldError{{Field: "body", Message: fmt.Sprintf("must be at most %d bytes", limit)}}}, status: http.StatusRequestEntityTooLarge}
	}
	if err != nil {
		// A truncated or malformed chunked body, a connection cut or
		// half-closed mid-body, a body slower than the read timeout: the
		// request never arrived whole, the client's side of the wire. The
		// answer is written even though the request's context is cancelled
		// by then (net/http cancels it on the connection's read error): a
		// client that half-closed is still reading, and one that is gone
		// costs a failed write. Not 499 with nothing written, which net/http
		// would turn into an empty 200.
		return nil, &kyc.Error{Code: kyc.EValidation, Message: "The request body could not be read completely. Send it again.",
			Details: []kyc.FieldError{{Field: "body", Message: "was cut short or its chunked encoding is malformed"}}, Err: err}
	}
	return b, nil
}

// object is a JSON object read field by field, so that every problem (a
// wrong type, an unknown field, a missing one) is reported at once instead
// of the first one only, which is all encoding/json would tell.
type object struct {
	prefix   string
	raw      map[string]json.RawMessage
	seen     map[string]bool
	errs     *[]kyc.FieldError
	children []*object // nested objects read with sub, checked for unknown fields too
}

// sub reads a nested object field whose problems are reported as
// "name.field"; nil when absent or null (or not an object, recorded).
func (o *object) sub(name string) *object {
	v := o.value(name)
	if v == nil {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(v, &raw); err != nil || raw == nil {
		o.fail(name, "must be a JSON object")
		return nil
	}
	c := &object{prefix: o.prefix + name + ".", raw: raw, seen: map[string]bool{}, errs: o.errs}
	o.children = append(o.children, c)
	return c
}

// unknown records every field of o and its children that was never read.
func (o *object) unknown() {
	for name := range o.raw {
		if !o.seen[name] {
			o.fail(name, "is not a known field")
		}
	}
	for _, c := range o.children {
		c.unknown()
	}
}

// readObject reads the body as one JSON object.
func readObject(w http.ResponseWriter, r *http.Request) (*object, error) {
	b, err := readBody(w, r)
	if err != nil {
		return nil, err
	}
	o, err := parseObject(b)
	if e, ok := err.(*kyc.Error); ok && !jsonContentType(r) {
		for i := range e.Details {
			e.Details[i].Message += " (and send Content-Type: application/json)"
		}
	}
	return o, err
}

func jsonContentType(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

func parseObject(b []byte) (*object, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, kyc.Invalid(kyc.FieldError{Field: "body", Message: "is required: send a JSON object"})
	}
	d := json.NewDecoder(bytes.NewReader(b))
	var raw map[string]json.RawMessage
	if err := d.Decode(&raw); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, kyc.Invalid(kyc.FieldError{Field: "body", Message: "must be a JSON object"})
		}
		return nil, kyc.Invalid(kyc.FieldError{Field: "body", Message: "is not valid JSON: " + jsonSyntaxMessage(err)})
	}
	if raw == nil {
		return nil, kyc.Invalid(kyc.FieldError{Field: "body", Message: "must be a JSON object"})
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, kyc.Invalid(kyc.FieldError{Field: "body", Message: "must hold exactly one JSON object"})
	}
	// Valid JSON from here on, which jsonkeys.Problems needs: members
	// given twice, and text holding NUL (which PostgreSQL refuses with an
	// error where SQLite stores it), are refused for every body alike.
	if dups := jsonkeys.Problems(b); len(dups) > 0 {
		return nil, kyc.Invalid(dups...)
	}
	var errs []kyc.FieldError
	return &object{raw: raw, seen: map[string]bool{}, errs: &errs}, nil
}

func jsonSyntaxMessage(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", se.Error(), se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return "malformed"
}

func (o *object) fail(name, msg string) {
	*o.errs = append(*o.errs, kyc.FieldError{Field: o.prefix + name, Message: msg})
}

// value returns the raw field, or nil when absent or null.
func (o *object) value(name string) json.RawMessage {
	o.seen[name] = true
	v, ok := o.raw[name]
	if !ok || string(v) == "null" {
		return nil
	}
	return v
}

// str reads a string field; absent and null both give nil.
func (o *object) str(name string) *string {
	v := o.value(name)
	if v == nil {
		return nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		o.fail(name, "must be a string")
		return nil
	}
	return &s
}

// boolean reads a boolean field; absent and null both give nil.
func (o *object) boolean(name string) *bool {
	v := o.value(name)
	if v == nil {
		return nil
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		o.fail(name, "must be true or false")
		return nil
	}
	return &b
}

// strList reads an array of strings; ok is false when absent or null.
func (o *object) strList(name string) (list []string, ok bool) {
	v := o.value(name)
	if v == nil {
		return nil, false
	}
	if err := json.Unmarshal(v, &list); err != nil || list == nil {
		o.fail(name, "must be an array of strings")
		return nil, false
	}
	return list, true
}

// integer reads a whole-number field; ok is false when absent, null or
// not a whole number (the last is recorded as a problem).
func (o *object) integer(name string) (n int, ok bool) {
	v := o.value(name)
	if v == nil {
		return 0, false
	}
	if err := json.Unmarshal(v, &n); err != nil {
		o.fail(name, "must be a whole number")
		return 0, false
	}
	return n, true
}

// anyObject reads a JSON object field, keeping numbers exact.
func (o *object) anyObject(name string) map[string]any {
	v := o.value(name)
	if v == nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil || m == nil {
		o.fail(name, "must be a JSON object")
		return nil
	}
	return m
}

// check adds the domain's field errors, then errors for unknown fields, and
// returns a VALIDATION_ERROR naming every field once (the first problem
// found for it), in field order; nil if there is none.
func (o *object) check(domain []kyc.FieldError) error {
	o.unknown()
	all := append(*o.errs, domain...)
	if len(all) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []kyc.FieldError
	for _, fe := range all {
		if !seen[fe.Field] {
			seen[fe.Field] = true
			out = append(out, fe)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return kyc.Invalid(out...)
}
