package verification

import (
	"context"
	"fmt"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// LinkState says what the portal can do with a link.
type LinkState string

// Link states; every state but LinkOpen gets its own page.
const (
	LinkOpen      LinkState = "open"      // capture and submit
	LinkExpired   LinkState = "expired"   // the link's time ran out
	LinkCancelled LinkState = "cancelled" // the organization cancelled it
	LinkDone      LinkState = "done"      // already submitted (processing or decided)
)

// linkState classifies a request for the portal. A link past its expiry
// is expired even before the expiry job has run.
func linkState(r *kyc.KYCRequest, now time.Time) LinkState {
	switch r.Status {
	case kyc.KYCLinkGenerated, kyc.KYCResubmissionRequested:
		if !now.Before(r.PortalExpiresAt) {
			return LinkExpired
		}
		return LinkOpen
	case kyc.KYCExpired:
		return LinkExpired
	case kyc.KYCCancelled:
		return LinkCancelled
	}
	return LinkDone
}

// PortalState finds the request behind a token (read-only, for pages)
// and says what the portal may do. An unknown token is NOT_FOUND. A
// request awaiting a resubmission comes with its resubmissions: the page
// opens the open one's step only.
func (s *Service) PortalState(ctx context.Context, token string) (*kyc.KYCRequest, LinkState, error) {
	r, err := s.store.FindKYCRequestByToken(ctx, hashToken(token))
	if err != nil {
		return nil, "", err
	}
	if r.Status == kyc.KYCResubmissionRequested {
		if r.Resubmissions, err = s.store.FindResubmissions(ctx, r.ID); err != nil {
			return nil, "", err
		}
		if r.OpenResubmission() == nil {
			return nil, "", fmt.Errorf("request %s awaits a resubmission but has none open", r.ID)
		}
	}
	return r, linkState(r, s.store.Now()), nil
}

// errLink is the UNPROCESSABLE error for a link that cannot be used; the
// portal shows the page for its state.
func errLink(st LinkState) error {
	msg := map[LinkState]string{
		LinkExpired:   "This link has expired.",
		LinkCancelled: "This verification was cancelled.",
		LinkDone:      "This verification has already been submitted.",
	}[st]
	return &kyc.Error{Code: kyc.EUnprocessable, Message: msg, Reason: string(st)}
}

// usable loads the request behind token inside tx and refuses links that
// cannot be used any more.
func (s *Service) usable(tx *store.Tx, token string) (*kyc.KYCRequest, error) {
	r, err := tx.FindKYCRequestByToken(hashToken(token))
	if err != nil {
		return nil, err
	}
	if st := linkState(r, tx.Now()); st != LinkOpen {
		return nil, errLink(st)
	}
	// A resubmission's link comes with its resubmission: the portal opens
	// its step only.
	if _, err := openResubmission(tx, r); err != nil {
		return nil, err
	}
	return r, nil
}

var applicantActor = Actor{Type: kyc.ActorApplicant}

// Open records that the applicant opened the link: the first time for
// the current link it sets PortalOpenedAt and adds the timeline entry
// TimelineOpened (no webhook: §6.2 has no event for it); later opens
// change nothing. The status stays link_generated.
func (s *Service) Open(tx *store.Tx, token string) (*kyc.KYCRequest, error) {
	r, err := s.usable(tx, token)
	if err != nil || r.PortalOpenedAt != nil {
		return r, err
	}
	now := tx.Now()
	r.PortalOpenedAt = &now
	if err := tx.SaveKYCRequest(r); err != nil {
		return nil, err
	}
	return r, s.record(tx, r, "", kyc.TimelineOpened, &r.Status, applicantActor, nil)
}

// AddCapture stores an image the applicant took; a retake replaces the
// earlier one of the same kind and side.
func (s *Service) AddCapture(tx *store.Tx, token string, c *kyc.Capture, data []byte) (*kyc.KYCRequest, error) {
	r, err := s.Open(tx, token)
	if err != nil {
		return nil, err
	}
	if err := gateCapture(tx, r, c, true); err != nil {
		return nil, err
	}
	c.RequestID = r.ID
	return r, tx.SaveCapture(c, data)
}

// Submit finishes the portal flow: the captures the workflow needs and
// the document details must be there; the request becomes submitted and
// processing is queued. Anything missing is one VALIDATION_ERROR naming
// each photo (document.front, document.back, selfie) and documentData.
func (s *Service) Submit(tx *store.Tx, token string) (*kyc.KYCRequest, error) {
	r, err := s.Open(tx, token)
	if err != nil {
		return nil, err
	}
	rs, err := openResubmission(tx, r)
	if err != nil {
		return nil, err
	}
	if rs != nil {
		return r, s.resubmit(tx, r, rs)
	}
	caps, err := tx.FindCaptures(r.ID, "")
	if err != nil {
		return nil, err
	}
	missing := missingCaptures(r.WorkflowType, caps)
	msg := "Some photos are missing."
	if r.DocumentData == nil {
		missing = append(missing, "documentData")
		msg = "Some photos or the document details are missing."
	}
	if len(missing) > 0 {
		details := make([]kyc.FieldError, len(missing))
		for i, m := range missing {
			details[i] = kyc.FieldError{Field: m, Message: "is required before submitting"}
		}
		return nil, &kyc.Error{Code: kyc.EValidation, Message: msg, Details: details}
	}
	if err := s.move(tx, r, kyc.ActionSubmit, "", applicantActor, nil); err != nil {
		return nil, err
	}
	// Billed once the applicant submits (the engine runs on it), in the
	// submission's transaction; the request id keys it, so it counts once.
	if err := tx.Meter(r.OrganizationID, r.Environment, kyc.UsageKYCSubmitted, r.ID); err != nil {
		return nil, err
	}
	return r, enqueueProcess(tx, r)
}

// missingCaptures names what the workflow still needs: document.front,
// document.back (for documents with a back), selfie (standard only).
func missingCaptures(wf kyc.WorkflowType, caps []kyc.Capture) []string {
	var front, back, selfie bool
	hasBack := false
	for _, c := range caps {
		switch {
		case c.Kind == "selfie":
			selfie = true
		case c.Side != nil && *c.Side == "front":
			front = true
			if c.DocumentType != nil {
				hasBack = kyc.DocumentTypes[*c.DocumentType]
			}
		case c.Side != nil && *c.Side == "back":
			back = true
		}
	}
	var missing []string
	if !front {
		missing = append(missing, "document.front")
	}
	if front && hasBack && !back {
		missing = append(missing, "document.back")
	}
	if wf == kyc.WorkflowStandard && !selfie {
		missing = append(missing, "selfie")
	}
	return missing
}

// SetDocumentData stores the document details the applicant confirmed
// (type, issuing country, number, expiry, and the MRZ lines if typed).
func (s *Service) SetDocumentData(tx *store.Tx, token string, d *kyc.DocumentData) (*kyc.KYCRequest, error) {
	if errs := d.Validate(); len(errs) > 0 {
		return nil, kyc.Invalid(errs...)
	}
	r, err := s.Open(tx, token)
	if err != nil {
		return nil, err
	}
	// The details were confirmed with the first attempt; a resubmission
	// link opens one photo, never them.
	if rs, err := openResubmission(tx, r); err != nil || rs != nil {
		if err == nil {
			err = errNotThisStep(rs, "documentData")
		}
		return nil, err
	}
	r.DocumentData = d
	return r, tx.SaveKYCRequest(r)
}
