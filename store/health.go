package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"kycd/kyc"
)

// PingWrite checks that a write transaction can run: it queues an empty
// use case to the commit loop, which takes the write lock (BEGIN
// IMMEDIATE), releases its savepoint and commits with whatever else shares
// the batch. Nothing is written. It returns ErrClosed after Close and ctx's
// error when the commit loop does not get to it in time (the lock is held
// elsewhere, the disk is stalled); the queued probe then still completes,
// or is skipped, in the background.
func (s *Store) PingWrite(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- s.InTx(ctx, func(*Tx) error { return nil }) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// AppliedSchemaVersion returns how many migrations the database file has
// (PRAGMA user_version). After Open it equals SchemaVersion unless a newer
// kycd has migrated the file since.
func (s *Store) AppliedSchemaVersion(ctx context.Context) (int, error) {
	v, err := s.eng.schemaVersion(ctx, s.reader)
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

// WALSize returns the size in bytes of the write-ahead log file (0 when
// there is none).
func (s *Store) WALSize() (int64, error) {
	fi, err := os.Stat(s.path + "-wal")
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// JobQueue sums up the jobs of one kind in one state.
type JobQueue struct {
	Kind   string
	State  string // pending, running, done or dead
	Count  int
	Oldest time.Time // created_at of the oldest job
	// OldestDue is the run_at of the oldest pending job that is due (zero
	// when none is): how long work has waited for a free runner.
	OldestDue time.Time
}

// JobQueues counts jobs by kind and state as of now, in one pass over the
// jobs table (which holds outstanding work only: finished jobs are deleted,
// or purged after a while when kept for their dedupe key).
func (s *Store) JobQueues(ctx context.Context, now time.Time) ([]JobQueue, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT kind, state, count(*), min(created_at),
			coalesce(min(run_at) FILTER (WHERE state = 'pending' AND run_at <= ?1), '')
		FROM jobs GROUP BY kind, state ORDER BY kind, state`, kyc.FormatTime(now))
	if err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	defer rows.Close()
	var out []JobQueue
	for rows.Next() {
		var q JobQueue
		var oldest, due string
		if err := rows.Scan(&q.Kind, &q.State, &q.Count, &oldest, &due); err != nil {
			return nil, fmt.Errorf("count jobs: %w", err)
		}
		q.Oldest = parseTime(oldest)
		if due != "" {
			q.OldestDue = parseTime(due)
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// SetMaxPageCount caps the database file at n pages from now on (PRAGMA
// max_page_count on the writer connection; 0 lifts the cap). A write that
// needs the file to grow past it fails with SQLITE_FULL, exactly as on a
// full disk, so this is how tests exercise full-disk handling; it is also
// a crude size quota. A cap below the file's size holds it at its size.
func (s *Store) SetMaxPageCount(ctx context.Context, n int64) error {
	if n <= 0 {
		n = 1<<32 - 2 // SQLite's largest page count
	}
	var err error
	if perr := s.Pause(ctx, func() {
		_, err = s.writer.ExecContext(ctx, fmt.Sprintf("PRAGMA max_page_count = %d", n))
	}); perr != nil {
		return perr
	}
	return err
}

// WritesFailing reports whether a write has failed on the disk (full, or
// an I/O error) since the last successful ProbeWrite.
func (s *Store) WritesFailing() bool { return s.writesFailing.Load() }

// ProbeWrite checks that the database can grow: it writes a row of two
// pages to write_probe and deletes it, in one committed transaction, so
// the file needs new pages (or free ones) and the WAL new frames. An
// empty transaction (PingWrite) would succeed on a full disk. Success
// clears WritesFailing.
func (s *Store) ProbeWrite(ctx context.Context) error {
	done := make(chan error, 1)
	go func() {
		done <- s.InTx(ctx, func(tx *Tx) error {
			if _, err := tx.exec(`INSERT INTO write_probe (id, data) VALUES (1, ` + s.eng.zeroBlob(8192) + `)`); err != nil {
				return fmt.Errorf("probe write: %w", err)
			}
			_, err := tx.exec(`DELETE FROM write_probe`)
			return err
		})
	}()
	select {
	case err := <-done:
		if err == nil {
			s.writesFailing.Store(false)
		}
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
