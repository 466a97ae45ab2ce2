// Package cmd is kycd's command line (kong) and the only place where the
// program's parts are constructed and wired together.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"

	"github.com/alecthomas/kong"

	"kycd/internal/buildinfo"
	"kycd/kyc"
	"kycd/store"
)

// CLI is the command-line interface of the kycd binary.
type CLI struct {
	Serve       ServeCmd       `cmd:"" help:"Run the HTTP API."`
	Init        InitCmd        `cmd:"" help:"Create a database ready to serve: keys, the first organization with its contact e-mail, a sandbox key, optionally the first admin."`
	Orgs        OrgsCmd        `cmd:"" help:"Manage organizations."`
	Keys        KeysCmd        `cmd:"" help:"Create, list and revoke API keys."`
	Users       UsersCmd       `cmd:"" help:"Create, list, disable and enable back-office (/console/) users."`
	Applicants  ApplicantsCmd  `cmd:"" help:"Personal data of one applicant: show, erase, legal hold, export (docs/personal-data.md)."`
	Lists       ListsCmd       `cmd:"" help:"Import, list and update the AML watch lists."`
	Webhooks    WebhooksCmd    `cmd:"" help:"Webhook tools."`
	Audit       AuditCmd       `cmd:"" help:"Verify and export the hash-chained audit log."`
	Usage       UsageCmd       `cmd:"" help:"Print an organization's metered (billable, live) usage in a month, per day."`
	MasterKey   MasterKeyCmd   `cmd:"" name:"master-key" help:"Rotate the master key of encryption at rest."`
	Backup      BackupCmd      `cmd:"" help:"Write a consistent single-file copy of the database (safe while serve runs). The copy holds no per-applicant keys: back up <db>.keys and the master key too, apart from it."`
	Restore     RestoreCmd     `cmd:"" help:"Restore the database from a replica (serve --replicate)."`
	Migrate     MigrateCmd     `cmd:"" help:"Copy a SQLite database into an empty PostgreSQL database, verified."`
	Version     VersionCmd     `cmd:"" help:"Print the version, commit and schema version."`
	Healthcheck HealthcheckCmd `cmd:"" help:"Exit 0 when the kycd serving on --addr answers GET /healthz, else 1 (for container HEALTHCHECKs)."`
}

// dbFlag is the database flag of every command that opens the file.
type dbFlag struct {
	DB string `name:"db" required:"" env:"KYCD_DB" type:"db" help:"SQLite database file (init and serve create it if missing; every other command needs it to exist), or a postgres:// URL (docs/operations.md: PostgreSQL and fleets)."`
}

// env carries what commands need besides their flags.
type env struct {
	ctx     context.Context
	version string         // build.Version, or what the caller passed
	build   buildinfo.Info // version, commit; for kycd version and /healthz
	stdout  io.Writer
	stderr  io.Writer
}

// Main parses args, runs the selected command and returns the exit code:
// 0 on success, 1 when the command failed, 2 for a usage error.
func Main(ctx context.Context, version string, args []string, stdout, stderr io.Writer) int {
	build := buildinfo.Read()
	if version != "" {
		build.Version = version // tests pass "test"
	}
	var cli CLI
	exit := -1
	parser, err := kong.New(&cli,
		kong.Name("kycd"),
		kong.Description("Self-hosted identity verification (KYC) and AML screening. Every flag can also be set with its KYCD_* environment variable."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exit = code }),
		kong.UsageOnError(),
		kong.NamedMapper("db", dbMapper{}),
		// serve has many flags: its help shows them by topic.
		kong.ExplicitGroups([]kong.Group{
			{Key: "server", Title: "Server"},
			{Key: "keys", Title: "Keys (back them up apart from the database)"},
			{Key: "replication", Title: "Replication (Litestream)"},
			{Key: "lists", Title: "Watch lists"},
			{Key: "email", Title: "E-mail"},
			{Key: "webhooks", Title: "Webhooks"},
			{Key: "monitoring", Title: "Monitoring"},
		}),
	)
	if err != nil {
		fmt.Fprintln(stderr, "kycd:", err)
		return 2
	}
	kctx, err := parser.Parse(args)
	if exit >= 0 {
		return exit // --help
	}
	if err != nil {
		fmt.Fprintln(stderr, "kycd:", err)
		return 2
	}
	e := &env{ctx: ctx, version: build.Version, build: build, stdout: stdout, stderr: stderr}
	if kctx.Command() != "serve" {
		// What a command changes (keys, settings, lists…) is audited as
		// this operator's doing. serve's jobs act as the system.
		e.ctx = store.WithActor(ctx, operatorPrincipal())
	}
	if err := kctx.Run(e); err != nil {
		fmt.Fprintln(stderr, "kycd:", userMessage(err))
		return 1
	}
	return 0
}

// userMessage shows a domain error's message without the internal chain.
func userMessage(err error) string {
	var e *kyc.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// cliOptions are the store options of a short CLI command: no background
// checkpointer (SQLite checkpoints on commit as usual), and a database
// that must exist: a mistyped --db fails instead of leaving an empty file.
func cliOptions() store.Options {
	return store.Options{CheckpointEvery: -1, Logger: slog.New(slog.DiscardHandler), MustExist: true}
}

// openStore opens an existing database without its master key: enough to
// read it (lists of keys, organizations, endpoints, list versions).
func openStore(ctx context.Context, path string) (*store.Store, error) {
	return cliOpenError(path, func() (*store.Store, error) { return store.Open(ctx, path, cliOptions()) })
}

// openAudited opens an existing database with its master key, for the
// commands whose changes are written to the audit log: its rows are keyed
// with a MAC the master key unlocks. The key is found as serve finds it;
// a database that has none yet gets one, as on serve's first start.
func (f masterKeyFlag) openAudited(e *env, path string) (*store.Store, error) {
	return cliOpenError(path, func() (*store.Store, error) {
		st, _, err := f.open(e, path, cliOptions(), true)
		return st, err
	})
}

// cliOpenError says what to do about a missing database.
func cliOpenError(path string, open func() (*store.Store, error)) (*store.Store, error) {
	st, err := open()
	if errors.Is(err, store.ErrNoDatabase) {
		return nil, fmt.Errorf("no database at %s: check --db (kycd init --db %s creates a new one, as kycd serve does)", path, path)
	}
	return st, err
}

// operatorPrincipal is who runs this command, for the audit log:
// operator cli:<user name>.
func operatorPrincipal() kyc.Principal {
	return kyc.Principal{Type: kyc.ActorOperator, ID: operator()}
}

// VersionCmd prints the version.
type VersionCmd struct{}

// Run prints "kycd <version> (commit <hash>[, modified]; schema <n>)".
func (c *VersionCmd) Run(e *env) error {
	fmt.Fprintf(e.stdout, "kycd %s\n", e.build.Describe(store.SchemaVersion()))
	return nil
}

// dbMapper decodes a --db value: a postgres:// URL as it is, a SQLite file
// path expanded as kong's "path" type expands it (~, made absolute).
type dbMapper struct{}

func (dbMapper) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	var v string
	if err := ctx.Scan.PopValueInto("db", &v); err != nil {
		return err
	}
	if !store.IsPostgres(v) {
		v = kong.ExpandPath(v)
	}
	target.SetString(v)
	return nil
}

// requireSQLite refuses, with what to do instead, a command that only
// exists for a SQLite file.
func requireSQLite(db, what, instead string) error {
	if store.IsPostgres(db) {
		return fmt.Errorf("%s works on a SQLite database file only; on PostgreSQL %s (docs/operations.md: PostgreSQL and fleets)", what, instead)
	}
	return nil
}
