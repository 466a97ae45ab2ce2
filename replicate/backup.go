package replicate

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the database at db into the new file
// out, while the server may keep writing: VACUUM INTO runs in one read
// transaction on a read-only connection, so the copy is the state of one
// moment. The copy is fsynced and checked with PRAGMA integrity_check
// before it appears under its name. It returns the copy's size.
func Backup(ctx context.Context, db, out string) (int64, error) {
	if _, err := os.Lstat(out); err == nil {
		return 0, fmt.Errorf("%s already exists: back up to a new file", out)
	}
	if _, err := os.Stat(db); err != nil {
		return 0, fmt.Errorf("no database at %s", db)
	}
	// VACUUM INTO accepts an empty file: a unique one beside out, so that
	// out only ever appears complete.
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.partial")
	if err != nil {
		return 0, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())

	// mode=ro: this connection can never write the live database (it may
	// create an empty -wal and -shm when no server has them open). The
	// busy timeout covers the moment a writer switches the journal mode.
	conn, err := sql.Open("sqlite", "file:"+(&url.URL{Path: db}).EscapedPath()+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "VACUUM INTO ?", tmp.Name()); err != nil {
		return 0, fmt.Errorf("vacuum into: %w", err)
	}
	conn.Close()

	f, err := os.Open(tmp.Name())
	if err != nil {
		return 0, err
	}
	err = f.Sync()
	f.Close()
	if err != nil {
		return 0, err
	}
	if err := IntegrityCheck(ctx, tmp.Name()); err != nil {
		return 0, fmt.Errorf("backup: %w", err)
	}
	if err := os.Link(tmp.Name(), out); err != nil { // fails if out appeared meanwhile
		return 0, err
	}
	if err := syncDir(filepath.Dir(out)); err != nil {
		return 0, err
	}
	fi, err := os.Stat(out)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}
