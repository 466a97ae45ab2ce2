package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"kycd/store"
)

// AuditCmd groups the audit log commands.
type AuditCmd struct {
	Verify AuditVerifyCmd `cmd:"" help:"Check the audit log's hash chain; exit status 1 at the first broken row."`
	Export AuditExportCmd `cmd:"" help:"Write the audit log as JSON lines, hashes included."`
}

// AuditVerifyCmd checks the audit log's hash chain.
type AuditVerifyCmd struct {
	dbFlag
}

// Run prints "ok: N rows, chain head <hash>", or the first broken row and
// an error.
func (c *AuditVerifyCmd) Run(e *env) error {
	s, err := openExisting(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	v, err := s.VerifyAudit(e.ctx)
	if err != nil {
		return err
	}
	if b := v.Broken; b != nil {
		fmt.Fprintf(e.stdout, "broken at row %d: %s: %s\n", b.ID, b.Problem, b.Detail)
		fmt.Fprintf(e.stdout, "  %s expected %s\n  %s stored   %s\n", b.Field, b.Expected, b.Field, orNull(b.Stored))
		return fmt.Errorf("audit log chain broken at row %d (%s)", b.ID, b.Problem)
	}
	fmt.Fprintf(e.stdout, "ok: %d rows, chain head %s\n", v.Rows, v.Head)
	if v.PreChain > 0 {
		fmt.Fprintf(e.stdout, "%d rows were written before the chain started (no stored hashes); they are covered once a chained row follows them\n", v.PreChain)
	}
	return nil
}

func orNull(s string) string {
	if s == "" {
		return "NULL"
	}
	return s
}

// AuditExportCmd writes the audit log as JSON lines.
type AuditExportCmd struct {
	dbFlag
	Since string `env:"KYCD_AUDIT_SINCE" placeholder:"RFC3339" help:"Only rows created at or after this time, e.g. 2026-01-01T00:00:00Z (default: all rows)."`
	Out   string `env:"KYCD_AUDIT_OUT" type:"path" placeholder:"FILE" help:"Write to this file (created mode 0600, replaced if it exists) instead of standard output."`
}

// Run writes one JSON object per row, oldest first.
func (c *AuditExportCmd) Run(e *env) (err error) {
	var since time.Time
	if c.Since != "" {
		if since, err = time.Parse(time.RFC3339, strings.TrimSpace(c.Since)); err != nil {
			return fmt.Errorf("--since %q is not an RFC 3339 time such as 2026-01-01T00:00:00Z", c.Since)
		}
	}
	s, err := openExisting(e, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	if c.Out == "" {
		w := bufio.NewWriter(e.stdout)
		if err := s.ExportAudit(e.ctx, since, w); err != nil {
			return err
		}
		return w.Flush()
	}
	f, err := os.OpenFile(c.Out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(c.Out) // no half export left behind
		}
	}()
	lw := &lineCounter{w: f}
	w := bufio.NewWriter(lw)
	if err := s.ExportAudit(e.ctx, since, w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "exported %d rows to %s\n", lw.lines, c.Out)
	return nil
}

// lineCounter counts the JSON lines written (a newline inside a value is
// escaped, so every '\n' ends a row).
type lineCounter struct {
	w     io.Writer
	lines int
}

func (l *lineCounter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	l.lines += bytes.Count(p[:n], []byte{'\n'})
	return n, err
}

// openExisting opens a database that must already exist: checking a
// mistyped path must fail, not create an empty log that verifies.
func openExisting(e *env, path string) (*store.Store, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no database at %s", path)
	}
	return openStore(e.ctx, path)
}
