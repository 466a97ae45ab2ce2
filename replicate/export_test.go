package replicate

import "time"

// SetCheckpointEvery shortens the time-based checkpoint for a test.
func SetCheckpointEvery(r *Replicator, d time.Duration) { r.checkpointEvery.Store(int64(d)) }

// CheckpointBytes is the WAL size from which the checkpointer checkpoints.
const CheckpointBytes = checkpointBytes
