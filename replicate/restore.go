package replicate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benbjohnson/litestream"
	_ "modernc.org/sqlite" // the "sqlite" driver, which Litestream uses too
)

// RestoreOptions tune Restore.
type RestoreOptions struct {
	// Timestamp restores the state as of that time; zero means the newest.
	Timestamp time.Time
	// Force replaces an existing destination (stop the server first).
	Force  bool
	Logger *slog.Logger
}

// Restored describes a restored file.
type Restored struct {
	TXID  uint64    // the last Litestream transaction in it
	AsOf  time.Time // when that transaction reached the replica
	Bytes int64
}

// Restore rebuilds the database from the replica at from into dst. It
// refuses an existing dst (or a stray dst-wal, which SQLite would apply
// to the new file) unless opts.Force, checks the result with PRAGMA
// integrity_check, and only then moves it into place.
func Restore(ctx context.Context, from string, creds Credentials, dst string, opts RestoreOptions) (*Restored, error) {
	client, shown, err := newClient(from, creds)
	if err != nil {
		return nil, err
	}
	if !opts.Force {
		for _, p := range []string{dst, dst + "-wal"} {
			if _, err := os.Lstat(p); err == nil {
				return nil, fmt.Errorf("%s already exists: restore to a new path, or pass --force to replace it (stop kycd first)", p)
			}
		}
	}
	if err := client.Init(ctx); err != nil {
		return nil, fmt.Errorf("replica %s: %w", shown, err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	plan, err := litestream.CalcRestorePlan(ctx, client, 0, opts.Timestamp, log)
	if errors.Is(err, litestream.ErrTxNotAvailable) {
		if opts.Timestamp.IsZero() {
			return nil, fmt.Errorf("replica %s holds no backup", shown)
		}
		return nil, fmt.Errorf("replica %s holds no backup as old as %s", shown, opts.Timestamp.Format(time.RFC3339))
	} else if err != nil {
		return nil, fmt.Errorf("replica %s: %w", shown, err)
	}
	last := plan[len(plan)-1]

	// Restore beside dst, under a name of our own, then move it in.
	tmp := dst + ".restoring"
	for _, p := range []string{tmp, tmp + ".tmp"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	defer os.Remove(tmp)
	lr := litestream.NewReplicaWithClient(nil, client)
	opt := litestream.NewRestoreOptions()
	opt.OutputPath = tmp
	opt.TXID = last.MaxTXID // the plan computed above, not a newer one
	if err := lr.Restore(ctx, opt); err != nil {
		return nil, fmt.Errorf("restore from %s: %w", shown, err)
	}
	if err := IntegrityCheck(ctx, tmp); err != nil {
		return nil, fmt.Errorf("restored file: %w", err)
	}
	// Like a database serve creates: the owner's alone (its -wal and -shm
	// will take this mode too).
	if err := os.Chmod(tmp, 0o600); err != nil {
		return nil, err
	}
	if opts.Force {
		for _, p := range []string{dst + "-wal", dst + "-shm"} {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		}
		err = os.Rename(tmp, dst)
	} else {
		err = os.Link(tmp, dst) // fails if dst appeared meanwhile
	}
	if err != nil {
		return nil, err
	}
	if err := syncDir(filepath.Dir(dst)); err != nil {
		return nil, err
	}
	fi, err := os.Stat(dst)
	if err != nil {
		return nil, err
	}
	return &Restored{TXID: uint64(last.MaxTXID), AsOf: last.CreatedAt, Bytes: fi.Size()}, nil
}

// IntegrityCheck runs PRAGMA integrity_check on the database file at path
// (read-only, leaving no -wal or -shm behind) and returns its findings as
// an error unless it says "ok".
func IntegrityCheck(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?immutable=1")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		found = append(found, s)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if len(found) != 1 || found[0] != "ok" {
		return fmt.Errorf("integrity check failed: %s", strings.Join(found, "; "))
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
