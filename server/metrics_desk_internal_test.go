package server

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestDeskMetricsDocumented: every review desk metric is named in the
// OpenAPI description of /metrics and in docs/operations.md.
func TestDeskMetricsDocumented(t *testing.T) {
	api, err := os.ReadFile("openapi/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ops, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *prometheus.Desc, 32)
	(&deskCollector{}).Describe(ch)
	close(ch)
	name := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	n := 0
	for d := range ch {
		m := name.FindStringSubmatch(d.String())
		if m == nil {
			t.Fatalf("no name in %s", d)
		}
		n++
		for file, text := range map[string][]byte{"openapi.yaml": api, "docs/operations.md": ops} {
			if !strings.Contains(string(text), "`"+m[1]) {
				t.Errorf("%s is not documented in %s", m[1], file)
			}
		}
	}
	if n != 7 {
		t.Errorf("%d desk metrics described, want 7", n)
	}
}
