package decision

import "testing"

// TestCodeLabels: every code a signal can emit has words of its own.
func TestCodeLabels(t *testing.T) {
	for _, c := range AllCodes {
		if _, ok := codeLabels[c]; !ok {
			t.Errorf("%s has no label", c)
		}
	}
	if got := CodeLabel("CUSTOM_THING"); got != "Custom thing" {
		t.Errorf("unknown code: %q", got)
	}
}
