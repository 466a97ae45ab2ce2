package verification

import (
	"context"
	"fmt"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/store"
)

// KindOverdue is the sweep that announces requests awaiting review past
// their due time (submission + the organization's SLA for the
// environment) with svc.kyc.request.overdue, once per request: the mark
// (kyc_requests.overdue_at) is written in the event's transaction, and
// the sweep is a job, so a restart resumes it and never repeats an event.
const KindOverdue = "kyc.overdue"

// OverduePeriod is how often the sweep runs: an overdue event is at most
// this late.
const OverduePeriod = time.Minute

// overdueBatch bounds one transaction of the sweep.
const overdueBatch = 200

// ScheduleOverdue makes sure a sweep is queued; called at start-up, it
// adds nothing when one exists.
func (s *Service) ScheduleOverdue(ctx context.Context) error {
	return s.store.InTx(ctx, scheduleNextOverdue)
}

func scheduleNextOverdue(tx *store.Tx) error {
	next := tx.Now().Truncate(OverduePeriod).Add(OverduePeriod)
	_, err := tx.EnqueueJob(store.NewJob{Kind: KindOverdue, RunAt: next, MaxAttempts: 3,
		DedupeKey: KindOverdue + "/" + next.UTC().Format(time.RFC3339)})
	return err
}

func (s *Service) registerOverdue(r *jobs.Runner) {
	r.Register(jobs.Kind{Name: KindOverdue, MaxAttempts: 3, Backoff: jobs.Schedule(10 * time.Second), Timeout: 5 * time.Minute,
		Run: func(ctx context.Context, _ store.Job) error {
			// The next run first, in its own transaction: a sweep that
			// fails for good never ends the chain.
			if err := s.store.InTx(ctx, scheduleNextOverdue); err != nil {
				return err
			}
			_, err := s.SweepOverdue(ctx)
			return err
		}})
}

// SweepOverdue announces every request now overdue and not yet
// announced, in every organization and environment with an SLA, and
// says how many it announced.
func (s *Service) SweepOverdue(ctx context.Context) (int, error) {
	orgs, err := s.store.FindOrganizations(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, o := range orgs {
		set, err := s.store.FindOrgSettings(ctx, o.ID)
		if err != nil {
			return total, err
		}
		for _, env := range []kyc.Environment{kyc.Sandbox, kyc.Live} {
			sla := set.SLA(env)
			if sla <= 0 {
				continue
			}
			for {
				var n int
				err := s.store.InTx(ctx, func(tx *store.Tx) error {
					list, err := tx.OverdueCandidates(o.ID, env, tx.Now().Add(-sla), overdueBatch)
					if err != nil {
						return err
					}
					n = len(list)
					for _, r := range list {
						if err := s.announceOverdue(tx, r, sla); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					return total, err
				}
				total += n
				if n < overdueBatch {
					break
				}
			}
		}
	}
	return total, nil
}

func (s *Service) announceOverdue(tx *store.Tx, r *kyc.KYCRequest, sla time.Duration) error {
	now := tx.Now()
	due := r.SubmittedAt.Add(sla)
	r.OverdueAt = &now
	if err := tx.SaveKYCRequest(r); err != nil {
		return err
	}
	reason := fmt.Sprintf("Awaiting review past its due time (%s UTC, %d h after submission).", due.UTC().Format("2006-01-02 15:04"), int(sla.Hours()))
	return s.recordWith(tx, r, kyc.EventKYCOverdue, string(kyc.EventKYCOverdue), &r.Status, systemActor, &reason,
		map[string]any{"dueAt": kyc.FormatTime(due)})
}
