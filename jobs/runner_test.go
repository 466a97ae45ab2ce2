package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kycd/jobs"
	"kycd/store"
	"kycd/store/storetest"
)

func enqueue(t *testing.T, s *store.Store, j store.NewJob) {
	t.Helper()
	if err := s.InTx(t.Context(), func(tx *store.Tx) error { _, err := tx.EnqueueJob(j); return err }); err != nil {
		t.Fatal(err)
	}
}

func newRunner(s *store.Store, clock *storetest.Clock) *jobs.Runner {
	return jobs.New(jobs.Options{Store: s, Now: clock.Now})
}

func mustRunOnce(t *testing.T, r *jobs.Runner) int {
	t.Helper()
	n, err := r.RunOnce(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOutbox: a job enqueued in a transaction that rolls back never runs.
func TestOutbox(t *testing.T) {
	s, clock := storetest.Open(t), &storetest.Clock{}
	s.Now = clock.Now
	r := newRunner(s, clock)
	var ran []string
	r.Register(jobs.Kind{Name: "note", Run: func(ctx context.Context, j store.Job) error { ran = append(ran, string(j.Payload)); return nil }})
	errNo := errors.New("changed my mind")
	err := s.InTx(t.Context(), func(tx *store.Tx) error {
		if _, err := tx.EnqueueJob(store.NewJob{Kind: "note", Payload: []byte(`"rolled back"`)}); err != nil {
			return err
		}
		return errNo
	})
	if !errors.Is(err, errNo) {
		t.Fatal(err)
	}
	enqueue(t, s, store.NewJob{Kind: "note", Payload: []byte(`"committed"`)})
	if n := mustRunOnce(t, r); n != 1 || len(ran) != 1 || ran[0] != `"committed"` {
		t.Fatalf("ran %d: %v", n, ran)
	}
	if left, _ := s.FindJobs(t.Context(), "", ""); len(left) != 0 {
		t.Errorf("finished job left in the table: %+v", left)
	}
}

// TestRetrySchedule walks the webhook schedule 1s, 16s, 2m, 15m, 2h under a
// fake clock: a job that fails four times runs at exactly those offsets.
func TestRetrySchedule(t *testing.T) {
	s, clock := storetest.Open(t), &storetest.Clock{}
	s.Now = clock.Now
	r := newRunner(s, clock)
	start := clock.Now()
	var at []time.Duration
	r.Register(jobs.Kind{Name: "flaky", MaxAttempts: 6,
		Backoff: jobs.Schedule(time.Second, 16*time.Second, 2*time.Minute, 15*time.Minute, 2*time.Hour),
		Run: func(ctx context.Context, j store.Job) error {
			at = append(at, clock.Now().Sub(start))
			if j.Attempt <= 4 {
				return fmt.Errorf("receiver said 503 (attempt %d)", j.Attempt)
			}
			return nil
		}})
	enqueue(t, s, store.NewJob{Kind: "flaky", MaxAttempts: 6})
	want := []time.Duration{0, time.Second, 17 * time.Second, 137 * time.Second, 1037 * time.Second}
	for i, offset := range want {
		// Just before the due time nothing runs; at it, the job does.
		if i > 0 {
			clock.Advance(offset - clock.Now().Sub(start) - time.Millisecond)
			if n := mustRunOnce(t, r); n != 0 {
				t.Fatalf("attempt %d ran early", i+1)
			}
			clock.Advance(time.Millisecond)
		}
		if n := mustRunOnce(t, r); n != 1 {
			t.Fatalf("attempt %d did not run at %s", i+1, offset)
		}
	}
	for i := range want {
		if at[i] != want[i] {
			t.Errorf("attempt %d at %s, want %s", i+1, at[i], want[i])
		}
	}
	if left, _ := s.FindJobs(t.Context(), "", ""); len(left) != 0 {
		t.Errorf("job left after success: %+v", left)
	}
}

func TestDeadLetters(t *testing.T) {
	s, clock := storetest.Open(t), &storetest.Clock{}
	s.Now = clock.Now
	r := newRunner(s, clock)
	r.Register(jobs.Kind{Name: "always-fails", MaxAttempts: 3, Backoff: jobs.Schedule(time.Minute),
		Run: func(ctx context.Context, j store.Job) error { return errors.New("connection refused") }})
	r.Register(jobs.Kind{Name: "bad-payload", MaxAttempts: 5,
		Run: func(ctx context.Context, j store.Job) error { return jobs.Permanent(errors.New("payload is not JSON")) }})
	r.Register(jobs.Kind{Name: "panics", MaxAttempts: 2, Backoff: jobs.Schedule(time.Minute),
		Run: func(ctx context.Context, j store.Job) error { panic("nil map") }})
	for _, k := range []string{"always-fails", "bad-payload", "panics"} {
		enqueue(t, s, store.NewJob{Kind: k, MaxAttempts: r.MaxAttempts(k)})
	}
	for range 4 {
		mustRunOnce(t, r)
		clock.Advance(time.Minute)
	}
	got, err := s.FindJobs(t.Context(), "", "dead")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"always-fails": 3, "bad-payload": 1, "panics": 2}
	if len(got) != 3 {
		t.Fatalf("dead jobs: %+v", got)
	}
	for _, j := range got {
		if j.Attempts != want[j.Kind] || j.LastError == "" {
			t.Errorf("%s: %d attempts, error %q; want %d", j.Kind, j.Attempts, j.LastError, want[j.Kind])
		}
	}
}

// TestLeaseExpiry: a job claimed by a worker that died is run again once
// the lease runs out, and the dead worker's late outcome is discarded.
func TestLeaseExpiry(t *testing.T) {
	s, clock := storetest.Open(t), &storetest.Clock{}
	s.Now = clock.Now
	r := newRunner(s, clock)
	var runs atomic.Int32
	r.Register(jobs.Kind{Name: "deliver", MaxAttempts: 5, Timeout: 10 * time.Second,
		Run: func(ctx context.Context, j store.Job) error { runs.Add(1); return nil }})
	enqueue(t, s, store.NewJob{Kind: "deliver", MaxAttempts: 5})
	// A worker claims it and dies mid-attempt.
	lost, err := s.ClaimJobs(t.Context(), clock.Now(), 50*time.Second, 10, []string{"deliver"})
	if err != nil || len(lost) != 1 {
		t.Fatalf("claim: %v %v", lost, err)
	}
	if n := mustRunOnce(t, r); n != 0 {
		t.Fatal("a leased job was taken before its lease ran out")
	}
	clock.Advance(50 * time.Second)
	if n := mustRunOnce(t, r); n != 1 || runs.Load() != 1 {
		t.Fatalf("after the lease: ran %d", n)
	}
	err = s.InTx(t.Context(), func(tx *store.Tx) error { return tx.FinishJob(lost[0]) })
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("late outcome of the dead worker: %v", err)
	}
}

