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

// RegisterJobs adds the monitor job kind to the runner.
func (s *Service) RegisterJobs(r *jobs.Runner) {
	r.Register(jobs.Kind{Name: KindMonitor, MaxAttempts: 5, Backoff: jobs.Schedule(time.Minute, 5*time.Minute),
		Timeout: monitorSlice + time.Minute, Run: s.runMonitor})
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

func rescreenOne(tx *store.Tx, c *kyc.AMLCheck, results []kyc.ListResult) error {
	prev := c.Status
	sc, added := rescreened(c, results, trigger(c))
	ok, err := tx.RecordRescreen(c, sc)
	if err != nil || !ok || !sc.Changed {
		return err
	}
	return recordEvent(tx, c, kyc.EventAMLMonitoringAlert, &prev, len(added))
}

// rescreened puts fresh results on c and returns the history entry that
// records them against what c had before, and the keys of the matches it
// did not have.
func rescreened(c *kyc.AMLCheck, results []kyc.ListResult, trigger string) (*kyc.Screening, []string) {
	prev := c.Status
	old := map[string]bool{}
	for _, k := range matchKeys(c.Results) {
		old[k] = true
	}
	c.Results = results
	c.Status, c.RiskLevel, c.MatchCount = kyc.RollUp(results)
	now := map[string]bool{}
	var added, removed []string
	for _, k := range matchKeys(results) {
		now[k] = true
		if !old[k] {
			added = append(added, k)
		}
	}
	for k := range old {
		if !now[k] {
			removed = append(removed, k)
		}
	}
	sort.Strings(removed) // map order would make the history differ run to run
	changed := prev != c.Status || len(added) > 0
	return &kyc.Screening{Trigger: trigger, Status: c.Status, PreviousStatus: &prev, RiskLevel: c.RiskLevel,
		MatchCount: c.MatchCount, NewMatches: added, RemovedMatches: removed, Changed: changed,
		ListVersions: versionIDs(results)}, added
}
