package csvsafe

import (
	"bytes"
	"testing"
)

func TestCell(t *testing.T) {
	for in, want := range map[string]string{
		"":            "",
		"Ada":         "Ada",
		"=1+1":        "'=1+1",
		"+44 20":      "'+44 20",
		"-5":          "'-5",
		"@SUM(A1)":    "'@SUM(A1)",
		"\tx":         "'\tx",
		"\rx":         "'\rx",
		"a=b":         "a=b",
		"O'Brien":     "O'Brien",
		"=HYPERLINK(": "'=HYPERLINK(",
	} {
		if got := Cell(in); got != want {
			t.Errorf("Cell(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.Write([]string{"name", "=cmd|' /C calc'!A0"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "name,'=cmd|' /C calc'!A0\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
