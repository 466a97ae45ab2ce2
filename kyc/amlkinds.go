package kyc

import (
	"fmt"
	"slices"
	"strings"
)

// The list kinds an AML screening covers (spec §2.3 checkType), in the
// order results are reported.
const (
	KindSanctions    = "sanctions"
	KindPEP          = "pep"
	KindAdverseMedia = "adverse_media"
)

// AMLKinds lists every kind in report order.
var AMLKinds = []string{KindSanctions, KindPEP, KindAdverseMedia}

// ParseAMLKinds reads an organization's choice of kinds to screen, a
// comma-separated list such as "sanctions,pep". Sanctions are always
// screened and must be in it: no organization may switch sanctions
// screening off. The result is deduplicated and in AMLKinds order.
func ParseAMLKinds(s string) ([]string, error) {
	seen := map[string]bool{}
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if !slices.Contains(AMLKinds, k) {
			return nil, fmt.Errorf("unknown AML kind %q (want sanctions, pep or adverse_media)", k)
		}
		seen[k] = true
	}
	if !seen[KindSanctions] {
		return nil, fmt.Errorf("the AML kinds %q leave out sanctions, which every organization screens", s)
	}
	var out []string
	for _, k := range AMLKinds {
		if seen[k] {
			out = append(out, k)
		}
	}
	return out, nil
}
