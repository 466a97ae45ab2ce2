package docs_test

import (
	"io/fs"
	"os"
	"strings"
	"testing"
)

// TestREADMEShape holds the README to what issue 29 asks of it: at most
// 200 lines, the two set-up commands that need only Go, the two sections
// issues 24 and 28 require in the README itself, and a link to every guide.
func TestREADMEShape(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > 200 {
		t.Errorf("the README has %d lines, want at most 200: move the detail into a guide", n)
	}
	for _, want := range []string{
		"go run . serve --db kyc.db",
		"go test ./...",
		"\n## What kycd proves, and what it cannot\n",
		"\n## Personal data\n",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("the README lacks %q", strings.TrimSpace(want))
		}
	}
	guides, err := fs.Glob(os.DirFS(".."), "docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range guides {
		if !strings.Contains(readme, "]("+g+")") && !strings.Contains(readme, "]("+g+"#") {
			t.Errorf("the README does not link the guide %s", g)
		}
	}
}
