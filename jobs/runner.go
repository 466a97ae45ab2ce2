// Package jobs runs the durable jobs of the SQLite job table: webhook
// deliveries now, link expiry, re-screens and clean-ups later. Packages
// register the kinds they own; the runner claims due jobs with a lease,
// runs them with bounded concurrency and records each outcome.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"kycd/store"
)

// Func runs one attempt of a job. A nil error finishes the job; an error
// schedules a retry by the kind's backoff until its attempts are used up.
// Wrap the error with Permanent to give up at once, or return RetryAt to
// choose the next attempt's time.
type Func func(ctx context.Context, job store.Job) error

// Kind describes one kind of job.
type Kind struct {
	Name        string
	Run         Func
	MaxAttempts int // default 1
	// Backoff gives the delay before attempt n+1 after attempt n failed
	// (n starts at 1). Default: 1s, 2s, 4s… capped at 1h.
	Backoff func(attempt int) time.Duration
	// Jitter spreads retries by ±Jitter of the delay (0.1 = ±10%), so that
	// many jobs failing together do not retry together. Default 0.
	Jitter float64
	// Timeout bounds one attempt; default 1 minute. The lease is longer.
	Timeout time.Duration
}

// Options configure a Runner.
type Options struct {
	Store       *store.Store // required
	Logger      *slog.Logger
	Now         func() time.Time // default time.Now
	Concurrency int              // jobs run at once; default 16
	// PollInterval is how often the runner looks for due jobs when not woken
	// by a commit; default 1s.
	PollInterval time.Duration
	// ShutdownGrace bounds how long running jobs may go on after Start's
	// context ends; default 15s. They are then cancelled and retried later.
	ShutdownGrace time.Duration
}

// Runner claims and runs jobs.
type Runner struct {
	store *store.Store
	log   *slog.Logger
	now   func() time.Time
	conc  int
	poll  time.Duration
	grace time.Duration

	mu    sync.Mutex
	kinds map[string]Kind
	// lastPoll is when the runner last looked for due jobs (unix nanos of
	// its clock), for readiness checks.
	lastPoll atomic.Int64
}

// New returns a Runner. It panics when opts.Store is nil.
func New(opts Options) *Runner {
	if opts.Store == nil {
		panic("jobs: nil Store")
	}
	r := &Runner{store: opts.Store, log: opts.Logger, now: opts.Now, conc: opts.Concurrency,
		poll: opts.PollInterval, grace: opts.ShutdownGrace, kinds: map[string]Kind{}}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.conc <= 0 {
		r.conc = 16
	}
	if r.poll <= 0 {
		r.poll = time.Second
	}
	if r.grace <= 0 {
		r.grace = 15 * time.Second
	}
	return r
}

