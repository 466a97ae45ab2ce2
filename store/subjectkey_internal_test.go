package store

import (
	"bytes"
	"testing"
)

// FuzzSubjectOf: the header parser never panics, and whatever it accepts
// re-encodes to the same bytes (so a value cannot be read as another
// applicant's by a lenient parse).
func FuzzSubjectOf(f *testing.F) {
	f.Add(append(append([]byte(nil), subjectMagic...), append([]byte{3}, "app"+"ciphertext"...)...))
	f.Add(append(append([]byte(nil), subjectMagic...), 0))
	f.Add(append(append([]byte(nil), subjectMagic...), 200, 'a'))
	f.Add([]byte("random nonce and ciphertext"))
	f.Fuzz(func(t *testing.T, b []byte) {
		id, rest, ok := subjectOf(b)
		if !ok {
			return
		}
		if id == "" || len(id) > 255 {
			t.Fatalf("accepted id %q", id)
		}
		again := append(append(append([]byte(nil), subjectMagic...), byte(len(id))), id...)
		if !bytes.Equal(append(again, rest...), b) {
			t.Fatalf("re-encoding differs")
		}
	})
}
