package verification

import (
	"encoding/json"
	"fmt"

	"kycd/invite"
	"kycd/kyc"
	"kycd/locale"
	"kycd/store"
)

// RequestResubmission sends a request awaiting review back to the
// applicant to redo one step: the request moves to resubmission_requested
// and to its next attempt, the portal link is re-issued (the earlier one
// stops working) to open that step only, and the link is e-mailed. The
// earlier attempt's evidence and decision stay. At most
// kyc.MaxResubmissions per request; a decided request is final
// (INVALID_TRANSITION). A first four-eyes decision waiting for its second
// is dropped: the evidence it was made on is changing.
func (s *Service) RequestResubmission(tx *store.Tx, orgID string, env kyc.Environment, id string, in kyc.ResubmissionInput,
	by kyc.Principal, actor Actor) (*kyc.KYCRequest, error) {
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	if _, err := kyc.CheckTransition(kyc.ActionRequestResubmission, r.Status, ""); err != nil {
		return nil, err
	}
	docType := ""
	if r.DocumentData != nil {
		docType = r.DocumentData.DocumentType
	}
	if errs := in.Validate(r.WorkflowType, docType); len(errs) > 0 {
		return nil, kyc.Invalid(errs...)
	}
	if err := checkClaim(tx, r, actor); err != nil {
		return nil, err
	}
	if r.Resubmissions, err = tx.FindResubmissions(r.ID); err != nil {
		return nil, err
	}
	if len(r.Resubmissions) >= kyc.MaxResubmissions {
		return nil, &kyc.Error{Code: kyc.EUnprocessable, Reason: "too_many_resubmissions", Message: fmt.Sprintf(
			"This request has had %d resubmissions, the most one may have; approve or reject it on the evidence there is.", kyc.MaxResubmissions)}
	}
	if err := tx.DeleteClaim(r.ID); err != nil {
		return nil, err
	}
	ttl := in.TTL
	if ttl == 0 {
		ttl = kyc.DefaultResubmissionTTL
	}
	rs := kyc.Resubmission{Attempt: max(r.Attempt, 1) + 1, Step: in.Step, Message: in.Message, State: kyc.ResubmissionOpen, By: by,
		PriorAutomationDecision: r.AutomationDecision, PriorDecisionReason: r.DecisionReason, PriorRiskScore: r.RiskScore,
		PriorReasonCodes: store.ReasonCodesOf(r.ProcessingResult), ExpiresAt: tx.Now().Add(ttl)}
	if err := tx.CreateResubmission(r, &rs); err != nil {
		return nil, err
	}
	r.Resubmissions = append(r.Resubmissions, rs)
	r.Attempt, r.PendingReview = rs.Attempt, nil
	r.PortalToken, r.PortalExpiresAt, r.PortalOpenedAt = store.NewSecret(32), rs.ExpiresAt, nil
	if err := tx.SetPortalToken(r, hashToken(r.PortalToken)); err != nil {
		return nil, err
	}
	reason := fmt.Sprintf("Resubmission of %s requested (attempt %d): %s", in.Step, rs.Attempt, in.Message)
	from := r.Status
	t, err := kyc.CheckTransition(kyc.ActionRequestResubmission, from, "")
	if err != nil {
		return nil, err
	}
	r.Status, r.Decision = t.To, kyc.StatusDecision(t.To)
	if err := tx.SaveKYCRequest(r); err != nil {
		return nil, err
	}
	// The webhook names the step, attempt and link expiry; the message,
	// written for the applicant, stays in the API's representation.
	extra := map[string]any{"resubmission": map[string]any{"id": rs.ID, "step": rs.Step, "attempt": rs.Attempt,
		"expiresAt": kyc.FormatTime(rs.ExpiresAt)}}
	if err := s.recordWith(tx, r, t.Event, string(t.Event), &from, actor, &reason, extra); err != nil {
		return nil, err
	}
	a, err := tx.FindApplicant(orgID, env, r.ApplicantID)
	if err != nil {
		return nil, err
	}
	if a.Email != nil {
		if err := s.queueResubmissionEmail(tx, r, a, &rs); err != nil {
			return nil, err
		}
	}
	// The link's expiry: the expire job sends the request back to review
	// when the applicant did not resubmit in time.
	payload, err := json.Marshal(requestJob{RequestID: r.ID})
	if err != nil {
		return nil, err
	}
	_, err = tx.EnqueueJob(store.NewJob{Kind: KindExpire, Payload: payload, RunAt: r.PortalExpiresAt, MaxAttempts: 5})
	return r, err
}

