package main

import (
	"fmt"
	"log"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// tesseract runs Debian's tesseract 5 on each whole image, restricted to
// the 37 MRZ symbols, and scores the best block of lines of the expected
// size, as the baseline the issue compares against.
func tesseract(data string, gt []truth) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		log.Printf("tesseract not installed (apt-get install tesseract-ocr): baseline skipped")
		return
	}
	rows := map[string]*row{}
	for _, t := range gt {
		start := time.Now()
		out, err := exec.Command("tesseract", filepath.Join(data, "images", t.Image), "stdout", "--psm", "6",
			"-c", "tessedit_char_whitelist=ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<").Output()
		if err != nil {
			log.Printf("tesseract %s: %v", t.Image, err)
		}
		lines := bestBlock(strings.Split(string(out), "\n"), t)
		o := score(t, lines, true, false)
		o.elapsed = time.Since(start)
		key := class(t)
		if rows[key] == nil {
			rows[key] = &row{name: key}
		}
		rows[key].add(o)
	}
	printTable("tesseract 5 (eng, whole image, 37-symbol whitelist)", rows)
}

// bestBlock picks the consecutive lines that agree most with the truth's
// shape (its line count), padding or cutting each to the MRZ width: the
// kindest reading of tesseract's output.
func bestBlock(out []string, t truth) []string {
	var ls []string
	for _, l := range out {
		l = strings.ReplaceAll(strings.TrimSpace(l), " ", "")
		if len(l) >= 10 {
			ls = append(ls, l)
		}
	}
	var best []string
	bestScore := -1
	for i := 0; i+len(t.MRZ) <= len(ls); i++ {
		block := ls[i : i+len(t.MRZ)]
		o := score(t, block, true, false)
		if o.right > bestScore {
			best, bestScore = block, o.right
		}
	}
	return best
}

var _ = fmt.Sprint