// Register adds a kind. It panics on a duplicate or incomplete kind: both
// are programming errors found at start-up.
func (r *Runner) Register(k Kind) {
	if k.Name == "" || k.Run == nil {
		panic("jobs: kind needs a name and a Run func")
	}
	if k.MaxAttempts < 1 {
		k.MaxAttempts = 1
	}
	if k.Backoff == nil {
		k.Backoff = Exponential(time.Second, time.Hour)
	}
	if k.Timeout <= 0 {
		k.Timeout = time.Minute
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.kinds[k.Name]; dup {
		panic("jobs: kind " + k.Name + " registered twice")
	}
	r.kinds[k.Name] = k
}

// MaxAttempts returns the attempts of a registered kind, for enqueuing.
func (r *Runner) MaxAttempts(kind string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.kinds[kind].MaxAttempts
}

func (r *Runner) kindNames() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := make([]string, 0, len(r.kinds))
	for n := range r.kinds {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LastPoll returns when the runner last looked for due jobs, by its clock;
// zero before the first look. Start looks at least every PollInterval,
// even with every slot busy, so an old LastPoll means the loop is stuck
// (e.g. waiting for the database) or not running.
func (r *Runner) LastPoll() time.Time {
	n := r.lastPoll.Load()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

func (r *Runner) markPoll() { r.lastPoll.Store(r.now().UnixNano()) }

// cancelWait bounds the wait for jobs after they were cancelled at shutdown.
const cancelWait = 5 * time.Second

// lease is how long a claimed job is reserved for its worker: longer than
// any attempt's timeout, so only a worker that died loses its jobs.
func (k Kind) lease() time.Duration { return 2*k.Timeout + 30*time.Second }

// Exponential returns a backoff of first, 2×first, 4×first… capped at max.
func Exponential(first, max time.Duration) func(int) time.Duration {
	return func(attempt int) time.Duration {
		d := first
		for i := 1; i < attempt && d < max; i++ {
			d *= 2
		}
		return min(d, max)
	}
}

// Schedule returns a backoff that follows delays (after attempt 1, 2, …)
// and repeats the last one.
func Schedule(delays ...time.Duration) func(int) time.Duration {
	return func(attempt int) time.Duration {
		return delays[min(max(attempt, 1), len(delays))-1]
	}
}

type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// Permanent marks err as not worth retrying: the job becomes dead.
func Permanent(err error) error { return permanentError{err} }

// retryAtError asks for the next attempt at a given time.
type retryAtError struct {
	at  time.Time
	err error
}

func (e retryAtError) Error() string { return e.err.Error() }
func (e retryAtError) Unwrap() error { return e.err }

// deferError puts a job back without counting an attempt.
type deferError struct{ at time.Time }

func (e deferError) Error() string { return "deferred until " + e.at.Format(time.RFC3339Nano) }

// Defer puts the job back, due at t, without using up an attempt: for a job
// that could not start (a resource it needs is busy), not one that failed.
func Defer(t time.Time) error { return deferError{t} }

// RetryAt reports a failed attempt and asks for the next one at t (still
// bounded by the kind's attempts).
func RetryAt(t time.Time, err error) error { return retryAtError{t, err} }

// Start runs jobs until ctx ends, then stops claiming, lets running jobs
// finish for up to the shutdown grace and returns. Jobs it did not run stay
// in the table for the next start.
func (r *Runner) Start(ctx context.Context) error {
	slots := make(chan struct{}, r.conc)
	finished := make(chan struct{}, 1)
	var wg sync.WaitGroup
	// Jobs get their own context: ending ctx stops claiming at once but
	// gives running jobs the grace period before cancelling them.
	jobCtx, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()
	t := time.NewTicker(r.poll)
	defer t.Stop()
	for {
		r.markPoll()
		free := r.conc - len(slots)
		if free > 0 {
			claimed, err := r.claim(ctx, free)
			if err != nil && ctx.Err() == nil {
				r.log.Error("claim jobs", "err", err)
			}
			for _, j := range claimed {
				slots <- struct{}{}
				wg.Go(func() {
					defer func() {
						<-slots
						select {
						case finished <- struct{}{}:
						default: // the loop is already due to look again
						}
					}()
					r.run(jobCtx, j)
				})
			}
			if len(claimed) == free {
				continue // there may be more due right now
			}
		}
		select {
		case <-ctx.Done():
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(r.grace):
				r.log.Warn("jobs still running after the shutdown grace; cancelling them", "grace", r.grace.String())
				cancelJobs()
				select {
				case <-done:
				case <-time.After(cancelWait):
					// A job that ignores its context cannot hold the process
					// hostage; its lease expiry hands it to the next start.
					r.log.Error("jobs ignored cancellation; leaving them to lease expiry", "waited", cancelWait.String())
				}
			}
			return nil
		case <-t.C:
		case <-r.store.JobsEnqueued():
		case <-finished: // a slot is free: look for more due jobs
		}
	}
}

// RunOnce claims every job due now, runs them (up to the concurrency at a
// time) and returns how many ran. Tests drive the runner with it and a fake
// clock instead of sleeping.
func (r *Runner) RunOnce(ctx context.Context) (int, error) {
	total := 0
	r.markPoll()
	for {
		claimed, err := r.claim(ctx, r.conc)
		if err != nil {
			return total, err
		}
		if len(claimed) == 0 {
			return total, nil
		}
		var wg sync.WaitGroup
		for _, j := range claimed {
			wg.Go(func() { r.run(ctx, j) })
		}
		wg.Wait()
		total += len(claimed)
	}
}

// claim leases up to n due jobs of the registered kinds. Each kind has its
// own lease, so jobs are claimed per kind.
func (r *Runner) claim(ctx context.Context, n int) ([]store.Job, error) {
	var all []store.Job
	for _, name := range r.kindNames() {
		if n-len(all) <= 0 {
			break
		}
		r.mu.Lock()
		k := r.kinds[name]
		r.mu.Unlock()
		got, err := r.store.ClaimJobs(ctx, r.now(), k.lease(), n-len(all), []string{name})
		if err != nil {
			return all, err
		}
		all = append(all, got...)
	}
	return all, nil
}

// run performs one attempt and records its outcome.
func (r *Runner) run(ctx context.Context, j store.Job) {
	r.mu.Lock()
	k := r.kinds[j.Kind]
	r.mu.Unlock()
	actx, cancel := context.WithTimeout(ctx, k.Timeout)
	err := safeRun(actx, k.Run, j)
	cancel()
	log := r.log.With("job_id", j.ID, "kind", j.Kind, "attempt", j.Attempt)
	// Recording the outcome must not be cancelled with the job.
	rctx := context.WithoutCancel(ctx)
	var recErr error
	var def deferError
	if errors.As(err, &def) {
		recErr = r.store.InTx(rctx, func(tx *store.Tx) error { return tx.ReleaseJobAt(j, def.at) })
	} else if err != nil && ctx.Err() != nil {
		// Cut short by shutdown, not failed: give the attempt back.
		recErr = r.store.InTx(rctx, func(tx *store.Tx) error { return tx.ReleaseJob(j) })
		log.Info("job interrupted by shutdown; it will run again", "err", err)
	} else if err == nil {
		recErr = r.store.InTx(rctx, func(tx *store.Tx) error { return tx.FinishJob(j) })
	} else {
		now := r.now()
		var perm permanentError
		dead := errors.As(err, &perm) || j.Attempt >= j.MaxAttempts
		next := now.Add(jitter(k.Backoff(j.Attempt), k.Jitter))
		var at retryAtError
		if errors.As(err, &at) {
			next = at.at
		}
		recErr = r.store.InTx(rctx, func(tx *store.Tx) error { return tx.RetryJob(j, next, dead, err.Error()) })
		if dead {
			log.Warn("job failed for good", "err", err)
		} else {
			log.Info("job attempt failed; will retry", "err", err, "next_attempt_at", next)
		}
	}
	if errors.Is(recErr, store.ErrLeaseLost) {
		log.Warn("job lease lost: another worker took the job over; this attempt's outcome is discarded")
	} else if recErr != nil {
		log.Error("record job outcome", "err", recErr)
	}
}

// safeRun turns a panic in a job into a failed attempt.
func safeRun(ctx context.Context, f Func, j store.Job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("job panicked: %v\n%s", p, debug.Stack())
		}
	}()
	return f(ctx, j)
}

func jitter(d time.Duration, frac float64) time.Duration {
	if frac <= 0 {
		return d
	}
	return time.Duration(float64(d) * (1 + frac*(2*rand.Float64()-1)))
}