// TestJobsSurviveRestart: jobs enqueued before the database is closed run
// after it is reopened, and a dedupe key schedules a job only once.
func TestJobsSurviveRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kyc.db")
	clock := &storetest.Clock{}
	s, err := store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Now = clock.Now
	for range 3 { // three "starts" each scheduling today's daily job
		enqueue(t, s, store.NewJob{Kind: "daily", DedupeKey: "daily/2026-01-02", RunAt: clock.Now().Add(time.Hour)})
	}
	enqueue(t, s, store.NewJob{Kind: "once"})
	s.Close()

	s, err = store.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Now = clock.Now
	r := newRunner(s, clock)
	counts := map[string]int{}
	var mu sync.Mutex
	for _, k := range []string{"daily", "once"} {
		r.Register(jobs.Kind{Name: k, Run: func(ctx context.Context, j store.Job) error {
			mu.Lock()
			counts[j.Kind]++
			mu.Unlock()
			return nil
		}})
	}
	mustRunOnce(t, r)
	clock.Advance(time.Hour)
	mustRunOnce(t, r)
	enqueue(t, s, store.NewJob{Kind: "daily", DedupeKey: "daily/2026-01-02"}) // after it ran
	clock.Advance(time.Hour)
	mustRunOnce(t, r)
	if counts["daily"] != 1 || counts["once"] != 1 {
		t.Fatalf("runs: %v, want each once", counts)
	}
}

func TestRetryAt(t *testing.T) {
	s, clock := storetest.Open(t), &storetest.Clock{}
	s.Now = clock.Now
	r := newRunner(s, clock)
	r.Register(jobs.Kind{Name: "busy", MaxAttempts: 3, Run: func(ctx context.Context, j store.Job) error {
		if j.Attempt == 1 {
			return jobs.RetryAt(clock.Now().Add(42*time.Second), errors.New("endpoint busy"))
		}
		return nil
	}})
	enqueue(t, s, store.NewJob{Kind: "busy", MaxAttempts: 3})
	mustRunOnce(t, r)
	clock.Advance(41 * time.Second)
	if mustRunOnce(t, r) != 0 {
		t.Fatal("ran before the requested time")
	}
	clock.Advance(time.Second)
	if mustRunOnce(t, r) != 1 {
		t.Fatal("did not run at the requested time")
	}
}

