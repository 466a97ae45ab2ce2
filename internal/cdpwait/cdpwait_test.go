package cdpwait

import (
	"errors"
	"testing"
)

func TestTransient(t *testing.T) {
	for _, c := range []struct {
		err  string
		want bool
	}{
		{"Cannot find context with specified id (-32000)", true},
		{"Execution context was destroyed, most likely because of a navigation.", true},
		{"Inspected target navigated or closed", true},
		{"context deadline exceeded", false},
		{"exception \"Uncaught\" (0:0): ReferenceError: x is not defined", false},
	} {
		if got := Transient(errors.New(c.err)); got != c.want {
			t.Errorf("Transient(%q) = %v, want %v", c.err, got, c.want)
		}
	}
}
