package store

import "context"

// Pause runs fn on the commit loop between two write batches: while fn
// runs, this store holds no write lock and starts no write transaction
// (writes queue and go on afterwards). It is for Litestream replication
// (package replicate, with Options.ExternalCheckpoints), whose checkpoint
// needs the write lock for a moment: under a steady write load the commit
// loop takes the lock again right after each commit, and a connection that
// polls for it (SQLite's busy handler) would wait for a gap that never
// comes. Keep fn short: every write waits for it.
//
// It returns ErrClosed after Close, or ctx's error if fn could not start.
func (s *Store) Pause(ctx context.Context, fn func()) error {
	if s.pauses == nil {
		return errPostgresOnlySQLite // no commit loop to pause
	}
	done := make(chan struct{})
	run := func() {
		defer close(done)
		fn()
	}
	// As in InTx, the read lock keeps Close from finishing while the
	// request is handed over.
	s.closeMu.RLock()
	if s.closed {
		s.closeMu.RUnlock()
		return ErrClosed
	}
	select {
	case s.pauses <- run:
		s.closeMu.RUnlock()
	case <-ctx.Done():
		s.closeMu.RUnlock()
		return ctx.Err()
	}
	<-done
	return nil
}
