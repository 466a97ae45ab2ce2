package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// pgEngine runs the store on PostgreSQL, for a fleet of kycd instances on
// one database. What differs from SQLite:
//
//   - transactions: every write transaction first takes one advisory lock,
//     writeLockKey, so that write transactions run one at a time across the
//     fleet, as they do on one SQLite file. Use cases that read then write
//     (the audit chain, four-eyes, state machines, dedupe keys) keep the
//     isolation they were written for; reads never take it. Because the
//     lock is held through COMMIT, PostgreSQL's own group commit cannot
//     batch the WAL flushes of serialised transactions (one transaction per
//     InTx measured 28 creates/s against 667 on SQLite on this machine), so
//     the store keeps its commit loop on PostgreSQL too: a batch of use
//     cases, each in a savepoint, one lock, one commit. See docs/operations.md
//     "PostgreSQL and fleets".
//   - schema version: a table, kycd_schema, instead of PRAGMA user_version.
//   - JSON, zero blobs, secure_delete: the fragments below.
type pgEngine struct{}

// writeLockKey is the advisory lock every write transaction holds ("kycd").
const writeLockKey = 0x6b796364

// migrateLockKey serialises migrations of instances starting together.
const migrateLockKey = writeLockKey + 1

func (pgEngine) Name() string { return "postgres" }

func (pgEngine) jsonArrayHas(col string) string {
	return "EXISTS (SELECT 1 FROM jsonb_array_elements_text(" + col + "::jsonb) AS e (value) WHERE value = ?)"
}

func (pgEngine) jsonInt(col, field string) string {
	return "(convert_from(" + col + ", 'UTF8')::jsonb ->> '" + field + "')::bigint"
}

func (pgEngine) strContains(hay string) string { return "strpos(" + hay + ", ?) > 0" }

func (pgEngine) noIndex(col string) string { return col }

func (pgEngine) skipLocked() string { return " FOR UPDATE SKIP LOCKED" }

func (pgEngine) zeroBlob(n int) string { return fmt.Sprintf("decode(repeat('00', %d), 'hex')", n) }

