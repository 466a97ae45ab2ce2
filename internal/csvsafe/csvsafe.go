// Package csvsafe writes CSV that a spreadsheet opens as data: a cell that
// starts with =, +, -, @, a tab or a carriage return gets a leading
// apostrophe (OWASP's advice against CSV injection), because names,
// references and notes come from customers and may start that way.
package csvsafe

import (
	"encoding/csv"
	"io"
	"strings"
)

// Cell returns s as a cell no spreadsheet runs as a formula.
func Cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// Writer is a csv.Writer whose every cell passes through Cell.
type Writer struct{ w *csv.Writer }

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: csv.NewWriter(w)} }

// Write writes one record, each cell made safe.
func (w *Writer) Write(rec []string) error {
	safe := make([]string, len(rec))
	for i, c := range rec {
		safe[i] = Cell(c)
	}
	return w.w.Write(safe)
}

// Flush writes what is buffered and returns the first error of any write.
func (w *Writer) Flush() error {
	w.w.Flush()
	return w.w.Error()
}
