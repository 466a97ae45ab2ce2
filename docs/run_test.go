package docs_test

// The guides are tested: every shell block of quickstart.md and
// operations.md is either run, in order, by bash against the kycd the
// guide builds from this tree, or marked with the reason it cannot run
// here. A guide that rots (a renamed flag, a changed route, an answer
// that no longer says what the text claims) fails TestGuides.
//
// The marker is the fence's info string (docs/development.md, "Tested
// guides"):
//
//	```sh {run}                  run it
//	```sh {run needs=node}       run it when node is on PATH (under CI=true it must be)
//	```sh {skip: needs systemd}  do not run it, for the reason given
//
// A sh, bash or shell block with neither marker fails the test: a block
// nobody decided about is a block nobody tests.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// block is one fenced code block of a guide.
type block struct {
	line  int    // of the opening fence, 1-based
	lang  string // the info string's first word
	run   bool
	skip  string   // the reason it is not run
	needs []string // commands it needs on PATH
	text  string
}

// shellLangs are the languages whose blocks must be marked.
var shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true}

// parseBlocks returns the fenced blocks of a Markdown text, and an error
// for a shell block without a marker or with a malformed one.
func parseBlocks(md string) ([]block, error) {
	var out []block
	var errs []error
	sc := bufio.NewScanner(strings.NewReader(md))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur *block
	var fence string
	var body strings.Builder
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		if cur == nil {
			if !strings.HasPrefix(trimmed, "```") {
				continue
			}
			fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
			info := strings.TrimSpace(trimmed[len(fence):])
			b, err := parseInfo(n, info)
			if err != nil {
				errs = append(errs, err)
			}
			cur = &b
			body.Reset()
			continue
		}
		if strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, "`")) == "" {
			cur.text = body.String()
			out = append(out, *cur)
			cur = nil
			continue
		}
		body.WriteString(line)
		body.WriteByte('\n')
	}
	if cur != nil {
		errs = append(errs, fmt.Errorf("line %d: the block is never closed", cur.line))
	}
	return out, errors.Join(errs...)
}

// parseInfo reads a fence's info string: a language, then optionally
// {run}, {run needs=a,b} or {skip: reason}.
func parseInfo(line int, info string) (block, error) {
	b := block{line: line}
	lang, attrs, _ := strings.Cut(info, " ")
	b.lang = lang
	attrs = strings.TrimSpace(attrs)
	if !shellLangs[lang] {
		return b, nil
	}
	if !strings.HasPrefix(attrs, "{") || !strings.HasSuffix(attrs, "}") {
		return b, fmt.Errorf("line %d: a %s block must be marked {run} or {skip: why}", line, lang)
	}
	attrs = strings.TrimSpace(attrs[1 : len(attrs)-1])
	switch {
	case attrs == "run" || strings.HasPrefix(attrs, "run "):
		b.run = true
		for _, f := range strings.Fields(strings.TrimPrefix(attrs, "run")) {
			v, ok := strings.CutPrefix(f, "needs=")
			if !ok || v == "" {
				return b, fmt.Errorf("line %d: unknown attribute %q (run takes needs=cmd,…)", line, f)
			}
			b.needs = append(b.needs, strings.Split(v, ",")...)
		}
	case strings.HasPrefix(attrs, "skip:"):
		b.skip = strings.TrimSpace(strings.TrimPrefix(attrs, "skip:"))
		if b.skip == "" {
			return b, fmt.Errorf("line %d: {skip:} must say why the block cannot run", line)
		}
	default:
		return b, fmt.Errorf("line %d: a %s block must be marked {run} or {skip: why}, not {%s}", line, lang, attrs)
	}
	return b, nil
}

// result is what running a guide did.
type result struct {
	ran         int
	skipped     map[string]int // reason → blocks
	output      string
	slowest     int // the line of the block that took longest
	slowestTook time.Duration
}

// slowestBlock reads the progress lines ("<index> <unix seconds>") and
// returns the line in the guide of the block that ran longest, and how long.
func slowestBlock(lines []string, ran []block) (int, time.Duration) {
	var line int
	var took time.Duration
	for i := 0; i+1 < len(lines); i++ {
		idx, t0, _ := strings.Cut(lines[i], " ")
		_, t1, _ := strings.Cut(lines[i+1], " ")
		n, err1 := strconv.Atoi(idx)
		a, err2 := strconv.ParseFloat(t0, 64)
		b, err3 := strconv.ParseFloat(t1, 64)
		if err1 != nil || err2 != nil || err3 != nil || n >= len(ran) {
			continue
		}
		if d := time.Duration((b - a) * float64(time.Second)); d > took {
			line, took = ran[n].line, d
		}
	}
	return line, took
}

