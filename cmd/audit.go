package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// AuditCmd groups the audit log commands.
type AuditCmd struct {
	Verify AuditVerifyCmd `cmd:"" help:"Check the audit log's keyed chain and its signed head; exit status 1 at the first problem."`
	Export AuditExportCmd `cmd:"" help:"Write the audit log as JSON lines, hashes included."`
}

// AuditVerifyCmd checks the audit log's chain and signed head.
type AuditVerifyCmd struct {
	dbFlag
	masterKeyFlag
	ExpectHead string `name:"expect-head" env:"KYCD_AUDIT_EXPECT_HEAD" placeholder:"ROWS:HASH" help:"A head printed by an earlier verify (e.g. 1234:3fa4…), kept where the server cannot write: the log must still hold that row with that hash. Catches a rollback of the log together with its signed head."`
}

// Run prints "ok: N rows, chain head N:<hash>", or the first problem and
// an error.
func (c *AuditVerifyCmd) Run(e *env) error {
	var expect *store.AuditCheckpoint
	if c.ExpectHead != "" {
		var err error
		if expect, err = parseHead(c.ExpectHead); err != nil {
			return err
		}
	}
	s, err := cliOpenError(c.DB, func() (*store.Store, error) {
		st, _, err := c.open(e, c.DB, cliOptions(), false)
		return st, err
	})
	if err != nil {
		return err
	}
	defer s.Close()
	v, err := s.VerifyAudit(e.ctx, expect)
	if err != nil {
		return err
	}
	if b := v.Broken; b != nil {
		where := fmt.Sprintf("row %d", b.ID)
		if b.ID == 0 {
			where = "the head"
		}
		fmt.Fprintf(e.stdout, "broken at %s: %s: %s\n", where, b.Problem, b.Detail)
		if b.Expected != "" || b.Stored != "" {
			fmt.Fprintf(e.stdout, "  %s expected %s\n  %s stored   %s\n", b.Field, orNull(b.Expected), b.Field, orNull(b.Stored))
		}
		return fmt.Errorf("audit log broken at %s (%s)", where, b.Problem)
	}
	fmt.Fprintf(e.stdout, "ok: %d rows, chain head %d:%s\n", v.Rows, v.Rows, v.Head)
	fmt.Fprintf(e.stdout, "signed head: signed %s; keyed with the master key's MAC from row %d (since %s)\n",
		kyc.FormatTime(v.SignedAt), v.MACFrom, kyc.FormatTime(v.Since))
	if v.PreChain > 0 {
		fmt.Fprintf(e.stdout, "%d rows were written before the chain started (no stored hashes); they are covered once a chained row follows them\n", v.PreChain)
	}
	if expect == nil {
		fmt.Fprintf(e.stdout, "keep %d:%s where the server cannot write, and pass it back with --expect-head\n", v.Rows, v.Head)
	}
	return nil
}

// headPattern is a head as verify prints it.
var headPattern = regexp.MustCompile(`^(\d+):([0-9a-f]{64})$`)

func parseHead(s string) (*store.AuditCheckpoint, error) {
	m := headPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return nil, fmt.Errorf("--expect-head %q must be ROWS:HASH as kycd audit verify prints it, e.g. 12:%s", s, strings.Repeat("0", 64))
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return nil, fmt.Errorf("--expect-head %q: %w", s, err)
	}
	return &store.AuditCheckpoint{Rows: n, Hash: m[2]}, nil
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
	s, err := openStore(e.ctx, c.DB)
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

// existingDB fails unless the database file exists, for commands that
// would write something else (a key file) before opening it.
func existingDB(path string) error {
	if store.IsPostgres(path) {
		return nil // Open with MustExist checks the database has a kycd schema
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no database at %s: check --db (kycd init --db %s creates a new one, as kycd serve does)", path, path)
	}
	return nil
}
