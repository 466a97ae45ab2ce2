package cmd

import (
	"fmt"
	"io"
	"os"
	"time"

	"kycd/aml"
)

// progressPrinter shows how far a list import is on stderr: a line
// rewritten in place on a terminal (at most 4 times a second), else a
// line every 10 seconds, so a log file does not fill with progress.
type progressPrinter struct {
	w       io.Writer
	tty     bool
	last    time.Time
	printed bool
}

func newProgressPrinter(w io.Writer) *progressPrinter {
	p := &progressPrinter{w: w}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progressPrinter) print(pr aml.ImportProgress) {
	every := 10 * time.Second
	if p.tty {
		every = 250 * time.Millisecond
	}
	if time.Since(p.last) < every {
		return
	}
	p.last = time.Now()
	line := fmt.Sprintf("%s: %s read", pr.Phase, mib(pr.Bytes))
	if pr.Total > 0 {
		line = fmt.Sprintf("%s: %s of %s (%.0f%%)", pr.Phase, mib(pr.Bytes), mib(pr.Total), 100*float64(pr.Bytes)/float64(pr.Total))
	}
	if pr.Phase == "importing" {
		line += fmt.Sprintf(", %d entities stored", pr.Entities)
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.printed = true
}

// done ends the rewritten line.
func (p *progressPrinter) done() {
	if p.tty && p.printed {
		fmt.Fprintln(p.w)
	}
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
