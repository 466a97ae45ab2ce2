package aml

import (
	"context"
	"runtime"
	"sort"
	"sync"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// KindMonitor is the job that re-screens due monitored checks. It runs
// every MonitorPeriod and right after a list import; each check is due a
// day after its last screening (or at once after an import), so the daily
// work spreads over the day as checks were created.
const KindMonitor = "aml.monitor"

// MonitorPeriod is how often the monitor looks for due checks.
const MonitorPeriod = 5 * time.Minute

// monitorBatch checks are screened in parallel and written in one
// transaction.
const monitorBatch = 256

// monitorSlice bounds one run; a run with more due checks continues in a
// new run at once, so a restart or a deploy loses at most one batch of
// work and other jobs get their turn.
const monitorSlice = 2 * time.Minute

// EnqueueMonitor queues a monitor run now in the caller's transaction;
// reason makes the dedupe key (one run per list version, say).
func EnqueueMonitor(tx *store.Tx, reason string) error {
	_, err := tx.EnqueueJob(store.NewJob{Kind: KindMonitor, MaxAttempts: 5, DedupeKey: KindMonitor + "/" + reason})
	return err
}

// scheduleNextMonitor queues the next periodic run.
func scheduleNextMonitor(tx *store.Tx) error {
	next := tx.Now().Truncate(MonitorPeriod).Add(MonitorPeriod)
	_, err := tx.EnqueueJob(store.NewJob{Kind: KindMonitor, RunAt: next, MaxAttempts: 5,
		DedupeKey: KindMonitor + "/" + next.UTC().Format(time.RFC3339)})
	return err
}

// ScheduleMonitor makes sure a periodic monitor run is queued; called at
// start-up, it adds nothing when one exists.
func (s *Service) ScheduleMonitor(ctx context.Context) error {
	return s.store.InTx(ctx, func(tx *store.Tx) error {
		if err := EnqueueMonitor(tx, "start/"+tx.Now().Truncate(MonitorPeriod).UTC().Format(time.RFC3339)); err != nil {
			return err
		}
		return scheduleNextMonitor(tx)
	})
}

// RegisterJobs adds the monitor and batch job kinds to the runner.
func (s *Service) RegisterJobs(r *jobs.Runner) {
	r.Register(jobs.Kind{Name: KindMonitor, MaxAttempts: 5, Backoff: jobs.Schedule(time.Minute, 5*time.Minute),
		Timeout: monitorSlice + time.Minute, Run: s.runMonitor})
	s.registerBatch(r)
}

func (s *Service) runMonitor(ctx context.Context, j store.Job) error {
	if err := s.store.InTx(ctx, scheduleNextMonitor); err != nil {
		return err
	}
	start := time.Now()
	for time.Since(start) < monitorSlice {
		n, err := s.RescreenDue(ctx, monitorBatch)
		if err != nil {
			return err
		}
		if n < monitorBatch {
			return nil
		}
	}
	// More is due: continue in a fresh run right away.
	return s.store.InTx(ctx, func(tx *store.Tx) error {
		return EnqueueMonitor(tx, "continue/"+store.NewULID(tx.Now()))
	})
}

// RescreenDue re-screens up to limit due checks and reports how many it
// took. Each re-screen is written with its history entry, and a
// monitoring_alert event when the status changed or a new match appeared.
func (s *Service) RescreenDue(ctx context.Context, limit int) (int, error) {
	// The lists first: a check due because of an import must see it.
	if err := s.Refresh(ctx); err != nil {
		return 0, err
	}
	due, err := s.store.DueAMLChecks(ctx, s.store.Now(), limit)
	if err != nil || len(due) == 0 {
		return 0, err
	}
	// Each check is re-screened over its organization's kinds today.
	scopes := make([][]screening.Kind, len(due))
	known := map[string][]screening.Kind{}
	for i, c := range due {
		key := c.OrganizationID + "/" + string(c.Environment)
		if _, ok := known[key]; !ok {
			if known[key], err = s.Scope(ctx, c.OrganizationID, c.Environment); err != nil {
				return 0, err
			}
		}
		scopes[i] = known[key]
	}
	fresh := make([][]kyc.ListResult, len(due))
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				c := due[i]
				sub := Subject{FirstName: c.FirstName, LastName: c.LastName, DOB: c.DOB, Country: c.Country}
				fresh[i] = s.screener.ScreenKinds(c.Environment, sub.query(), c.Threshold, scopes[i])
				kyc.AssignMatchIDs(fresh[i])
			}
		}()
	}
	for i := range due {
		work <- i
	}
	close(work)
	wg.Wait()
	err = s.store.InTx(ctx, func(tx *store.Tx) error {
		for i, c := range due {
			if err := rescreenOne(tx, c, fresh[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return len(due), err
}

// rescreenOne records a re-screen of c. It alerts (monitoring_alert) when
// the status changed or a match needs a person again: a match the previous
// screening did not have and nobody has decided, or a decided match whose
// listed entity changed since the decision (the alert and the history say
// what changed), once, when the change first shows. A match already
// decided — false positive or confirmed — whose entity the list still
// describes the same never alerts again, even when it dropped out of a
// screening and came back.
func rescreenOne(tx *store.Tx, c *kyc.AMLCheck, results []kyc.ListResult) error {
	prev := c.Status
	sc, added, err := rescreened(tx, c, results, trigger(c))
	if err != nil {
		return err
	}
	ok, err := tx.RecordRescreen(c, sc)
	if err != nil || !ok {
		return err
	}
	if err := tx.Meter(c.OrganizationID, c.Environment, kyc.UsageMonitoringRescreens, sc.ID); err != nil {
		return err
	}
	if !sc.Changed {
		return nil
	}
	return recordAlert(tx, c, &prev, len(added), sc.ChangedEntities)
}

// rescreened puts fresh results on c (with the person's decisions on its
// matches applied) and returns the history entry that records them against
// what c had before, and the keys of the new, undecided matches.
func rescreened(tx *store.Tx, c *kyc.AMLCheck, results []kyc.ListResult, trigger string) (*kyc.Screening, []string, error) {
	prev := c.Status
	old := map[string]bool{}
	oldEntity := map[string]string{} // key → fingerprint of the entity as last screened
	for _, r := range c.Results {
		for i := range r.Matches {
			m := &r.Matches[i]
			old[m.Key()], oldEntity[m.Key()] = true, m.Entity().Fingerprint()
		}
	}
	decisions, err := tx.FindMatchDecisions(c.ID)
	if err != nil {
		return nil, nil, err
	}
	latest := kyc.LatestDecisions(decisions)
	c.Results = results
	c.Status, c.RiskLevel, c.MatchCount = kyc.RollUp(results)
	if err := applySuppressions(tx, c, decisions); err != nil {
		return nil, nil, err
	}
	now := map[string]bool{}
	var added, removed []string
	var changedEntities []kyc.EntityChange
	alerting, settled := 0, 0
	for _, r := range results {
		for i := range r.Matches {
			m := &r.Matches[i]
			k := m.Key()
			now[k] = true
			d := latest[m.ID]
			switch {
			case d != nil && m.Review != nil && m.Review.Current:
				settled++ // decided, and the list says the same: no alert
			case m.Suppressed != nil:
				settled++ // decided false positive on an earlier check of the subject
			case d != nil && oldEntity[k] == m.Entity().Fingerprint():
				// Changed since the decision, but already alerted on when
				// the change first showed: it waits for a new decision.
			case d != nil:
				changedEntities = append(changedEntities, kyc.EntityChange{MatchID: m.ID, Key: k, PreviousDecision: d.Decision,
					Changes: m.Review.Changes})
				alerting++
			case !old[k]:
				added = append(added, k)
				alerting++
			}
		}
	}
	for k := range old {
		if !now[k] {
			removed = append(removed, k)
		}
	}
	sort.Strings(removed) // map order would make the history differ run to run
	// A new status alone alerts, unless it is a potential match on matches
	// that are all decided and unchanged (a false positive coming back).
	statusAlert := prev != c.Status && !(c.Status == kyc.AMLPotentialMatch && settled == c.MatchCount)
	changed := statusAlert || alerting > 0
	return &kyc.Screening{Trigger: trigger, Status: c.Status, PreviousStatus: &prev, RiskLevel: c.RiskLevel,
		MatchCount: c.MatchCount, NewMatches: added, RemovedMatches: removed, Changed: changed,
		ListVersions: versionIDs(results), ChangedEntities: changedEntities}, added, nil
}
