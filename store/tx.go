package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"time"

	"kycd/kyc"
)

// Tx is one use case's share of a write transaction. Every row it writes
// takes its timestamp from Now, read once when the use case starts.
//
// Its methods take no context on purpose: cancelling a statement interrupts
// SQLite, which may roll back the whole batch this Tx shares with other
// requests. A use case runs to completion once it has started.
type Tx struct {
	tx       *sql.Tx
	q        txPool
	now      time.Time
	enqueued bool     // a job was enqueued: wake the runner after commit
	keys     *keyring // encryption at rest (datakey.go)
	eng      engine
	actor    kyc.Principal // who the use case acts for (WithActor)
}

// Now is the single timestamp of this transaction.
func (tx *Tx) Now() time.Time { return tx.now }

func (tx *Tx) exec(query string, args ...any) (sql.Result, error) {
	res, err := tx.q.ExecContext(context.Background(), query, args...)
	return res, formatError(err)
}

func (tx *Tx) queryRow(query string, args ...any) *sql.Row {
	return tx.q.QueryRowContext(context.Background(), query, args...)
}

// writeReq is one InTx call waiting for the commit loop.
type writeReq struct {
	ctx  context.Context
	fn   func(*Tx) error
	done chan writeRes
}

type writeRes struct {
	err      error
	panicked bool
	panicVal any
	goexit   bool
}

// maxBatch bounds how many use cases share one commit, so that one batch
// holds the write lock for a few milliseconds at most.
const maxBatch = 128

// ErrClosed is returned by InTx after Close.
var ErrClosed = errors.New("store: closed")

