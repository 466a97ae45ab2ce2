package replicate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
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
	// Backup is the path of the single-file backup (kycd backup) that was
	// restored, "" for a restore from a replica; TXID and AsOf are then
	// zero: such a file holds one state, with no history.
	Backup string
}

// Restore rebuilds the database from the replica at from into dst. It
// refuses an existing dst (or a stray dst-wal, which SQLite would apply
// to the new file) unless opts.Force, checks the result with PRAGMA
// integrity_check, and only then moves it into place.
//
// A file:// URL (or a plain path) naming a single-file backup that kycd
// backup wrote, rather than a replica's directory, restores that file:
// checked the same way and moved into place the same way. Litestream would
// otherwise look for ltx/ inside it ("not a directory").
func Restore(ctx context.Context, from string, creds Credentials, dst string, opts RestoreOptions) (*Restored, error) {
	if !opts.Force {
		for _, p := range []string{dst, dst + "-wal"} {
			if _, err := os.Lstat(p); err == nil {
				return nil, fmt.Errorf("%s already exists: restore to a new path, or pass --force to replace it (stop kycd first)", p)
			}
		}
	}
	if path, ok, err := backupFile(from); err != nil {
		return nil, err
	} else if ok {
		if !opts.Timestamp.IsZero() {
			return nil, fmt.Errorf("%s is a single-file backup (kycd backup): it holds one state, so --timestamp does not apply; restore it without --timestamp", path)
		}
		return restoreBackup(ctx, path, dst, opts.Force)
	}
	client, shown, err := newClient(from, creds)
	if err != nil {
		return nil, err
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
	n, err := place(ctx, tmp, dst, opts.Force)
	if err != nil {
		return nil, err
	}
	return &Restored{TXID: uint64(last.MaxTXID), AsOf: last.CreatedAt, Bytes: n}, nil
}

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// backupFile reports whether from names a regular file (file:///path, or
// a plain path) rather than a replica: a SQLite file, or an error saying
// what the file is not.
func backupFile(from string) (string, bool, error) {
	path := from
	if u, err := url.Parse(from); err == nil && u.Scheme == "file" {
		path = u.Path
	} else if err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
		return "", false, nil // s3://, sftp://: replicas
	}
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() {
		return "", false, nil // a replica directory, or nothing: Restore says which
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != sqliteHeader {
		return "", false, fmt.Errorf("%s is a file but not a SQLite database: --from takes a backup file that kycd backup wrote, or a replica (a directory, s3:// or sftp://) that serve --replicate writes", path)
	}
	return path, true, nil
}

// restoreBackup restores the single-file backup at src: copied beside
// dst, never moved (the backup stays as it was), then checked and placed
// like a replica's restore.
func restoreBackup(ctx context.Context, src, dst string, force bool) (*Restored, error) {
	tmp := dst + ".restoring"
	if err := os.Remove(tmp); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	defer os.Remove(tmp)
	in, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("copy %s: %w", src, err)
	}
	n, err := place(ctx, tmp, dst, force)
	if err != nil {
		return nil, err
	}
	return &Restored{Bytes: n, Backup: src}, nil
}

// place checks the restored file tmp and moves it to dst, replacing dst
// and dropping its -wal and -shm only when force, and returns its size.
func place(ctx context.Context, tmp, dst string, force bool) (int64, error) {
	if err := IntegrityCheck(ctx, tmp); err != nil {
		return 0, fmt.Errorf("restored file: %w", err)
	}
	// Like a database serve creates: the owner's alone (its -wal and -shm
	// will take this mode too).
	if err := os.Chmod(tmp, 0o600); err != nil {
		return 0, err
	}
	var err error
	if force {
		for _, p := range []string{dst + "-wal", dst + "-shm"} {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return 0, err
			}
		}
		err = os.Rename(tmp, dst)
	} else {
		err = os.Link(tmp, dst) // fails if dst appeared meanwhile
	}
	if err != nil {
		return 0, err
	}
	if err := syncDir(filepath.Dir(dst)); err != nil {
		return 0, err
	}
	fi, err := os.Stat(dst)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
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
