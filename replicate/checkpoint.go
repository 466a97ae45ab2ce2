package replicate

import (
	"context"
	"time"

	"github.com/benbjohnson/litestream"
)

// PauseFunc runs fn while the application's writer holds no write lock and
// starts no write transaction: store.(*Store).Pause.
type PauseFunc func(ctx context.Context, fn func()) error

// PauseWith gives the Replicator the store's Pause, so that checkpoints
// get the write lock at once even under a steady write load. Without it
// checkpoints poll for the lock and, at saturation, may wait long enough
// for the WAL to grow. A nil Replicator ignores it.
func (r *Replicator) PauseWith(p PauseFunc) {
	if r != nil {
		r.pause.Store(&p)
	}
}

// When Litestream checkpoints: once the WAL holds 4 MiB of frames (as
// Litestream's default, 1,000 pages), and at least every minute while it
// holds any.
const (
	checkpointBytes = 4 << 20
	checkpointEvery = time.Minute
	// checkpointTimeout bounds one checkpoint, the pause of writes included.
	checkpointTimeout = 10 * time.Second
)

// disableOwnCheckpoints turns off the checkpoints Litestream starts by
// itself after a sync, but for its emergency TRUNCATE at ~500 MB of WAL.
// Each of them takes the write lock by polling for it (SQLite's busy
// handler, 1 s at most) while holding Litestream's sync lock, and under a
// steady write load the store's commit loop, which takes the lock again
// right after each commit, wins nearly every time: the checkpoint is
// skipped and the WAL grows (20 MiB in 4 s in a test here). Instead the
// WAL loop checkpoints through the store's Pause (maybeCheckpoint).
func disableOwnCheckpoints(db *litestream.DB) {
	db.MinCheckpointPageN = 1<<31 - 1
	db.CheckpointInterval = 0
}

// maybeCheckpoint checkpoints when the WAL is long or old enough: inside
// the store's Pause, Litestream copies the last frames, checkpoints
// (PASSIVE: it waits for no reader) and restarts the WAL with a write of
// its own, all within a few milliseconds.
func (r *Replicator) maybeCheckpoint(ctx context.Context) {
	walBytes := r.db.SyncDiagnostic().LastSyncedWALOffset
	pos, err := r.db.Pos()
	if err != nil {
		return
	}
	// The time-based checkpoint waits for a transaction of the store's:
	// each checkpoint ends with a write of Litestream's own, and
	// checkpointing a WAL that holds only that write makes Litestream
	// read the overwritten frames as a foreign writer's and upload a full
	// snapshot, every minute (Litestream issue #896).
	if walBytes < checkpointBytes && (pos.TXID <= r.checkpointTXID || time.Since(r.lastCheckpoint) < time.Duration(r.checkpointEvery.Load())) {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, checkpointTimeout)
	defer cancel()
	start := time.Now()
	run := func() { err = r.db.Checkpoint(ctx, litestream.CheckpointModePassive) }
	if p := r.pause.Load(); p != nil {
		if perr := (*p)(ctx, run); perr != nil {
			err = perr
		}
	} else {
		run()
	}
	r.lastCheckpoint = time.Now()
	if err != nil {
		if ctx.Err() == nil {
			r.log.Warn("replication: checkpoint failed", "err", err, "wal_bytes", walBytes)
		}
		return
	}
	if pos, err := r.db.Pos(); err == nil {
		r.checkpointTXID = pos.TXID
	}
	r.checkpoints.Add(1)
	r.log.Debug("replication: checkpoint", "wal_bytes", walBytes, "took", time.Since(start).String())
}
