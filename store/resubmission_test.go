package store_test

import (
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// TestResubmissionStatusAllowed: migration 0031 widened the status CHECK
// (on SQLite through writable_schema): a request can be written in
// resubmission_requested on every connection, an unknown status is still
// refused, the file passes integrity_check, and the resubmission, the
// attempts of captures and the overdue mark round-trip. Runs on
// PostgreSQL with KYCD_TEST_ENGINE=postgres.
func TestResubmissionStatusAllowed(t *testing.T) {
	s := storetest.Open(t)
	org := storetest.MustOrg(t, s, "acme", nil)
	first, last := "Ada", "Lovelace"
	var r *kyc.KYCRequest
	err := s.InTx(t.Context(), func(tx *store.Tx) error {
		a, err := tx.CreateApplicant(org.ID, kyc.Live, &kyc.ApplicantInput{FirstName: &first, LastName: &last})
		if err != nil {
			return err
		}
		r = &kyc.KYCRequest{OrganizationID: org.ID, Environment: kyc.Live, ApplicantID: a.ID, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: tx.Now().Add(time.Hour)}
		r.PortalToken = store.NewSecret(32)
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		front := "front"
		if err := tx.SaveCapture(&kyc.Capture{RequestID: r.ID, Kind: "document", Side: &front, ContentType: "image/jpeg",
			Method: kyc.MethodUpload, SHA256: "a"}, []byte("one")); err != nil {
			return err
		}
		reason := "blurred"
		r.Status, r.DecisionReason = kyc.KYCAwaitingReview, &reason
		return tx.SaveKYCRequest(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.InTx(t.Context(), func(tx *store.Tx) error {
		rs := &kyc.Resubmission{Attempt: 2, Step: kyc.StepDocumentFront, Message: "Take it again in good light.", State: kyc.ResubmissionOpen,
			By: kyc.Principal{Type: kyc.ActorUser, ID: "usr_1"}, PriorDecisionReason: r.DecisionReason, PriorReasonCodes: []string{"IMAGE_BLURRY"},
			ExpiresAt: tx.Now().Add(72 * time.Hour)}
		if err := tx.CreateResubmission(r, rs); err != nil {
			return err
		}
		r.Status, r.Attempt, r.PortalToken = kyc.KYCResubmissionRequested, 2, store.NewSecret(32)
		if err := tx.SetPortalToken(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		if err := tx.SaveKYCRequest(r); err != nil {
			return err
		}
		front := "front"
		return tx.SaveCapture(&kyc.Capture{RequestID: r.ID, Kind: "document", Side: &front, ContentType: "image/jpeg",
			Method: kyc.MethodUpload, SHA256: "b"}, []byte("two"))
	})
	if err != nil {
		t.Fatalf("write resubmission_requested: %v", err)
	}
	// Read back on the read pool, another connection than the writer's.
	got, err := s.FindKYCRequest(t.Context(), org.ID, kyc.Live, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != kyc.KYCResubmissionRequested || got.Attempt != 2 || got.PortalToken == "" {
		t.Errorf("read back status %s attempt %d token %q; want resubmission_requested, 2 and the link's token", got.Status, got.Attempt, got.PortalToken)
	}
	caps, err := s.FindCaptures(t.Context(), r.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != 2 || caps[0].Attempt != 1 || caps[1].Attempt != 2 {
		t.Errorf("captures after a resubmitted front: %d, want both attempts' fronts kept (1 and 2): %+v", len(caps), caps)
	}
	rss, err := s.FindResubmissions(t.Context(), r.ID)
	if err != nil || len(rss) != 1 || rss[0].Step != kyc.StepDocumentFront || rss[0].PriorReasonCodes[0] != "IMAGE_BLURRY" || rss[0].By.ID != "usr_1" {
		t.Fatalf("resubmissions: %+v, %v", rss, err)
	}
	err = s.InTx(t.Context(), func(tx *store.Tx) error {
		if err := tx.CloseResubmission(&rss[0], kyc.ResubmissionSubmitted); err != nil {
			return err
		}
		// Closed once: a second close is a conflict, never a silent no-op.
		if err := tx.CloseResubmission(&rss[0], kyc.ResubmissionExpired); kyc.AsError(err).Code != kyc.EConflict {
			t.Errorf("second close: %v, want CONFLICT", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.InTx(t.Context(), func(tx *store.Tx) error {
		r.Status = "no_such_status"
		return tx.SaveKYCRequest(r)
	})
	if err == nil {
		t.Error("an unknown status was stored: the CHECK is gone")
	}
	if storetest.DefaultEngine() == "sqlite" {
		var ok string
		if err := storetest.SQL(t, s).QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
			t.Errorf("integrity_check: %q, %v", ok, err)
		}
	}
}