// InTx runs fn in a write transaction and returns once that transaction is
// durably committed (or fn's error, in which case nothing fn wrote is kept).
// A panic in fn is re-raised here after its writes are rolled back.
//
// Concurrent calls are grouped: the commit loop runs each fn inside its own
// SAVEPOINT of one shared transaction and commits them together, so the
// fsync of synchronous=FULL is paid once per batch. Isolation is as if the
// calls ran one after the other; each call's outcome is independent except
// that a failed COMMIT fails the whole batch.
//
// On PostgreSQL the same loop runs, and each batch first takes the
// fleet-wide write lock (engine_postgres.go): the batch is then one
// commit, one WAL flush, whatever the number of instances.
func (s *Store) InTx(ctx context.Context, fn func(*Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	req := &writeReq{ctx: ctx, fn: fn, done: make(chan writeRes, 1)}
	// The read lock keeps Close from finishing while a request is being
	// handed over, so that nothing is queued after the loop has drained.
	s.closeMu.RLock()
	if s.closed {
		s.closeMu.RUnlock()
		return ErrClosed
	}
	select {
	case s.writes <- req:
		s.closeMu.RUnlock()
	case <-ctx.Done():
		s.closeMu.RUnlock()
		return ctx.Err()
	}
	// Once queued, wait for the outcome even if ctx ends: the caller must
	// know whether its writes were committed.
	res := <-req.done
	if res.panicked {
		panic(res.panicVal)
	}
	if res.goexit {
		runtime.Goexit()
	}
	return res.err
}

func (s *Store) commitLoop() {
	defer s.wg.Done()
	batch := make([]*writeReq, 0, maxBatch)
	for {
		select {
		case req := <-s.writes:
			batch = append(batch[:0], req)
		case fn := <-s.pauses:
			fn() // between two batches: no write transaction is open
			continue
		case <-s.closing:
			s.drainOnClose()
			return
		}
		// Take whatever queued while the previous batch committed; never
		// wait for more, so a lone request pays no extra latency.
	fill:
		for len(batch) < maxBatch {
			select {
			case req := <-s.writes:
				batch = append(batch, req)
			default:
				break fill
			}
		}
		s.runBatch(batch)
		if err := s.writeStmts.prepareWanted(); err != nil {
			s.log.Warn("prepare statement", "err", err)
		}
		s.finishCheckpoint()
	}
}

// drainOnClose runs the requests that were queued before Close, so callers
// already waiting get a real outcome.
func (s *Store) drainOnClose() {
	for {
		select {
		case req := <-s.writes:
			s.runBatch([]*writeReq{req})
		default:
			return
		}
	}
}

func (s *Store) runBatch(batch []*writeReq) {
	results := make([]writeRes, len(batch))
	ok := make([]bool, len(batch))
	err := s.runBatchTx(batch, results, ok)
	for i, req := range batch {
		if ok[i] {
			results[i].err = err
		}
		if errors.Is(results[i].err, ErrStorage) && s.writesFailing.CompareAndSwap(false, true) {
			s.log.Error("writes fail: the disk under the database is full or failing; /readyz reports not ready until a probe write succeeds",
				"err", results[i].err)
		}
		req.done <- results[i]
	}
}

// runBatchTx runs every request of the batch in its own savepoint and
// commits. It returns the error that applies to every request whose own fn
// succeeded (marked in ok): nil when the commit succeeded.
func (s *Store) runBatchTx(batch []*writeReq, results []writeRes, ok []bool) (err error) {
	enqueued := false
	sqlTx, err := s.writer.Begin()
	if err == nil {
		if err = s.eng.lockWrites(sqlTx); err != nil {
			_ = sqlTx.Rollback()
		}
	}
	if err != nil {
		for i := range batch {
			results[i].err = fmt.Errorf("begin: %w", formatError(err))
		}
		return nil
	}
	defer func() {
		if err != nil {
			_ = sqlTx.Rollback()
		}
	}()
	for i, req := range batch {
		if e := req.ctx.Err(); e != nil {
			results[i].err = e // the caller gave up before we started
			continue
		}
		if _, err := sqlTx.Exec("SAVEPOINT usecase"); err != nil {
			return s.failBatch(batch, results, ok, i, fmt.Errorf("savepoint: %w", formatError(err)))
		}
		tx := &Tx{tx: sqlTx, q: txPool{tx: sqlTx, c: s.writeStmts}, now: s.Now().UTC().Truncate(time.Millisecond), keys: s.keys,
			eng: s.eng, actor: ActorFrom(req.ctx)}
		res := runOne(req.fn, tx)
		enqueued = enqueued || (tx.enqueued && res.err == nil && !res.panicked)
		if res.err != nil || res.panicked || res.goexit {
			results[i] = res
			if _, err := sqlTx.Exec("ROLLBACK TO usecase"); err != nil {
				// SQLite already rolled the whole transaction back (an
				// I/O error, a full disk): nobody in this batch committed.
				return s.failBatch(batch, results, ok, i, fmt.Errorf("rollback to savepoint: %w", formatError(err)))
			}
		}
		if _, err := sqlTx.Exec("RELEASE usecase"); err != nil {
			// From i, not i+1: this use case's own fn succeeded, but its
			// writes are gone with the transaction.
			return s.failBatch(batch, results, ok, i, fmt.Errorf("release savepoint: %w", formatError(err)))
		}
		ok[i] = res.err == nil && !res.panicked && !res.goexit
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", formatError(err))
	}
	s.stats.commits.Add(1)
	s.stats.useCases.Add(uint64(len(batch)))
	if enqueued {
		select {
		case s.jobSignal <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
	return nil
}

// Stats counts the commit loop's work since Open.
type Stats struct {
	Commits     uint64 // transactions committed (one fsync each)
	UseCases    uint64 // InTx calls they carried
	WALRestarts uint64 // checkpoints finished on the commit loop
}

// Stats reports how well group commit is batching.
func (s *Store) Stats() Stats {
	return Stats{Commits: s.stats.commits.Load(), UseCases: s.stats.useCases.Load(), WALRestarts: s.stats.walRestarts.Load()}
}

// failBatch marks every request from index from on as failed with err (the
// ones before keep their ok flag and get err through the return value).
func (s *Store) failBatch(batch []*writeReq, results []writeRes, ok []bool, from int, err error) error {
	s.log.Error("write batch aborted", "err", err, "size", len(batch))
	for j := from; j < len(batch); j++ {
		if results[j].err == nil && !results[j].panicked {
			results[j].err = err
		}
	}
	return err
}

// runOne runs one use case on the commit loop. A panic is caught and
// re-raised in the caller; so is runtime.Goexit (t.Fatal in a test), which
// recover cannot see and which would otherwise end the commit loop with the
// transaction open.
func runOne(fn func(*Tx) error, tx *Tx) (res writeRes) {
	done := make(chan writeRes, 1)
	go func() {
		completed := false
		defer func() {
			if p := recover(); p != nil {
				done <- writeRes{panicked: true, panicVal: p}
			} else if !completed {
				done <- writeRes{goexit: true, err: errGoexit}
			}
		}()
		err := fn(tx)
		completed = true
		done <- writeRes{err: err}
	}()
	return <-done
}

var errGoexit = errors.New("store: use case called runtime.Goexit")
