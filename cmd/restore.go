package cmd

import (
	"fmt"
	"log/slog"
	"time"

	"kycd/replicate"
)

// RestoreCmd rebuilds the database from a replica.
type RestoreCmd struct {
	From      string `required:"" placeholder:"URL" help:"Replica to restore from: file:///path, s3://bucket/prefix or sftp://user@host[:port]/path; or a backup file that kycd backup wrote (file:///path/kyc-backup.db, or its path)."`
	DB        string `name:"db" required:"" type:"path" help:"Where to write the restored database: a new file (see --force)."`
	Timestamp string `placeholder:"RFC3339" help:"Restore the state as of this time, e.g. 2026-11-22T09:30:00Z (default: the newest)."`
	Force     bool   `help:"Replace an existing --db and its WAL (stop kycd first)."`
	replicaCredentials
}

// Run restores, checks the result with PRAGMA integrity_check and prints
// what it restored.
func (c *RestoreCmd) Run(e *env) error {
	var at time.Time
	if c.Timestamp != "" {
		var err error
		if at, err = time.Parse(time.RFC3339, c.Timestamp); err != nil {
			return fmt.Errorf("--timestamp %q is not an RFC 3339 time such as 2026-11-22T09:30:00Z", c.Timestamp)
		}
	}
	start := time.Now()
	res, err := replicate.Restore(e.ctx, c.From, c.credentials(), c.DB,
		replicate.RestoreOptions{Timestamp: at, Force: c.Force, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	if res.Backup != "" {
		fmt.Fprintf(e.stdout, "restored %s from the backup file %s in %s: %d bytes, integrity_check ok\n",
			c.DB, res.Backup, time.Since(start).Round(time.Millisecond), res.Bytes)
	} else {
		fmt.Fprintf(e.stdout, "restored %s from %s in %s: %d bytes, state as of %s (transaction %d), integrity_check ok\n",
			c.DB, replicate.Redact(c.From), time.Since(start).Round(time.Millisecond), res.Bytes,
			res.AsOf.UTC().Format(time.RFC3339), res.TXID)
	}
	fmt.Fprintf(e.stderr, "kycd: the key files are not in the replica or backup: serve %s with the original's --secrets-key-file and --master-key-file (or copy them beside it as %s.secret-key and %s.master-key).\n",
		c.DB, c.DB, c.DB)
	return nil
}
