package verification

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"kycd/decision"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/store"
)

// Job kinds of the lifecycle.
const (
	KindExpire  = "kyc.expire"  // at the link's expiry: expire an unsubmitted request
	KindProcess = "kyc.process" // after submission: run the decision engine
)

// processAttempts bounds engine retries; after the last one the request
// is failed (spec: svc.kyc.request.failed, "processing errored").
const processAttempts = 5

type requestJob struct {
	RequestID string `json:"requestId"`
}

var systemActor = Actor{Type: kyc.ActorSystem}

// RegisterJobs adds the lifecycle's job kinds to the runner.
func (s *Service) RegisterJobs(r *jobs.Runner) {
	r.Register(jobs.Kind{Name: KindExpire, MaxAttempts: 5, Backoff: jobs.Exponential(time.Second, time.Minute), Run: s.runExpire})
	r.Register(jobs.Kind{Name: KindProcess, MaxAttempts: processAttempts, Timeout: 5 * time.Minute,
		Backoff: jobs.Schedule(5*time.Second, 30*time.Second, 2*time.Minute, 10*time.Minute), Run: s.runProcess})
	s.registerOverdue(r)
}

func payloadID(j store.Job) (string, error) {
	var p requestJob
	if err := json.Unmarshal(j.Payload, &p); err != nil || p.RequestID == "" {
		return "", jobs.Permanent(fmt.Errorf("%s job %d: bad payload %q", j.Kind, j.ID, j.Payload))
	}
	return p.RequestID, nil
}

// runExpire expires the request if its link is still unsubmitted and past
// its expiry. A resend moved the expiry (and queued its own job), so an
// early run changes nothing.
func (s *Service) runExpire(ctx context.Context, j store.Job) error {
	id, err := payloadID(j)
	if err != nil {
		return err
	}
	return s.store.InTx(ctx, func(tx *store.Tx) error {
		r, err := tx.FindKYCRequestByID(id)
		if err != nil {
			return err
		}
		if tx.Now().Before(r.PortalExpiresAt) {
			return nil
		}
		if r.Status == kyc.KYCResubmissionRequested {
			return s.expireResubmission(tx, r)
		}
		if r.Status != kyc.KYCLinkGenerated {
			return nil
		}
		reason := "The portal link expired before the applicant submitted."
		return s.move(tx, r, kyc.ActionExpire, "", systemActor, &reason)
	})
}

// runProcess moves a submitted request to processing, runs the engine
// outside any transaction (it reads images and may take seconds) and
// records its decision. An engine error is retried; after the last
// attempt the request fails.
func (s *Service) runProcess(ctx context.Context, j store.Job) error {
	id, err := payloadID(j)
	if err != nil {
		return err
	}
	var r *kyc.KYCRequest
	var a *kyc.Applicant
	err = s.store.InTx(ctx, func(tx *store.Tx) (err error) {
		if r, err = tx.FindKYCRequestByID(id); err != nil {
			return err
		}
		if r.Status == kyc.KYCSubmitted {
			if err := s.move(tx, r, kyc.ActionProcess, "", systemActor, nil); err != nil {
				return err
			}
		}
		if a, err = tx.FindApplicant(r.OrganizationID, r.Environment, r.ApplicantID); err != nil {
			return err
		}
		return s.failErased(tx, r, a)
	})
	if err != nil {
		return err
	}
	if r.Status != kyc.KYCProcessing {
		return nil // decided already (a retry after a crash between commits)
	}
	res, engineErr := s.decide(ctx, r, a)
	if engineErr != nil && j.Attempt < j.MaxAttempts && !decision.IsPermanent(engineErr) {
		s.log.Warn("decision engine failed; will retry", "request", r.ID, "attempt", j.Attempt, "err", engineErr)
		return engineErr
	}
	return s.store.InTx(ctx, func(tx *store.Tx) error {
		r, err := tx.FindKYCRequestByID(id)
		if err != nil || r.Status != kyc.KYCProcessing {
			return err
		}
		// The applicant may have been erased while the engine ran (it
		// runs outside a transaction): what it read from their images is
		// not written back, and an erased person is not approved.
		a, err := tx.FindApplicant(r.OrganizationID, r.Environment, r.ApplicantID)
		if err != nil {
			return err
		}
		if a.ErasedAt != nil {
			return s.failErased(tx, r, a)
		}
		if engineErr != nil {
			reason := "Processing failed: " + engineErr.Error()
			r.DecisionReason = &reason
			return s.move(tx, r, kyc.ActionFail, "", systemActor, &reason)
		}
		to := map[decision.Outcome]kyc.KYCStatus{decision.Approve: kyc.KYCApproved, decision.Reject: kyc.KYCRejected,
			decision.Review: kyc.KYCAwaitingReview}[res.Outcome]
		auto, conf, risk, reason := string(res.Outcome), res.Confidence, res.RiskScore, res.Reason
		r.AutomationDecision, r.AutomationConfidence, r.RiskScore, r.DecisionReason = &auto, &conf, &risk, &reason
		r.ProcessingResult, r.Screenings = res.Processing, res.Screenings
		// The faces the engine described, sealed, for the duplicate-face
		// check of later requests: kept only with the decision they made.
		for i := range res.Faces {
			if err := tx.SaveFaceDescriptor(&res.Faces[i]); err != nil {
				return err
			}
		}
		if res.DocumentNumberRead != "" {
			if err := tx.SetDocumentNumberRead(r, res.DocumentNumberRead); err != nil {
				return err
			}
		}
		if err := tx.SetAddressRead(r, res.AddressRead); err != nil {
			return err
		}
		return s.move(tx, r, kyc.ActionAutoDecide, to, systemActor, &reason)
	})
}

func (s *Service) decide(ctx context.Context, r *kyc.KYCRequest, a *kyc.Applicant) (decision.Result, error) {
	caps, err := s.store.FindCaptures(ctx, r.ID, "")
	if err != nil {
		return decision.Result{}, err
	}
	sessions, err := s.store.FindLivenessSessions(ctx, r.ID)
	if err != nil {
		return decision.Result{}, err
	}
	// After a resubmission: the latest image of each kind and side, and
	// the camera checks of the selfie's attempt.
	caps, sessions = currentEvidence(caps, sessions)
	for i := range caps {
		full, err := s.store.FindCaptureData(ctx, caps[i].ID)
		if err != nil {
			return decision.Result{}, err
		}
		caps[i] = *full
	}
	// The frames' images: the document's portrait is compared with every
	// frame of every session (portrait_not_selfie, issue 24).
	for i := range sessions {
		for j, f := range sessions[i].Frames {
			full, _, err := s.store.FindLivenessFrameData(ctx, f.ID)
			if err != nil {
				return decision.Result{}, err
			}
			sessions[i].Frames[j] = *full
		}
	}
	return s.engine.Decide(ctx, decision.Input{Request: r, Applicant: a, Captures: caps, LivenessSessions: sessions})
}

// failErased ends a processing request whose applicant was erased: it
// fails, with no result kept (erasure removed what the checks read).
func (s *Service) failErased(tx *store.Tx, r *kyc.KYCRequest, a *kyc.Applicant) error {
	if a.ErasedAt == nil || r.Status != kyc.KYCProcessing {
		return nil
	}
	reason := "The applicant's personal data was erased while the request was processed; no result was kept."
	r.DecisionReason = &reason
	return s.move(tx, r, kyc.ActionFail, "", systemActor, &reason)
}
