package pdf417

import (
	"bytes"
	"encoding/csv"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kycd/internal/realdata"
)

// sharedCase is one image of the shared barcodes folder with the texts
// it must decode to.
type sharedCase struct {
	file, class string
	want        [][]byte
	prefix      bool // one Macro PDF417 segment of a longer expected text
}

func sharedCases(t testing.TB) (string, []sharedCase) {
	dir := filepath.Dir(realdata.Path(t, "barcodes/MANIFEST.csv"))
	f, err := os.Open(filepath.Join(dir, "MANIFEST.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var cases []sharedCase
	for _, r := range rows[1:] {
		exp, err := os.ReadFile(filepath.Join(dir, r[col["expected_file"]]))
		if err != nil {
			t.Fatal(err)
		}
		c := sharedCase{file: r[col["file"]]}
		notes := r[col["notes"]]
		switch {
		case strings.HasPrefix(c.file, "synth_aamva") && strings.Contains(c.file, "degraded"):
			c.class = "AAMVA synthetic, photo-like"
		case strings.HasPrefix(c.file, "synth_aamva"):
			c.class = "AAMVA synthetic, clean"
		case strings.Contains(notes, "camera photo") || strings.Contains(notes, "scan-like"):
			c.class = "camera photo / scan"
		case strings.HasPrefix(c.file, "sparkfish"):
			c.class = "sparkfish tests"
		default:
			c.class = "clean render"
		}
		if strings.Contains(notes, "two symbols") {
			for _, p := range bytes.Split(exp, []byte("\n---\n")) {
				c.want = append(c.want, bytes.TrimRight(p, "\n"))
			}
		} else {
			c.want = [][]byte{exp}
		}
		c.prefix = strings.Contains(notes, "Macro PDF417")
		cases = append(cases, c)
	}
	return dir, cases
}

// outcome compares what was read with what was expected: "ok", "miss"
// (nothing read) or "WRONG" (a reading that differs).
func outcome(c sharedCase, got []*Result) string {
	if len(got) == 0 {
		return "miss"
	}
	for _, r := range got {
		match := false
		for _, w := range c.want {
			if bytes.Equal(r.Text, w) || r.String() == string(w) || (c.prefix && r.Macro != nil && bytes.HasPrefix(w, r.Text)) ||
				bytes.Equal(bytes.TrimRight(r.Text, "\n"), bytes.TrimRight(w, "\n")) && len(c.want) > 1 {
				match = true
			}
		}
		if !match {
			return "WRONG"
		}
	}
	if len(got) < len(c.want) {
		return "partial"
	}
	return "ok"
}

// TestSharedBarcodes reads every image of the shared barcodes folder and
// reports the decode rate per class and the time per image. A reading
// that differs from the expected text fails the test: the reader must
// refuse rather than misread.
func TestSharedBarcodes(t *testing.T) {
	dir, cases := sharedCases(t)
	type tally struct{ n, ok, wrong int }
	classes := map[string]*tally{}
	var times, cpus []time.Duration
	for _, c := range cases {
		f, err := os.Open(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		img, _, err := image.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		start, cpu0 := time.Now(), cpuTime()
		got, _ := DecodeAll(img)
		el, cpu := time.Since(start), cpuTime()-cpu0
		times, cpus = append(times, el), append(cpus, cpu)
		o := outcome(c, got)
		tl := classes[c.class]
		if tl == nil {
			tl = &tally{}
			classes[c.class] = tl
		}
		tl.n++
		switch o {
		case "ok":
			tl.ok++
		case "WRONG":
			tl.wrong++
			t.Errorf("%s: wrong reading %q", c.file, got[0].Text)
		}
		t.Logf("%-48s %-8s %6.1f ms wall %6.1f ms CPU", c.file, o, float64(el.Microseconds())/1000, float64(cpu.Microseconds())/1000)
	}
	names := make([]string, 0, len(classes))
	for k := range classes {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		tl := classes[k]
		t.Logf("%-30s %2d/%2d read, %d wrong", k, tl.ok, tl.n, tl.wrong)
	}
	slices.Sort(times)
	slices.Sort(cpus)
	t.Logf("time per image: wall p50 %v max %v; CPU p50 %v max %v", times[len(times)/2], times[len(times)-1], cpus[len(cpus)/2], cpus[len(cpus)-1])
}
