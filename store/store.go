// Package store keeps everything kycd knows in one SQLite file, or in a
// PostgreSQL database shared by a fleet of instances (engine.go): the only
// package that speaks SQL. Writes go through one writer goroutine that groups
// concurrent transactions into one commit (see tx.go); reads use a separate
// read-only pool.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver, pure Go
)

// pragmas apply to every connection. Each is there for a reason:
//   - busy_timeout first, so a connection waits (10 s) instead of failing
//     while another process — the CLI, Litestream — holds a lock;
//   - WAL, so readers never block the writer and vice versa;
//   - synchronous FULL: in WAL mode every commit fsyncs the WAL, so a 2xx
//     response survives kill -9 AND a power cut (live decisions are final).
//     Group commit (tx.go) pays that fsync once per batch, not per request;
//   - foreign_keys, off by default in SQLite;
//   - journal_size_limit truncates the WAL file back to 64 MiB whenever it is
//     reset, so a burst does not leave a huge file behind.
const pragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)" +
	"&_pragma=foreign_keys(ON)&_pragma=journal_size_limit(67108864)&_pragma=temp_store(MEMORY)"

// ErrNoDatabase is returned by Open with Options.MustExist when the file
// does not exist.
var ErrNoDatabase = errors.New("no database file")

// Store is the handle on the database: a SQLite file or, with a
// postgres:// URL, a PostgreSQL database (engine_postgres.go).
type Store struct {
	path   string // the file, or the URL without its password
	eng    engine
	writer *sql.DB // one connection; only the commit loop uses it
	reader *sql.DB // query_only pool for single-statement reads
	ckpt   *sql.DB // one connection for background checkpoints
	// Prepared statements, per pool.
	readStmts, writeStmts *stmtCache
	log                   *slog.Logger

	// Now is the clock every write transaction reads once; tests replace it.
	Now func() time.Time

	writes  chan *writeReq
	closing chan struct{}
	closeMu sync.RWMutex
	closed  bool
	wg      sync.WaitGroup
	once    sync.Once
	stats   struct{ commits, useCases, walRestarts atomic.Uint64 }
	// restartDue is set by the checkpointer when the WAL should restart.
	restartDue atomic.Bool
	// writesFailing is set when a write fails on the disk (ErrStorage) and
	// cleared by a successful ProbeWrite (health.go).
	writesFailing atomic.Bool
	jobSignal     chan struct{}
	pauses        chan func() // Pause (pause.go)

	// Encryption at rest (datakey.go); nil without Options.MasterKey.
	keys   *keyring
	master Sealer
}

// Options tune Open. The zero value is fine.
type Options struct {
	Logger *slog.Logger
	// CheckpointEvery is how often the background checkpointer runs;
	// default 250ms (at 500 writes/s that halved the worst latency against
	// 1s, by leaving the commit loop less to finish). Negative disables it
	// (the CLI, which writes little).
	CheckpointEvery time.Duration
	// ExternalCheckpoints hands every checkpoint to another part of the
	// process: Litestream replication (package replicate), which must copy
	// each WAL frame before the frame is checkpointed and the WAL restarts.
	// Then there is no background checkpointer, no automatic checkpoint on
	// commit and no final checkpoint on Close; CheckpointEvery is ignored.
	ExternalCheckpoints bool
	// MustExist refuses to create the file: Open fails with ErrNoDatabase
	// when there is none (CLI commands, where a mistyped --db must not
	// leave an empty database behind).
	MustExist bool
	// MasterKey gives Open the master key that wraps the database's data
	// keys (datakey.go). Open calls it once, after the migrations; hasKeys
	// tells whether the database has a data key yet, so that a caller may
	// make a master key for a new database. Open fails with
	// ErrWrongMasterKey when the key does not open the data key. Without
	// MasterKey, saving or reading captured images, document details and
	// portal link tokens fails with ErrNoMasterKey: enough for commands
	// that touch none of them.
	MasterKey func(hasKeys bool) (Sealer, error)
}

