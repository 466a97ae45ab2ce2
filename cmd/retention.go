package cmd

import (
	"context"
	"errors"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/store"
)

// kindRetention is the daily erasure run (docs/personal-data.md): it
// carries out the erasures that were asked for while retention still
// required the data, once their time has come.
const kindRetention = "retention.erase"

// retentionBatch bounds one look-up; each erasure is its own transaction,
// so API requests queue behind one applicant's erasure at most.
const retentionBatch = 50

func registerRetention(r *jobs.Runner, st *store.Store) {
	r.Register(jobs.Kind{Name: kindRetention, MaxAttempts: 3, Backoff: jobs.Schedule(10 * time.Minute), Timeout: 30 * time.Minute,
		Run: func(ctx context.Context, j store.Job) error {
			// The next day's run first, so that a failing run never ends the chain.
			if err := st.InTx(ctx, func(tx *store.Tx) error {
				next := tx.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
				_, err := tx.EnqueueJob(store.NewJob{Kind: kindRetention, RunAt: next, MaxAttempts: 3,
					DedupeKey: kindRetention + "/" + next.Format("2006-01-02")})
				return err
			}); err != nil {
				return err
			}
			_, err := runRetention(ctx, st)
			return err
		}})
}

// scheduleRetention makes sure today's run exists.
func scheduleRetention(ctx context.Context, st *store.Store) error {
	return st.InTx(ctx, func(tx *store.Tx) error {
		_, err := tx.EnqueueJob(store.NewJob{Kind: kindRetention, RunAt: tx.Now(), MaxAttempts: 3,
			DedupeKey: kindRetention + "/" + tx.Now().UTC().Format("2006-01-02")})
		return err
	})
}

// runRetention erases every applicant whose scheduled erasure is due, then
// every applicant whose organization's retention period ended (sandbox,
// inactive, decided), skipping those under legal hold, then the AML checks
// whose retention ended and the monitoring history older than the AML
// period, and deletes keys left behind by a crash between an erasure's
// commit and its key's deletion. It returns how many applicants and AML
// checks it erased.
func runRetention(ctx context.Context, st *store.Store) (int, error) {
	if _, err := st.SweepErasedKeys(ctx); err != nil {
		return 0, err
	}
	erased := 0
	for {
		due, err := st.FindDueErasures(ctx, st.Now(), retentionBatch)
		if err != nil {
			return erased, err
		}
		progress := 0
		for _, d := range due {
			_, err := st.EraseApplicant(ctx, store.ErasureRequest{OrganizationID: d.OrganizationID, Environment: d.Environment,
				ApplicantID: d.ApplicantID, Rule: kyc.ErasureScheduled})
			var deferred *kyc.ErasureDeferred
			switch {
			case errors.As(err, &deferred):
				// A later decision moved the date: rescheduled, not due now.
				progress++
			case errors.Is(err, store.ErrLegalHold):
				// Put on hold since the look-up: skipped until lifted.
			case err != nil:
				return erased, err
			default:
				erased++
				progress++
			}
		}
		if len(due) < retentionBatch || progress == 0 {
			break
		}
	}
	// Then what the organizations' retention periods no longer allow to keep.
	for {
		aged, err := st.FindAgedErasures(ctx, st.Now(), retentionBatch)
		if err != nil {
			return erased, err
		}
		progress := 0
		for _, d := range aged {
			reason := d.Reason
			_, err := st.EraseApplicant(ctx, store.ErasureRequest{OrganizationID: d.OrganizationID, Environment: d.Environment,
				ApplicantID: d.ApplicantID, Rule: kyc.ErasureRetention, Reason: &reason})
			var deferred *kyc.ErasureDeferred
			switch {
			case errors.As(err, &deferred), errors.Is(err, store.ErrLegalHold):
				// Changed since the look-up; the next run sees it again.
			case err != nil:
				return erased, err
			default:
				erased++
				progress++
			}
		}
		if len(aged) < retentionBatch || progress == 0 {
			break
		}
	}
	// AML checks past their retention, then old monitoring history.
	for {
		aged, err := st.FindAgedAMLChecks(ctx, st.Now(), retentionBatch)
		if err != nil {
			return erased, err
		}
		progress := 0
		for _, a := range aged {
			ok, err := st.EraseAMLCheck(ctx, a)
			if err != nil {
				return erased, err
			}
			if ok {
				erased++
				progress++
			}
		}
		if len(aged) < retentionBatch || progress == 0 {
			break
		}
	}
	if _, err := st.EraseAgedScreenings(ctx, st.Now(), retentionHistoryBatch); err != nil {
		return erased, err
	}
	return erased, nil
}

// retentionHistoryBatch bounds one transaction of history rows erased.
const retentionHistoryBatch = 500
