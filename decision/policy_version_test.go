package decision

import (
	"strings"
	"testing"
)

// TestPolicyVersion: the version is 1 to 64 printable ASCII characters
// (it is copied into every decision; a 250 KB version passed preview,
// issue 23 item 6), with a field-level error otherwise.
func TestPolicyVersion(t *testing.T) {
	for _, tt := range []struct {
		version string
		ok      bool
	}{
		{"acme-1", true},
		{"2026-11 strict (EU)", true},
		{strings.Repeat("v", 64), true},
		{strings.Repeat("v", 65), false},
		{strings.Repeat("v", 250<<10), false},
		{"", false},
		{"   ", false},
		{"acme\n1", false},
		{"acme\t1", false},
		{"acme\x001", false},
		{"acme\x7f", false},
		{"v-é", false},
		{"версия-1", false},
	} {
		p := DefaultPolicy()
		p.Version = tt.version
		err := p.Validate()
		if tt.ok != (err == nil) {
			t.Errorf("version %q: %v, want ok=%v", truncated(tt.version), err, tt.ok)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), "version: ") {
			t.Errorf("version %q: %v, want an error at the field version", truncated(tt.version), err)
		}
	}
}

func truncated(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
