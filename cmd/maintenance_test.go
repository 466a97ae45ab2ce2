package cmd

import (
	"testing"
	"time"

	"kycd/jobs"
	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestMaintenance: the hourly purge removes expired idempotency keys only,
// schedules itself once per hour, and restarts add no duplicate.
func TestMaintenance(t *testing.T) {
	st, clock := storetest.Open(t), &storetest.Clock{}
	st.Now = clock.Now
	org := storetest.MustOrg(t, st, "m", nil)
	save := func(key string) {
		err := st.InTx(t.Context(), func(tx *store.Tx) error {
			return tx.SaveIdempotentResponse(org.ID, kyc.Sandbox, key, &store.IdempotentResponse{RequestHash: []byte{1}, StatusCode: 201, Body: []byte("{}")})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 1200 {
		save("old-" + string(rune('a'+i%26)) + time.Duration(i).String())
	}
	clock.Advance(23 * time.Hour)
	save("fresh")
	clock.Advance(2 * time.Hour) // the old keys are now 25 h old, "fresh" 2 h

	r := jobs.New(jobs.Options{Store: st, Now: clock.Now})
	registerMaintenance(r, st)
	for range 3 { // three starts within the same hour
		if err := scheduleMaintenance(t.Context(), st); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := r.RunOnce(t.Context()); err != nil || n != 1 {
		t.Fatalf("RunOnce = %d, %v; want one purge", n, err)
	}
	if got, _ := st.FindIdempotentResponse(t.Context(), org.ID, kyc.Sandbox, "fresh", clock.Now()); got == nil {
		t.Error("an unexpired key was purged")
	}
	pending, _ := st.FindJobs(t.Context(), kindPurge, "pending")
	if len(pending) != 1 || !pending[0].RunAt.Equal(clock.Now().Truncate(time.Hour).Add(time.Hour)) {
		t.Fatalf("next purge: %+v", pending)
	}
	// All 1,200 old keys are gone (in three batches of at most 500).
	db := storetest.SQL(t, st)
	var left int
	if err := db.QueryRow(`SELECT count(*) FROM idempotency_keys`).Scan(&left); err != nil || left != 1 {
		t.Fatalf("%d idempotency keys left (%v), want only the fresh one", left, err)
	}
	clock.Advance(time.Hour)
	if n, _ := r.RunOnce(t.Context()); n != 1 {
		t.Fatalf("second hour: %d runs", n)
	}
}