// queueResubmissionEmail e-mails the resubmission link, localized as the
// first link's e-mail is, naming the step and carrying the reviewer's
// message.
func (s *Service) queueResubmissionEmail(tx *store.Tx, r *kyc.KYCRequest, a *kyc.Applicant, rs *kyc.Resubmission) error {
	b, err := tx.FindBranding(r.OrganizationID)
	if err != nil {
		return err
	}
	ch := locale.Choice{OrgDefault: b.DefaultLocale}
	if r.Locale != nil {
		ch.Requested = *r.Locale
	}
	m, err := invite.Compose(invite.Input{Branding: b, Catalog: locale.Match(ch), FirstName: a.FirstName,
		URL: s.PortalURL(r.PortalToken), ExpiresAt: r.PortalExpiresAt, Redo: &invite.Redo{Step: string(rs.Step), Message: rs.Message}})
	if err != nil {
		return fmt.Errorf("compose resubmission e-mail: %w", err)
	}
	e := store.Email{To: *a.Email, Subject: m.Subject, Body: m.Text, HTML: m.HTML, FromName: b.Shown(), ReplyTo: b.SupportEmail}
	if m.InlineLogo {
		e.LogoSHA256 = b.Logo.SHA256
	}
	return tx.QueueEmailMessage(r.OrganizationID, e)
}

// openResubmission is the resubmission a request's link is for, or nil
// when the link is the first one. A request in resubmission_requested
// without an open row is an inconsistency, never a first link: the error
// keeps the link from opening every step.
func openResubmission(tx *store.Tx, r *kyc.KYCRequest) (*kyc.Resubmission, error) {
	if r.Status != kyc.KYCResubmissionRequested {
		return nil, nil
	}
	var err error
	if r.Resubmissions, err = tx.FindResubmissions(r.ID); err != nil {
		return nil, err
	}
	rs := r.OpenResubmission()
	if rs == nil {
		return nil, fmt.Errorf("request %s awaits a resubmission but has none open", r.ID)
	}
	return rs, nil
}

// errNotThisStep refuses what a resubmission link was not issued for.
func errNotThisStep(rs *kyc.Resubmission, field string) error {
	return &kyc.Error{Code: kyc.EForbidden, Reason: "step_not_requested",
		Message: fmt.Sprintf("This link is for redoing one step only (%s).", rs.Step),
		Details: []kyc.FieldError{{Field: field, Message: "is not the step this link was sent for"}}}
}

// gateCapture refuses an image a resubmission link was not issued for: a
// capture of another kind or side, a document other than the one the
// applicant confirmed, and for the camera check any upload (only a
// passed liveness session completes it).
func gateCapture(tx *store.Tx, r *kyc.KYCRequest, c *kyc.Capture, upload bool) error {
	rs, err := openResubmission(tx, r)
	if err != nil || rs == nil {
		return err
	}
	if !rs.Step.Allows(c.Kind, c.Side) {
		return errNotThisStep(rs, "kind")
	}
	if rs.Step == kyc.StepLiveness && upload {
		return errNotThisStep(rs, "method")
	}
	if c.Kind == "document" && r.DocumentData != nil {
		if c.DocumentType == nil || *c.DocumentType != r.DocumentData.DocumentType {
			return &kyc.Error{Code: kyc.EValidation, Message: "Photograph the same document as before.",
				Details: []kyc.FieldError{{Field: "documentType", Message: "must be " + r.DocumentData.DocumentType}}}
		}
		if c.Country == nil || *c.Country != r.DocumentData.IssuingCountry {
			return &kyc.Error{Code: kyc.EValidation, Message: "Photograph the same document as before.",
				Details: []kyc.FieldError{{Field: "country", Message: "must be " + r.DocumentData.IssuingCountry}}}
		}
	}
	return nil
}

