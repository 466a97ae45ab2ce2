// Command mrz measures the MRZ reader (kycd/mrz/ocr) on the shared
// document images against their ground truth
// (images/doc_mrz_groundtruth.json): documents read exactly, character
// accuracy, readings that pass every check digit but are wrong (the one
// number that must stay 0), and time per image. With -tesseract it runs
// Debian's tesseract on the same images as the baseline to beat (never a
// runtime dependency of kycd).
//
//	go run ./bench/mrz [-data ../shared/data] [-tesseract] [-v]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"kycd/internal/realdata"
	"kycd/mrz/ocr"
)

type truth struct {
	Image     string   `json:"image"`
	MRZ       []string `json:"mrz"`
	Format    string   `json:"format"`
	Validates bool     `json:"validates"`
}

func main() {
	data := flag.String("data", realdata.Dir(), "the shared data folder")
	modelPath := flag.String("model", "", "weights to use instead of the embedded ones")
	verbose := flag.Bool("v", false, "print every image's reading")
	tess := flag.Bool("tesseract", false, "also run tesseract (Debian tesseract-ocr) as the baseline")
	flag.Parse()
	log.SetFlags(0)
	gt, err := load(filepath.Join(*data, "images", "doc_mrz_groundtruth.json"))
	if err != nil {
		log.Fatal(err)
	}
	var net *ocr.Net
	if *modelPath != "" {
		b, err := os.ReadFile(*modelPath)
		if err != nil {
			log.Fatal(err)
		}
		if net, err = ocr.DecodeNet(b); err != nil {
			log.Fatal(err)
		}
	}
	ref := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := map[string]*row{}
	for _, t := range gt {
		img, err := decode(filepath.Join(*data, "images", t.Image))
		if err != nil {
			log.Fatal(err)
		}
		var r *ocr.Result
		if net != nil {
			r = ocr.ReadWith(net, img, ref)
		} else if r, err = ocr.Read(img, ref); err != nil {
			log.Fatal(err)
		}
		o := score(t, r.Lines, r.Status == ocr.StatusRead || r.Status == ocr.StatusInvalid, r.Status == ocr.StatusRead)
		o.elapsed = r.Elapsed
		key := class(t)
		if rows[key] == nil {
			rows[key] = &row{name: key}
		}
		rows[key].add(o)
		if *verbose {
			mark := "  "
			switch {
			case o.exact:
				mark = "OK"
			case o.wrongValid:
				mark = "!!"
			}
			fmt.Printf("%s %-45s %-10s %-9s %4dms acc %.3f %v\n", mark, t.Image, r.Status, r.Hint, r.Elapsed.Milliseconds(), o.acc(), r.Lines)
			if r.Status == ocr.StatusUnreadable {
				var u []string
				for _, p := range r.Unsure {
					want := byte('?')
					if p[0] < len(t.MRZ) && p[1] < len(t.MRZ[p[0]]) {
						want = t.MRZ[p[0]][p[1]]
					}
					u = append(u, fmt.Sprintf("%d:%d %c(%.2f) want %c", p[0], p[1], r.Lines[p[0]][p[1]], r.Confidence[p[0]][p[1]], want))
				}
				fmt.Printf("     unsure: %s\n", strings.Join(u, ", "))
			}
		}
	}
	printTable("kycd mrz/ocr", rows)
	if *tess {
		tesseract(*data, gt)
	}
}

func load(path string) ([]truth, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var gt []truth
	return gt, json.Unmarshal(b, &gt)
}

func decode(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	return img, err
}

// class groups images: the doc_* set by MRZ format, the low-quality and
// synthetic ones apart.
func class(t truth) string {
	switch {
	case strings.HasPrefix(t.Image, "lowq_"):
		return "lowq (all formats)"
	case strings.HasPrefix(t.Image, "synth_"):
		return "synth (all formats)"
	}
	f := t.Format
	if f == "FRA-ID-1994" {
		f = "FRA-ID (2x36)"
	}
	return "doc " + f
}

type outcome struct {
	exact      bool // every line read exactly, and the reader said it read
	taken      bool // the reader returned a reading (read or invalid)
	wrongValid bool // the reader said read (all check digits hold) but it is wrong
	right, all int  // characters
	elapsed    time.Duration
}

func (o outcome) acc() float64 { return float64(o.right) / float64(max(o.all, 1)) }

func score(t truth, lines []string, taken, valid bool) outcome {
	o := outcome{taken: taken}
	same := len(lines) == len(t.MRZ)
	for i, want := range t.MRZ {
		o.all += len(want)
		if i >= len(lines) {
			continue
		}
		got := lines[i]
		same = same && got == want
		for k := range min(len(got), len(want)) {
			if got[k] == want[k] {
				o.right++
			}
		}
	}
	o.exact = same && taken
	o.wrongValid = valid && !same
	return o
}

type row struct {
	name                        string
	n, exact, taken, wrongValid int
	right, all                  int
	elapsed                     time.Duration
	maxElapsed                  time.Duration
}

func (r *row) add(o outcome) {
	r.n++
	if o.exact {
		r.exact++
	}
	if o.taken {
		r.taken++
	}
	if o.wrongValid {
		r.wrongValid++
	}
	r.right += o.right
	r.all += o.all
	r.elapsed += o.elapsed
	r.maxElapsed = max(r.maxElapsed, o.elapsed)
}

func printTable(title string, rows map[string]*row) {
	fmt.Printf("\n%s\n", title)
	fmt.Printf("| %-22s | %6s | %11s | %8s | %10s | %13s | %8s | %8s |\n", "class", "images", "read exact", "returned", "char acc.", "wrong+valid", "ms/img", "max ms")
	fmt.Printf("|%s|%s|%s|%s|%s|%s|%s|%s|\n", dash(24), dash(8), dash(13), dash(10), dash(12), dash(15), dash(10), dash(10))
	var names []string
	for k := range rows {
		names = append(names, k)
	}
	sort.Strings(names)
	var docs, all row
	for _, k := range names {
		r := rows[k]
		printRow(r)
		if strings.HasPrefix(k, "doc ") {
			docs.merge(r)
		}
		all.merge(r)
	}
	docs.name, all.name = "all doc_*", "all images"
	printRow(&docs)
	printRow(&all)
}

func (r *row) merge(o *row) {
	r.n += o.n
	r.exact += o.exact
	r.taken += o.taken
	r.wrongValid += o.wrongValid
	r.right += o.right
	r.all += o.all
	r.elapsed += o.elapsed
	r.maxElapsed = max(r.maxElapsed, o.maxElapsed)
}

func printRow(r *row) {
	fmt.Printf("| %-22s | %6d | %5d (%2.0f%%) | %8d | %9.1f%% | %13d | %8d | %8d |\n", r.name, r.n, r.exact, 100*float64(r.exact)/float64(max(r.n, 1)),
		r.taken, 100*float64(r.right)/float64(max(r.all, 1)), r.wrongValid, r.elapsed.Milliseconds()/int64(max(r.n, 1)), r.maxElapsed.Milliseconds())
}

func dash(n int) string { return strings.Repeat("-", n) }