// Open opens (creating if needed) the database at path, applies pending
// migrations and starts the commit loop and the checkpointer. It fails if
// the file was written by a newer kycd.
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if path == "" {
		return nil, errors.New("store: no database path given")
	}
	if IsPostgres(path) {
		return openPostgres(ctx, path, opts)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	base := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + pragmas
	if opts.MustExist {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNoDatabase, path)
		}
		base += "&mode=rw" // SQLite itself will not create it either (a race with a delete)
	} else if err := createPrivate(path); err != nil {
		return nil, err
	}
	// The writer turns off automatic checkpoints: SQLite would run them
	// inside a commit, stalling every request queued behind it. The
	// checkpointer goroutine does that work on its own connection instead.
	// _txlock=immediate takes the write lock at BEGIN, so a transaction that
	// reads then writes cannot fail with SQLITE_BUSY on lock upgrade.
	writer, err := sql.Open("sqlite", base+"&_txlock=immediate&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		return nil, fmt.Errorf("open writer: %w", err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)

	s := &Store{path: path, eng: sqliteEngine{}, writer: writer, log: log, Now: time.Now,
		writes: make(chan *writeReq, 256), closing: make(chan struct{}), jobSignal: make(chan struct{}, 1),
		pauses: make(chan func())}
	if err := s.migrate(ctx); err != nil {
		writer.Close()
		return nil, err
	}
	if opts.MasterKey != nil {
		if err := s.loadKeys(ctx, opts.MasterKey); err != nil {
			writer.Close()
			return nil, err
		}
	}

	s.reader, err = sql.Open("sqlite", base+"&_pragma=query_only(1)")
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("open reader: %w", err)
	}
	s.readStmts, s.writeStmts = &stmtCache{db: s.reader}, &stmtCache{db: writer}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	s.reader.SetMaxOpenConns(n)
	s.reader.SetMaxIdleConns(n)
	s.reader.SetConnMaxIdleTime(0)
	s.reader.SetConnMaxLifetime(0)

	s.wg.Add(1)
	go s.commitLoop()

	if opts.ExternalCheckpoints {
		return s, nil // the writer's automatic checkpoint stays off too
	}
	every := opts.CheckpointEvery
	if every == 0 {
		every = 250 * time.Millisecond
	}
	if every > 0 {
		s.ckpt, err = sql.Open("sqlite", base)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("open checkpointer: %w", err)
		}
		s.ckpt.SetMaxOpenConns(1)
		s.wg.Add(1)
		go s.checkpointLoop(every)
	} else {
		// Without the checkpointer (short-lived CLI commands) let SQLite
		// checkpoint on commit as usual.
		if _, err := writer.ExecContext(ctx, "PRAGMA wal_autocheckpoint=1000"); err != nil {
			s.Close()
			return nil, fmt.Errorf("enable autocheckpoint: %w", err)
		}
	}
	return s, nil
}

// createPrivate creates a missing database file empty, mode 0600, before
// SQLite opens it: SQLite would make it 0644 (less the umask), readable by
// every user of the machine, and gives the -wal and -shm files it creates
// later the database file's mode. An empty file is an empty database. A
// file that exists is left as it is (serve warns when others can read it).
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	switch {
	case errors.Is(err, fs.ErrExist):
		return nil
	case err != nil:
		return fmt.Errorf("create database %s: %w", path, err)
	}
	return f.Close()
}

// Path returns the database file's path (for PostgreSQL, its URL without
// the password).
func (s *Store) Path() string { return s.path }

// beginWrite starts a write transaction outside InTx (Open's own work).
// On SQLite the writer's BEGIN IMMEDIATE takes the write lock; on
// PostgreSQL the fleet-wide advisory lock does.
func (s *Store) beginWrite(ctx context.Context) (*sql.Tx, error) {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if err := s.eng.lockWrites(tx); err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// Close stops the commit loop after the queued transactions, checkpoints and
// closes the file.
func (s *Store) Close() error {
	var err error
	s.once.Do(func() {
		s.closeMu.Lock()
		s.closed = true
		s.closeMu.Unlock()
		close(s.closing)
		s.wg.Wait()
		if s.ckpt != nil {
			// A last full checkpoint leaves a small WAL behind on a clean stop.
			if _, e := s.ckpt.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); e != nil {
				s.log.Warn("final checkpoint", "err", e)
			}
			err = errors.Join(err, s.ckpt.Close())
		}
		if s.reader != nil {
			s.readStmts.close()
			s.writeStmts.close()
			if s.reader != s.writer {
				err = errors.Join(err, s.reader.Close())
			}
		}
		err = errors.Join(err, s.writer.Close())
		if s.keys != nil {
			err = errors.Join(err, s.keys.subjects.close())
		}
	})
	return err
}

// walRestartFrames is the WAL length (frames of 4 KiB pages, so 16 MiB)
// past which the commit loop is asked to finish a checkpoint itself.
const walRestartFrames = 4096

// checkpointLoop copies WAL frames back into the database file in the
// background. PASSIVE takes no locks, so this heavy part (copying pages,
// fsyncing the database file) never blocks the writer or readers.
//
// That alone does not bound the WAL under steady writes: SQLite restarts
// the WAL from its beginning only when a write transaction starts and
// finds every frame already copied, and with a commit every few
// milliseconds another connection's checkpoint never finishes before the
// next commit appends more. So once the WAL is longer than walRestartFrames
// this loop asks the commit loop (finishCheckpoint) to run one more PASSIVE
// pass between two batches: it only has the frames of the last interval to
// copy, and the commit after it restarts the WAL, whose file
// journal_size_limit then trims to 64 MiB.
func (s *Store) checkpointLoop(every time.Duration) {
	defer s.wg.Done()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.closing:
			return
		case <-t.C:
			var busy, logFrames, done int
			err := s.ckpt.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &done)
			if err != nil {
				s.log.Warn("checkpoint", "err", err)
				continue
			}
			if logFrames >= walRestartFrames {
				s.restartDue.Store(true)
			}
		}
	}
}

// finishCheckpoint runs on the commit loop between batches, when the
// background checkpointer asked for it (see checkpointLoop).
func (s *Store) finishCheckpoint() {
	if !s.restartDue.CompareAndSwap(true, false) {
		return
	}
	var busy, logFrames, done int
	if err := s.writer.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &done); err != nil {
		s.log.Warn("finish checkpoint", "err", err)
		return
	}
	s.stats.walRestarts.Add(1)
}

// Ping checks that the database can be read.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.reader.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}
