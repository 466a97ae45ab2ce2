package console_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestListsImportConfirmsShrink: the console's import refuses, before
// storing the files, a version that changes its source's kind unless the
// confirmation box is ticked (naming the list it would replace and its
// count); a version with over 20% fewer entities fails naming both counts
// and the active version stays; ticked, both go through, and a kind that
// no list covers any more is shown as lost on the page (issue 23 item 2).
func TestListsImportConfirmsShrink(t *testing.T) {
	s := newListsStack(t, 4<<20)
	inst := s.mustInstallationAdmin("inst@acme.example", "Ines Installation")
	b := s.browser()
	b.login(inst)
	var full strings.Builder
	full.WriteString("name,reference\n")
	for i := range 50 {
		fmt.Fprintf(&full, "Listed Person%c%c,R-%d\n", 'a'+i%26, 'a'+i/26, i)
	}
	s.imported(b, []string{"source", "ofac-sdn", "kind", "sanctions", "format", "csv"}, "sdn.csv", full.String())
	one := "name,reference\nSomeone Else,X-1\n"

	res := b.upload([]string{"source", "ofac-sdn", "kind", "pep", "format", "csv"}, "pep.csv", one)
	if res.status != http.StatusBadRequest || !strings.Contains(res.text(), "ofac-sdn is now a sanctions list of 50 entities") ||
		!strings.Contains(res.body, `id="li-allow-shrink-err"`) {
		t.Fatalf("kind change without confirmation: %d %s", res.status, res.text())
	}
	if imports, _ := s.counts(); imports != 1 || len(s.left()) != 0 {
		t.Errorf("a refused upload left %d imports, files %v", imports, s.left())
	}
	id := s.imported(b, []string{"source", "ofac-sdn", "kind", "sanctions", "format", "csv"}, "one.csv", one)
	if st := s.status(b, id); st["state"] != "failed" || !strings.Contains(fmt.Sprint(st["summary"]), "from 50 entities to 1") {
		t.Fatalf("shrink without confirmation: %v", st)
	}
	if p := b.get("/console/lists"); !strings.Contains(p.text(), "50") || strings.Contains(p.text(), "Lost:") {
		t.Errorf("after the refused shrink: %s", p.text())
	}
	id = s.imported(b, []string{"source", "ofac-sdn", "kind", "pep", "format", "csv", "allow_shrink", "1"}, "pep.csv", one)
	if st := s.status(b, id); st["state"] != "imported" {
		t.Fatalf("confirmed kind change: %v", st)
	}
	if p := b.get("/console/lists"); !strings.Contains(p.text(), "Lost: sanctions.") {
		t.Errorf("lost sanctions not on the lists page: %s", p.text())
	}
}
