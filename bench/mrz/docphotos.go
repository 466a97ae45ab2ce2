package main

import (
	"bytes"
	"fmt"
	"image"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kycd/capture"
	"kycd/mrz/ocr"
)

// docPhotos reads every image of dir as the portal does: through capture
// (EXIF orientation applied, re-encoded), then the reader. The folder has
// no ground truth, so each reading is printed to be checked by eye; the
// count of zones read (every check digit holding) is the figure.
func docPhotos(dir string, ref time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\ndocphotos (through capture; no ground truth)\n")
	n, read, upload := 0, 0, 0
	var walls, cpus []time.Duration
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if ext != ".jpg" && ext != ".png" && ext != ".jpeg" {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			log.Fatal(err)
		}
		c, err := capture.Process(f, capture.Limits{})
		f.Close()
		if err != nil {
			// The portal refuses it too (too small): the applicant is
			// asked for another photo before any reading.
			fmt.Printf("%-50s refused at upload: %v\n", e.Name(), err)
			continue
		}
		img, _, err := image.Decode(bytes.NewReader(c.Data))
		if err != nil {
			log.Fatal(err)
		}
		cpu0 := cpuTime()
		r, err := ocr.Read(img, ref)
		if err != nil {
			log.Fatal(err)
		}
		cpus = append(cpus, cpuTime()-cpu0)
		walls = append(walls, r.Elapsed)
		// The portal's upload-time read (the one the applicant sees
		// and confirms) looks at the usual scale only.
		u, err := ocr.ReadAtUsualScale(img, ref)
		if err != nil {
			log.Fatal(err)
		}
		n++
		if r.Status == ocr.StatusRead {
			read++
		}
		if u.Status == ocr.StatusRead {
			upload++
		}
		fmt.Printf("%-50s exif %d %-10s %-9s upload %-10s %4dms %v\n", e.Name(), c.Metadata.Orientation, r.Status, r.Hint, u.Status, r.Elapsed.Milliseconds(), r.Lines)
	}
	wp, wm := p50max(walls)
	cp, cm := p50max(cpus)
	fmt.Printf("docphotos: %d of %d read (every check digit holds), %d at upload; wall p50 %d max %d ms, cpu p50 %d max %d ms\n", read, n, upload, wp, wm, cp, cm)
}
