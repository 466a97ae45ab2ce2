package aml

import (
	"context"
	"fmt"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// UpdateStatus is the state of the automatic list updates (serve
// --update-lists), as the lists.update jobs in the database say: with a
// fleet, any instance may run them.
type UpdateStatus struct {
	// Enabled: a lists.update job is pending or running, so an instance
	// runs with --update-lists (or did: a pending job outlives it).
	Enabled bool
	Next    *time.Time // when the next run is due
	Running bool       // a run is under way now
	// Retry: the next run is a retry of a failed attempt; RetryError is
	// why that attempt failed.
	Retry      bool
	RetryError string
	// The last finished run: when it ended, and its error if it failed
	// for good (each source keeps its previous version then).
	LastAt    *time.Time
	LastError string
}

// ListUpdateStatus reads the automatic updates' state from the jobs table.
func ListUpdateStatus(ctx context.Context, st *store.Store) (*UpdateStatus, error) {
	jobs, err := st.FindJobs(ctx, KindListsUpdate, "")
	if err != nil {
		return nil, err
	}
	s := &UpdateStatus{}
	for _, j := range jobs {
		switch j.State {
		case "pending":
			s.Enabled = true
			if s.Next == nil || j.RunAt.Before(*s.Next) {
				at := j.RunAt
				s.Next, s.Retry, s.RetryError = &at, j.Attempts > 0, j.LastError
			}
		case "running":
			s.Enabled, s.Running = true, true
		case "done", "dead":
			if s.LastAt == nil || j.UpdatedAt.After(*s.LastAt) {
				at := j.UpdatedAt
				s.LastAt, s.LastError = &at, ""
				if j.State == "dead" {
					s.LastError = j.LastError
				}
			}
		}
	}
	return s, nil
}

// RequestListUpdate queues one extra run of the automatic update, due now,
// for the actor of ctx (audited as watch_list.update_requested). It does
// not move the daily run: that job's key is its day's date, and running
// it early would leave the next day without one. UNPROCESSABLE when
// automatic updates are off (no instance would run it) and CONFLICT when a
// run is already due or under way.
func RequestListUpdate(ctx context.Context, st *store.Store) error {
	return st.InTx(ctx, func(tx *store.Tx) error {
		pending, due, err := tx.CountJobs(KindListsUpdate)
		if err != nil {
			return err
		}
		if pending == 0 {
			return kyc.Errorf(kyc.EUnprocessable, "Automatic list updates are off: start kycd serve with --update-lists.")
		}
		if due > 0 {
			return kyc.Errorf(kyc.EConflict, "A list update is already due or running; it shows here when it ends.")
		}
		now := tx.Now()
		if _, err := tx.EnqueueJob(store.NewJob{Kind: KindListsUpdate, RunAt: now, MaxAttempts: listsUpdateAttempts,
			DedupeKey: fmt.Sprintf("%s/now/%s", KindListsUpdate, now.UTC().Format("2006-01-02T15:04:05.000"))}); err != nil {
			return err
		}
		return tx.AppendAudit(store.AuditEntry{ResourceType: "job", ResourceID: KindListsUpdate, Action: "watch_list.update_requested"})
	})
}
