package screening

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateNameFreq = flag.Bool("update", false, "rewrite namefreq.tsv from testdata/namefreq_source.tsv")

// buildNameFreq turns the source rows (locale, list, size, name) into the
// table's lines: each name normalised as the matcher does, each of its
// parts that is a name (not a particle or title) counted by fold.
func buildNameFreq(t *testing.T, path string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type acc struct {
		locales map[string]bool
		share   float64
	}
	parts := map[string]*acc{}
	sc := bufio.NewScanner(f)
	header := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		if !header {
			header = true
			continue
		}
		r := strings.Split(line, "\t")
		if len(r) != 4 {
			t.Fatalf("%s: bad row %q", path, line)
		}
		size, err := strconv.Atoi(r[2])
		if err != nil || size < 1 {
			t.Fatalf("%s: bad size in %q", path, line)
		}
		for _, tok := range normalize(r[3]) {
			if tok.particle || tok.title || len(tok.fold) < 2 {
				continue
			}
			a := parts[tok.fold]
			if a == nil {
				a = &acc{locales: map[string]bool{}}
				parts[tok.fold] = a
			}
			a.locales[r[0]] = true
			a.share = max(a.share, 1/float64(size))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(parts))
	for k := range parts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString("fold\tlocales\tper100k\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%s\t%d\t%d\n", k, len(parts[k].locales), int(parts[k].share*1e5+0.5))
	}
	return b.String()
}

// TestNameFreqTable: the embedded table is what its committed source gives
// (regenerate with -update after tools/namegen/rarity.mjs).
func TestNameFreqTable(t *testing.T) {
	got := buildNameFreq(t, "testdata/namefreq_source.tsv")
	if *updateNameFreq {
		if err := os.WriteFile("namefreq.tsv", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != nameFreqTable {
		t.Fatal("namefreq.tsv is not what testdata/namefreq_source.tsv gives: go test ./screening -run TestNameFreqTable -update")
	}
}
