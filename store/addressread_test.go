package store_test

import (
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestAddressRead: the address read from a licence is stored sealed (the
// file holds no street), opened only for its request in its organization
// and environment, cleared by a decision that read none, and erased with
// the applicant.
func TestAddressRead(t *testing.T) {
	s := storetest.Open(t) // the engine KYCD_TEST_ENGINE names
	org := storetest.MustOrg(t, s, "acme", nil)
	other := storetest.MustOrg(t, s, "other", nil)
	r := mustRequest(t, s, org.ID, passport)
	addr := &kyc.DocumentAddress{Street: "2300 WEST BROAD STREET", City: "RICHMOND", State: "VA", PostalCode: "232690000",
		Country: "USA", Source: "pdf417_aamva", CaptureID: "cap_x"}
	set := func(r *kyc.KYCRequest, a *kyc.DocumentAddress) {
		t.Helper()
		if err := s.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetAddressRead(r, a) }); err != nil {
			t.Fatal(err)
		}
	}
	set(r, addr)
	got, err := s.FindAddressRead(t.Context(), r)
	if err != nil || got == nil || *got != *addr {
		t.Fatalf("address read back: %+v, %v", got, err)
	}
	if !strings.HasPrefix(s.Path(), "postgres") {
		var raw string
		if err := rawDB(t, s.Path()).QueryRow(`SELECT address_read FROM kyc_requests WHERE id = ?`, r.ID).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		if raw == "" || strings.Contains(raw, "BROAD") || strings.Contains(raw, "RICHMOND") {
			t.Errorf("the column is not sealed: %q", raw)
		}
	}
	// Another organization's, or the other environment's, view of the
	// same id finds nothing.
	for _, wrong := range []kyc.KYCRequest{{ID: r.ID, OrganizationID: other.ID, Environment: r.Environment},
		{ID: r.ID, OrganizationID: r.OrganizationID, Environment: kyc.Live}} {
		if got, err := s.FindAddressRead(t.Context(), &wrong); err != nil || got != nil {
			t.Errorf("%s/%s sees %+v, %v", wrong.OrganizationID, wrong.Environment, got, err)
		}
	}
	set(r, nil)
	if got, err := s.FindAddressRead(t.Context(), r); err != nil || got != nil {
		t.Errorf("after a decision that read none: %+v, %v", got, err)
	}
	set(r, addr)
	if _, err := s.EraseApplicant(t.Context(), store.ErasureRequest{OrganizationID: org.ID, Environment: kyc.Sandbox,
		ApplicantID: r.ApplicantID, Rule: kyc.ErasureOnRequest}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.FindAddressRead(t.Context(), r); err != nil || got != nil {
		t.Errorf("after erasure: %+v, %v", got, err)
	}
}
