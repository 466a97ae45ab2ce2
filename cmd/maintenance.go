package cmd

import (
	"context"
	"time"

	"kycd/jobs"
	"kycd/store"
	"kycd/users"
)

// kindPurge is the hourly clean-up: expired idempotency keys, old
// finished jobs and the console's ended sessions and old sign-in failures.
const kindPurge = "maintenance.purge"

// purgeBatch keeps each delete short so that requests queue behind it for
// a moment at most.
const purgeBatch = 500

func registerMaintenance(r *jobs.Runner, st *store.Store) {
	r.Register(jobs.Kind{Name: kindPurge, MaxAttempts: 3, Backoff: jobs.Schedule(time.Minute), Timeout: 10 * time.Minute,
		Run: func(ctx context.Context, j store.Job) error {
			// Schedule the next run first, in its own transaction, so that a
			// run that fails for good never ends the hourly chain.
			err := st.InTx(ctx, func(tx *store.Tx) error {
				next := tx.Now().Truncate(time.Hour).Add(time.Hour)
				_, err := tx.EnqueueJob(store.NewJob{Kind: kindPurge, RunAt: next, MaxAttempts: 3,
					DedupeKey: kindPurge + "/" + next.Format(time.RFC3339)})
				return err
			})
			if err != nil {
				return err
			}
			for {
				var n int
				err := st.InTx(ctx, func(tx *store.Tx) (err error) {
					n, err = tx.PurgeIdempotencyKeys(purgeBatch)
					return err
				})
				if err != nil {
					return err
				}
				if n < purgeBatch {
					break
				}
			}
			return st.InTx(ctx, func(tx *store.Tx) error {
				if _, err := tx.PurgeFinishedJobs(7 * 24 * time.Hour); err != nil {
					return err
				}
				// Console sessions past their ends, old failed sign-ins, used
				// or expired links and expired claims.
				_, err := tx.PurgeConsole(tx.Now().Add(-users.SessionIdle), tx.Now().Add(-users.FailureWindow))
				return err
			})
		}})
}

// scheduleMaintenance makes sure the current hour's clean-up exists; a
// restart finds it already there (or done) and adds nothing.
func scheduleMaintenance(ctx context.Context, st *store.Store) error {
	return st.InTx(ctx, func(tx *store.Tx) error {
		hour := tx.Now().Truncate(time.Hour)
		_, err := tx.EnqueueJob(store.NewJob{Kind: kindPurge, RunAt: tx.Now(), MaxAttempts: 3,
			DedupeKey: kindPurge + "/" + hour.Format(time.RFC3339)})
		return err
	})
}
