package store_test

import (
	"errors"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestMeter: a metered event commits or rolls back with its transaction,
// counts once per resource, never in sandbox, and falls in the UTC day
// and month it happened.
func TestMeter(t *testing.T) {
	st := storetest.Open(t)
	clock := &storetest.Clock{}
	st.Now = clock.Now
	org := storetest.MustOrg(t, st, "alpha", nil)
	other := storetest.MustOrg(t, st, "beta", nil)
	meter := func(orgID string, env kyc.Environment, m kyc.UsageMetric, id string) {
		t.Helper()
		if err := st.InTx(t.Context(), func(tx *store.Tx) error { return tx.Meter(orgID, env, m, id) }); err != nil {
			t.Fatal(err)
		}
	}
	// The clock starts on 2 January 03:04:05.
	clock.Advance(time.Date(2026, 1, 31, 23, 59, 59, 999e6, time.UTC).Sub(clock.Now()))
	meter(org.ID, kyc.Live, kyc.UsageAMLChecks, "aml_1")
	meter(org.ID, kyc.Live, kyc.UsageAMLChecks, "aml_1") // the same check again
	meter(org.ID, kyc.Sandbox, kyc.UsageAMLChecks, "aml_2")
	meter(other.ID, kyc.Live, kyc.UsageAMLChecks, "aml_3")
	// Rolled back with the event it belongs to.
	boom := errors.New("boom")
	if err := st.InTx(t.Context(), func(tx *store.Tx) error {
		if err := tx.Meter(org.ID, kyc.Live, kyc.UsageKYCSubmitted, "kyc_1"); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	clock.Advance(time.Millisecond)
	meter(org.ID, kyc.Live, kyc.UsageKYCSubmitted, "kyc_2")
	meter(org.ID, kyc.Live, kyc.UsageMonitoringRescreens, "ams_1")

	jan, err := st.Usage(t.Context(), org.ID, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(jan.Days) != 31 || jan.Totals[kyc.UsageAMLChecks] != 1 || jan.Totals[kyc.UsageKYCSubmitted] != 0 ||
		jan.Days[30].Counts[kyc.UsageAMLChecks] != 1 || jan.Days[30].Date != "2026-01-31" {
		t.Errorf("January: %+v", jan)
	}
	feb, err := st.Usage(t.Context(), org.ID, time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(feb.Days) != 28 || feb.Totals[kyc.UsageKYCSubmitted] != 1 || feb.Totals[kyc.UsageMonitoringRescreens] != 1 ||
		feb.Totals[kyc.UsageAMLChecks] != 0 || feb.Days[0].Counts[kyc.UsageKYCSubmitted] != 1 {
		t.Errorf("February: %+v", feb)
	}
}
