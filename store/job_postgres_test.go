package store_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"kycd/store"
	"kycd/store/storetest"
)

// TestClaimJobsAcrossInstances: three stores on one PostgreSQL database
// (three kycd instances) claim a shared queue at the same time; every job
// is claimed exactly once, and a dedupe key enqueued by all three makes one
// job.
func TestClaimJobsAcrossInstances(t *testing.T) {
	dsn := storetest.DB(t, "postgres")
	var stores []*store.Store
	for range 3 {
		s, err := store.Open(t.Context(), dsn, store.Options{MasterKey: storetest.MasterKey})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	const n = 300
	for i := range n {
		err := stores[i%3].InTx(t.Context(), func(tx *store.Tx) error {
			_, err := tx.EnqueueJob(store.NewJob{Kind: "test.job", Payload: fmt.Appendf(nil, `{"n":%d}`, i), MaxAttempts: 3})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, s := range stores {
		wg.Go(func() {
			if err := s.InTx(t.Context(), func(tx *store.Tx) error {
				_, err := tx.EnqueueJob(store.NewJob{Kind: "test.daily", DedupeKey: "test.daily/2026-11-25"})
				return err
			}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	var mu sync.Mutex
	seen := map[int64]int{}
	for _, s := range stores {
		for range 3 {
			wg.Go(func() {
				for {
					jobs, err := s.ClaimJobs(t.Context(), time.Now(), time.Minute, 7, []string{"test.job", "test.daily"})
					if err != nil {
						t.Error(err)
						return
					}
					if len(jobs) == 0 {
						return
					}
					mu.Lock()
					for _, j := range jobs {
						seen[j.ID]++
					}
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if len(seen) != n+1 {
		t.Errorf("claimed %d distinct jobs, want %d (300 plus one daily job despite three enqueues)", len(seen), n+1)
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("job %d claimed %d times", id, c)
		}
	}
}
