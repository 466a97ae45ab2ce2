package kyc

import (
	"strings"
	"testing"
)

func TestParseAMLKinds(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{"sanctions", "sanctions", ""},
		{"pep,sanctions", "sanctions,pep", ""},
		{" sanctions , adverse_media ,pep,pep", "sanctions,pep,adverse_media", ""},
		{"sanctions,", "sanctions", ""},
		{"pep", "", "leave out sanctions"},
		{"", "", "leave out sanctions"},
		{"sanctions,media", "", `unknown AML kind "media"`},
		{"Sanctions", "", "unknown AML kind"},
	} {
		got, err := ParseAMLKinds(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseAMLKinds(%q) = %v, %v; want error %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != c.want {
			t.Errorf("ParseAMLKinds(%q) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
}
