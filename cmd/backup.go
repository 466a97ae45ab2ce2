package cmd

import (
	"fmt"
	"time"

	"kycd/replicate"
)

// BackupCmd writes a single-file copy of the database. The copy holds no
// per-applicant keys (<db>.keys) and no key files: they are backed up
// apart, or the copy cannot open any applicant's images or documents.
type BackupCmd struct {
	DB  string `name:"db" required:"" env:"KYCD_DB" type:"db" help:"The database file to copy (SQLite only: back up PostgreSQL with its own tools)."`
	Out string `required:"" type:"path" help:"The backup file to write: a new file."`
}

// Run writes the copy (VACUUM INTO on a read-only connection, safe while
// kycd serve runs), checks it and prints its size.
func (c *BackupCmd) Run(e *env) error {
	if err := requireSQLite(c.DB, "kycd backup", "use the engine's own tools: pg_dump, or pg_basebackup with WAL archiving for point-in-time recovery"); err != nil {
		return err
	}
	start := time.Now()
	n, err := replicate.Backup(e.ctx, c.DB, c.Out)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "backed up %s to %s in %s: %d bytes, integrity_check ok\n", c.DB, c.Out, time.Since(start).Round(time.Millisecond), n)
	fmt.Fprintf(e.stderr, "kycd: the copy holds no per-applicant keys: without a copy of %s.keys (and the master key) it cannot open\n"+
		"any applicant's images, selfies, liveness frames or document details. Back up %s.keys too, apart from this copy,\n"+
		"and keep its copies only a few days: an older one brings back the data of applicants erased since.\n", c.DB, c.DB)
	return nil
}