func (pgEngine) schemaVersion(ctx context.Context, q rowQueryer) (int, error) {
	var v int
	err := q.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM kycd_schema`).Scan(&v)
	if isUndefinedTable(err) {
		return 0, nil // an empty database
	}
	return v, err
}

// secureDelete has no PostgreSQL counterpart: deleted rows stay in the
// table's pages until VACUUM reuses them (docs/operations.md, "PostgreSQL and fleets").
func (pgEngine) secureDelete(*sql.Tx, bool) error { return nil }

func (pgEngine) lockWrites(tx *sql.Tx) error { return lockWrites(tx) }

// lockWrites makes tx wait for, then hold until it ends, the fleet-wide
// write lock.
func lockWrites(tx *sql.Tx) error {
	_, err := tx.Exec(`SELECT pg_advisory_xact_lock(?)`, int64(writeLockKey))
	return err
}

// pgPoolSize bounds each instance's connections: reads run in parallel,
// writes queue on the advisory lock anyway.
const pgPoolSize = 16

func openPostgres(ctx context.Context, dsn string, opts Options) (*Store, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	shown := redactDSN(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", shown, err)
	}
	conn := pgConnector{stdlib.GetConnector(*cfg)}
	// The commit loop's connection, and a pool for reads and job claims.
	writer := sql.OpenDB(conn)
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(pgPoolSize)
	db.SetMaxIdleConns(pgPoolSize)
	db.SetConnMaxIdleTime(5 * time.Minute)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		writer.Close()
		return nil, fmt.Errorf("open database %s: %w", shown, err)
	}
	s := &Store{path: shown, eng: pgEngine{}, writer: writer, reader: db, log: log, Now: time.Now,
		writes: make(chan *writeReq, 256), closing: make(chan struct{}), jobSignal: make(chan struct{}, 1)}
	fail := func(err error) (*Store, error) {
		db.Close()
		writer.Close()
		return nil, err
	}
	if opts.MustExist {
		v, err := s.eng.schemaVersion(ctx, db)
		if err != nil {
			return fail(fmt.Errorf("open database %s: %w", shown, err))
		}
		if v == 0 {
			return fail(fmt.Errorf("%w: %s has no kycd schema", ErrNoDatabase, shown))
		}
	}
	if err := s.migratePostgres(ctx); err != nil {
		return fail(err)
	}
	if opts.MasterKey != nil {
		if err := s.loadKeys(ctx, opts.MasterKey); err != nil {
			return fail(err)
		}
	}
	s.readStmts = &stmtCache{db: db}
	s.wg.Add(1)
	go s.commitLoop()
	return s, nil
}

// OpenSQL opens a plain database/sql handle on a --db value, outside any
// Store (tools and tests that read rows directly). Queries use SQLite's
// placeholders on both engines, as in the store.
func OpenSQL(db string) (*sql.DB, error) {
	if !IsPostgres(db) {
		return sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(10000)")
	}
	cfg, err := pgx.ParseConfig(db)
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(pgConnector{stdlib.GetConnector(*cfg)}), nil
}

// RedactDSN hides the password of a postgres:// URL, for messages and logs.
func RedactDSN(dsn string) string { return redactDSN(dsn) }

func redactDSN(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres://…"
	}
	return u.Redacted()
}

// inTxNoFleetLock is InTx for the few use cases that lock the rows they
// change themselves (ClaimJobs): on PostgreSQL it is a transaction of its
// own on the read pool, without the fleet-wide write lock; on SQLite it is
// InTx.
func (s *Store) inTxNoFleetLock(ctx context.Context, fn func(*Tx) error) error {
	if s.eng.Name() == "sqlite" {
		return s.InTx(ctx, fn)
	}
	return s.plainTx(ctx, fn)
}

// plainTx runs fn in one ordinary transaction. As InTx, once started it
// runs to completion even if ctx ends, so that the caller learns whether
// it committed.
func (s *Store) plainTx(ctx context.Context, fn func(*Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.closeMu.RLock()
	if s.closed {
		s.closeMu.RUnlock()
		return ErrClosed
	}
	s.wg.Add(1)
	s.closeMu.RUnlock()
	defer s.wg.Done()

	sqlTx, err := s.reader.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return fmt.Errorf("begin: %w", formatError(err))
	}
	tx := &Tx{tx: sqlTx, q: txPool{tx: sqlTx}, now: s.Now().UTC().Truncate(time.Millisecond), keys: s.keys,
		eng: s.eng, actor: ActorFrom(ctx)}
	res := runOne(fn, tx)
	if res.err != nil || res.panicked || res.goexit {
		_ = sqlTx.Rollback()
		switch {
		case res.panicked:
			panic(res.panicVal)
		case res.goexit:
			runtime.Goexit()
		}
		return res.err
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", formatError(err))
	}
	s.stats.commits.Add(1)
	s.stats.useCases.Add(1)
	if tx.enqueued {
		select {
		case s.jobSignal <- struct{}{}:
		default:
		}
	}
	return nil
}

// migratePostgres applies the migrations under store/migrations/postgres,
// each in its own transaction, holding an advisory lock so that instances
// started together migrate once.
func (s *Store) migratePostgres(ctx context.Context) error {
	ms, err := loadMigrations(pgMigrationDir)
	if err != nil {
		return err
	}
	latest := ms[len(ms)-1].version
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return fmt.Errorf("open database %s: %w", s.path, err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(?)`, int64(migrateLockKey)); err != nil {
		return fmt.Errorf("open database %s: %w", s.path, err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(?)`, int64(migrateLockKey))
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS kycd_schema (
		version    INTEGER PRIMARY KEY,
		applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("open database %s: %w", s.path, err)
	}
	current, err := s.eng.schemaVersion(ctx, conn)
	if err != nil {
		return fmt.Errorf("open database %s: %w", s.path, err)
	}
	if current > latest {
		return fmt.Errorf("database %s has schema version %d but this kycd knows only up to %d: it was written by a newer kycd; upgrade kycd (never downgrade a database)", s.path, current, latest)
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migration postgres/%s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration postgres/%s: %w", m.name, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO kycd_schema (version, applied_at) VALUES (?, ?)`,
			m.version, time.Now().UTC().Format(time.RFC3339)); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("migration postgres/%s: %w", m.name, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration postgres/%s: %w", m.name, err)
		}
	}
	return nil
}

// errPostgresOnlySQLite is returned by the operations that exist only for
// a SQLite file (Pause for Litestream, SetMaxPageCount).
var errPostgresOnlySQLite = errors.New("store: not available on PostgreSQL (SQLite only)")