// runGuide runs the runnable blocks of md in order, in one bash process
// (variables and cd carry over, as in the reader's terminal) started in
// the repository's root, with set -euo pipefail. Background processes
// the guide starts are killed at the end with the process group. It
// returns an error naming the block that failed, its line, and the tail
// of the output.
func runGuide(t *testing.T, name, md string, timeout time.Duration) (result, error) {
	t.Helper()
	res := result{skipped: map[string]int{}}
	blocks, err := parseBlocks(md)
	if err != nil {
		return res, fmt.Errorf("%s: %w", name, err)
	}
	tmp := t.TempDir()
	progress := filepath.Join(tmp, ".block")
	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	var ran []block
	for _, b := range blocks {
		if !shellLangs[b.lang] {
			continue
		}
		if !b.run {
			res.skipped[b.skip]++
			continue
		}
		if missing := missingCommands(b.needs); len(missing) > 0 {
			if os.Getenv("CI") == "true" {
				return res, fmt.Errorf("%s line %d needs %s, missing under CI=true", name, b.line, strings.Join(missing, ", "))
			}
			res.skipped["needs "+strings.Join(missing, ", ")+" on PATH"]++
			continue
		}
		ran = append(ran, b)
		// Each block appends its index and start time: the last line is
		// the block that was running, and the times say which are slow.
		fmt.Fprintf(&script, "echo %d $(date +%%s.%%N) >> %q\n%s", len(ran)-1, progress, b.text)
	}
	fmt.Fprintf(&script, "echo done $(date +%%s.%%N) >> %q\n", progress)
	res.ran = len(ran)

	root, err := filepath.Abs("..")
	if err != nil {
		return res, err
	}
	out, err := os.Create(filepath.Join(tmp, ".output"))
	if err != nil {
		return res, err
	}
	defer out.Close()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir = root
	cmd.Env = guideEnv(t, tmp)
	// A file, not a pipe: background servers keep their copy of it open,
	// and Wait must not wait for them.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	runErr := cmd.Run()
	if cmd.Process != nil {
		// Whatever the guide left running (its kycd, its receivers).
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	b, _ := os.ReadFile(out.Name())
	res.output = string(b)
	if f := os.Getenv("KYCD_DOCS_OUTPUT"); f != "" {
		// For a guide's author: everything the blocks printed.
		_ = os.WriteFile(f, b, 0o644)
	}
	at, _ := os.ReadFile(progress)
	lines := strings.Split(strings.TrimSpace(string(at)), "\n")
	step, _, _ := strings.Cut(lines[len(lines)-1], " ")
	res.slowest, res.slowestTook = slowestBlock(lines, ran)
	if runErr == nil && step == "done" {
		return res, nil
	}
	where := "before the first block"
	if i, err := strconv.Atoi(step); err == nil && i < len(ran) {
		where = fmt.Sprintf("the block at line %d:\n%s", ran[i].line, indent(ran[i].text))
	}
	if ctx.Err() != nil {
		runErr = fmt.Errorf("timed out after %s", timeout)
	}
	return res, fmt.Errorf("%s: %v in %s\noutput (last lines):\n%s", name, runErr, where, indent(tail(res.output, 40)))
}

// guideEnv is the reader's environment without any KYCD_ setting of the
// machine running the test, with the temp dir as TMPDIR (mktemp -d lands
// in it) and free ports for the addresses the guides let the reader
// change (KYCD_ADDR, RECEIVER_ADDR, NODE_RECEIVER_ADDR).
func guideEnv(t *testing.T, tmp string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KYCD_") || strings.HasPrefix(kv, "TMPDIR=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "TMPDIR="+tmp, "CGO_ENABLED=0",
		"KYCD_ADDR="+freeAddr(t), "RECEIVER_ADDR="+freeAddr(t), "NODE_RECEIVER_ADDR="+freeAddr(t))
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func missingCommands(names []string) []string {
	var missing []string
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			missing = append(missing, n)
		}
	}
	return missing
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

func tail(s string, n int) string {
	lines := bytes.Split([]byte(strings.TrimRight(s, "\n")), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// TestGuides runs quickstart.md and operations.md as a reader would,
// against the kycd each builds from this tree, and says how many blocks
// were not run and why.
func TestGuides(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs kycd")
	}
	for _, name := range []string{"quickstart.md", "operations.md"} {
		t.Run(name, func(t *testing.T) {
			md, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			res, err := runGuide(t, name, string(md), 3*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if res.ran == 0 {
				t.Fatalf("%s: no block ran", name)
			}
			t.Logf("%s: %d blocks ran in %s; the slowest, at line %d, took %s", name, res.ran,
				time.Since(start).Round(100*time.Millisecond), res.slowest, res.slowestTook.Round(100*time.Millisecond))
			for why, n := range res.skipped {
				t.Logf("%s: %d block(s) not run: %s", name, n, why)
			}
		})
	}
}
