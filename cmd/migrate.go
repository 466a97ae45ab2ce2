package cmd

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"kycd/seal"
	"kycd/store"
)

// MigrateCmd copies a SQLite installation into an empty PostgreSQL
// database (docs/operations.md: PostgreSQL and fleets).
type MigrateCmd struct {
	From string `required:"" type:"db" placeholder:"kyc.db" help:"The SQLite database file to copy (stop kycd serve first, or the copy is a snapshot of one moment)."`
	To   string `required:"" type:"db" placeholder:"postgres://…" help:"The PostgreSQL database to copy into: an empty database (kycd makes the schema)."`
	masterKeyFlag
}

// Run copies, verifies each table by row count and SHA-256 inside the one
// PostgreSQL transaction, commits, then verifies the audit chain on
// PostgreSQL against the chain head of the SQLite file.
func (c *MigrateCmd) Run(e *env) error {
	if store.IsPostgres(c.From) || !store.IsPostgres(c.To) {
		return errors.New("kycd migrate copies a SQLite file (--from kyc.db) into PostgreSQL (--to postgres://…)")
	}
	if err := existingDB(c.From); err != nil {
		return err
	}
	start := time.Now()
	src, mk, err := c.open(e, c.From, cliOptions(), false)
	if err != nil {
		return err
	}
	defer src.Close()
	before, err := src.VerifyAudit(e.ctx, nil)
	if err != nil {
		return err
	}
	if !before.OK() {
		return fmt.Errorf("the audit log of %s does not verify (%s at row %d): run kycd audit verify and resolve that before migrating", c.From, before.Broken.Problem, before.Broken.ID)
	}
	dst, err := store.Open(e.ctx, c.To, store.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	tables, err := store.CopyToPostgres(e.ctx, src, dst)
	dst.Close()
	if err != nil {
		return err
	}
	var rows int64
	for _, t := range tables {
		fmt.Fprintf(e.stdout, "%-22s %8d rows  sha256 %s\n", t.Table, t.Rows, t.SHA256)
		rows += t.Rows
	}
	// Reopen with the master key, as serve will, and verify the chain.
	dst, err = store.Open(e.ctx, c.To, store.Options{Logger: slog.New(slog.DiscardHandler),
		MasterKey: func(bool) (store.Sealer, error) { return seal.New(mk.key) }})
	if err != nil {
		return fmt.Errorf("reopen %s with the master key: %w", store.RedactDSN(c.To), err)
	}
	defer dst.Close()
	after, err := dst.VerifyAudit(e.ctx, &store.AuditCheckpoint{Rows: before.Rows, Hash: before.Head})
	if err != nil {
		return err
	}
	if !after.OK() || after.Rows != before.Rows || after.Head != before.Head {
		return fmt.Errorf("the audit chain does not verify on PostgreSQL after the copy (%+v)", after.Broken)
	}
	fmt.Fprintf(e.stdout, "copied %d tables, %d rows from %s to %s in %s; every table's count and digest match\n",
		len(tables), rows, c.From, store.RedactDSN(c.To), time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(e.stdout, "audit chain verified on PostgreSQL: %d rows, head %d:%s (the same as the file's)\n", after.Rows, after.Rows, after.Head)
	fmt.Fprintf(e.stdout, "start the fleet with: kycd serve --db '%s' --master-key-file %s --secrets-key-file %s\n",
		store.RedactDSN(c.To), orDefault(mk.path, "<your master key file>"), c.From+".secret-key")
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