// gateSession refuses a camera session of the wrong kind on a
// resubmission link: a face check for a document step, a document camera
// for a face step.
func gateSession(tx *store.Tx, r *kyc.KYCRequest, face bool) error {
	rs, err := openResubmission(tx, r)
	if err != nil || rs == nil {
		return err
	}
	if rs.Step.Camera() != face {
		return errNotThisStep(rs, "session")
	}
	return nil
}

// resubmit finishes a resubmission: the step's evidence must be in the
// new attempt; the request is submitted again and the engine runs on it.
func (s *Service) resubmit(tx *store.Tx, r *kyc.KYCRequest, rs *kyc.Resubmission) error {
	caps, err := tx.FindCaptures(r.ID, "")
	if err != nil {
		return err
	}
	done := false
	for _, c := range caps {
		done = done || (c.Attempt == r.Attempt && rs.Step.Allows(c.Kind, c.Side) &&
			(rs.Step != kyc.StepLiveness || c.Method == kyc.MethodCameraChallenge))
	}
	if !done {
		field := map[kyc.ResubmissionStep]string{kyc.StepDocumentFront: "document.front", kyc.StepDocumentBack: "document.back",
			kyc.StepSelfie: "selfie", kyc.StepLiveness: "selfie"}[rs.Step]
		return &kyc.Error{Code: kyc.EValidation, Message: "The photo asked for is missing.",
			Details: []kyc.FieldError{{Field: field, Message: "is required before submitting"}}}
	}
	if err := tx.CloseResubmission(rs, kyc.ResubmissionSubmitted); err != nil {
		return err
	}
	if err := s.move(tx, r, kyc.ActionResubmit, "", applicantActor, nil); err != nil {
		return err
	}
	return enqueueProcess(tx, r)
}

// enqueueProcess queues the engine for the request's current attempt:
// one run per attempt, whatever the retries of the submission.
func enqueueProcess(tx *store.Tx, r *kyc.KYCRequest) error {
	payload, err := json.Marshal(requestJob{RequestID: r.ID})
	if err != nil {
		return err
	}
	key := KindProcess + "/" + r.ID
	if r.Attempt > 1 {
		key += fmt.Sprintf("/%d", r.Attempt)
	}
	_, err = tx.EnqueueJob(store.NewJob{Kind: KindProcess, Payload: payload, MaxAttempts: processAttempts, DedupeKey: key})
	return err
}

// expireResubmission sends a request whose resubmission link ran out back
// to review, on the evidence it has.
func (s *Service) expireResubmission(tx *store.Tx, r *kyc.KYCRequest) error {
	rs, err := openResubmission(tx, r)
	if err != nil {
		return err
	}
	if err := tx.CloseResubmission(rs, kyc.ResubmissionExpired); err != nil {
		return err
	}
	reason := fmt.Sprintf("The resubmission link (%s) expired before the applicant sent it; the request waits for review on its earlier evidence.", rs.Step)
	return s.move(tx, r, kyc.ActionResubmissionExpire, "", systemActor, &reason)
}

// currentEvidence is what the engine decides on: for each image (document
// side, selfie) the one of the latest attempt that has it, and the camera
// checks of the latest attempt that opened any. Earlier attempts stay in
// the case for people to compare; the engine never mixes a superseded
// image into a decision.
func currentEvidence(caps []kyc.Capture, sessions []kyc.LivenessSession) ([]kyc.Capture, []kyc.LivenessSession) {
	slot := func(c kyc.Capture) string {
		if c.Side != nil {
			return c.Kind + "/" + *c.Side
		}
		return c.Kind
	}
	latest := map[string]int{}
	for _, c := range caps {
		latest[slot(c)] = max(latest[slot(c)], c.Attempt)
	}
	var outC []kyc.Capture
	for _, c := range caps {
		if c.Attempt == latest[slot(c)] {
			outC = append(outC, c)
		}
	}
	// The camera checks go with the selfie they vouch for: those of the
	// selfie's attempt (none, when a resubmitted selfie was uploaded).
	last, ok := latest["selfie"]
	if !ok {
		for _, s := range sessions {
			last = max(last, s.Attempt)
		}
	}
	var outS []kyc.LivenessSession
	for _, s := range sessions {
		if s.Attempt == last {
			outS = append(outS, s)
		}
	}
	return outC, outS
}