// TestStartAndShutdown uses the real loop: a committed job starts without
// waiting for a poll, and shutdown lets a running job finish.
func TestStartAndShutdown(t *testing.T) {
	s := storetest.Open(t)
	r := jobs.New(jobs.Options{Store: s, PollInterval: time.Hour, ShutdownGrace: 10 * time.Second})
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	var finished atomic.Bool
	r.Register(jobs.Kind{Name: "slow", Run: func(ctx context.Context, j store.Job) error {
		started <- struct{}{}
		<-release
		finished.Store(true)
		return nil
	}})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	enqueue(t, s, store.NewJob{Kind: "slow"})
	select {
	case <-started: // woken by the commit, not by the hour-long poll
	case <-time.After(10 * time.Second):
		t.Fatal("a committed job did not start")
	}
	if r.LastPoll().IsZero() {
		t.Error("Start did not record its poll")
	}
	enqueue(t, s, store.NewJob{Kind: "slow", RunAt: time.Now().Add(time.Hour)}) // not due: stays
	cancel()
	go func() { time.Sleep(100 * time.Millisecond); close(release) }()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !finished.Load() {
		t.Fatal("Start returned before the running job finished")
	}
	left, _ := s.FindJobs(t.Context(), "slow", "pending")
	if len(left) != 1 {
		t.Fatalf("the job that was not due: %+v", left)
	}
}

// TestExpiredLastAttemptIsDead: a job whose worker died on its last
// attempt is not run again (a job that kills the process must not
// crash-loop it).
func TestExpiredLastAttemptIsDead(t *testing.T) {
	s, clock := storetest.Open(t), &storetest.Clock{}
	s.Now = clock.Now
	r := newRunner(s, clock)
	var runs atomic.Int32
	r.Register(jobs.Kind{Name: "crashes", MaxAttempts: 1, Timeout: 10 * time.Second,
		Run: func(ctx context.Context, j store.Job) error { runs.Add(1); return nil }})
	enqueue(t, s, store.NewJob{Kind: "crashes", MaxAttempts: 1})
	if _, err := s.ClaimJobs(t.Context(), clock.Now(), 50*time.Second, 10, []string{"crashes"}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	if n := mustRunOnce(t, r); n != 0 || runs.Load() != 0 {
		t.Fatalf("an exhausted job ran again (%d)", n)
	}
	dead, _ := s.FindJobs(t.Context(), "crashes", "dead")
	if len(dead) != 1 || !strings.Contains(dead[0].LastError, "lease ran out") {
		t.Fatalf("dead: %+v", dead)
	}
}

// TestShutdownReleasesInterruptedJobs: a job cancelled at shutdown is not
// a failure: it goes back to pending with its attempt unused.
func TestShutdownReleasesInterruptedJobs(t *testing.T) {
	s := storetest.Open(t)
	r := jobs.New(jobs.Options{Store: s, PollInterval: time.Hour, ShutdownGrace: 50 * time.Millisecond})
	started := make(chan struct{}, 1)
	r.Register(jobs.Kind{Name: "long", MaxAttempts: 1, Run: func(ctx context.Context, j store.Job) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Start(ctx) }()
	enqueue(t, s, store.NewJob{Kind: "long", MaxAttempts: 1})
	<-started
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	pending, _ := s.FindJobs(t.Context(), "long", "pending")
	if len(pending) != 1 || pending[0].Attempts != 0 {
		all, _ := s.FindJobs(t.Context(), "long", "")
		t.Fatalf("after shutdown: %+v", all)
	}
}

// TestLastPoll: zero before the runner first looks for jobs, then the
// runner's clock at its latest look.
func TestLastPoll(t *testing.T) {
	s, clock := storetest.Open(t), &storetest.Clock{}
	s.Now = clock.Now
	r := newRunner(s, clock)
	r.Register(jobs.Kind{Name: "note", Run: func(ctx context.Context, j store.Job) error { return nil }})
	if got := r.LastPoll(); !got.IsZero() {
		t.Fatalf("LastPoll before any poll = %v, want zero", got)
	}
	mustRunOnce(t, r)
	if got, want := r.LastPoll(), clock.Now(); !got.Equal(want) {
		t.Fatalf("LastPoll = %v, want %v", got, want)
	}
	clock.Advance(time.Minute)
	mustRunOnce(t, r)
	if got, want := r.LastPoll(), clock.Now(); !got.Equal(want) {
		t.Fatalf("LastPoll after a minute = %v, want %v", got, want)
	}
}
