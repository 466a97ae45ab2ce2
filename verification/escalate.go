package verification

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"kycd/kyc"
	"kycd/store"
)

// MaxEscalationReasonLen bounds the reason given when escalating.
const MaxEscalationReasonLen = 2000

// Escalate hands a request awaiting review to the senior queue, with the
// reason: it leaves the ordinary queue until a senior (kyc.PermSenior)
// de-escalates or decides it. Only a request awaiting review can be
// escalated, once; the escalating user's claim ends, so that a senior can
// take the case.
func (s *Service) Escalate(tx *store.Tx, orgID string, env kyc.Environment, id, reason string, by *kyc.User) (*kyc.KYCRequest, error) {
	reason = strings.TrimSpace(reason)
	switch {
	case reason == "":
		return nil, kyc.Invalid(kyc.FieldError{Field: "reason", Message: "is required: say what the senior should look at"})
	case utf8.RuneCountInString(reason) > MaxEscalationReasonLen:
		return nil, kyc.Invalid(kyc.FieldError{Field: "reason", Message: fmt.Sprintf("must be at most %d characters", MaxEscalationReasonLen)})
	}
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	if r.Status != kyc.KYCAwaitingReview {
		return nil, &kyc.Error{Code: kyc.EInvalidTransition, Message: fmt.Sprintf("Only a request awaiting review can be escalated; this one is %s.", r.Status)}
	}
	if e, err := tx.FindEscalation(r.ID); err != nil {
		return nil, err
	} else if e != nil {
		return nil, kyc.Errorf(kyc.EConflict, "This case is escalated already (by %s).", e.ByName)
	}
	if err := checkClaim(tx, r, Actor{Type: kyc.ActorReviewer, ID: &by.ID}); err != nil {
		return nil, err
	}
	if err := tx.DeleteClaim(r.ID); err != nil {
		return nil, err
	}
	if err := tx.SetEscalation(r.ID, by.ID, reason); err != nil {
		return nil, err
	}
	return r, s.audit(tx, r, by, "kyc.escalated", reason)
}

// Deescalate returns an escalated request to the ordinary queue; a senior
// only, with a note for the reviewers.
func (s *Service) Deescalate(tx *store.Tx, orgID string, env kyc.Environment, id, note string, by *kyc.User) (*kyc.KYCRequest, error) {
	if !by.Can(kyc.PermSenior) {
		return nil, &kyc.Error{Code: kyc.EForbidden, Reason: "role", Message: "Only a senior reviewer or an admin can return an escalated case."}
	}
	note = strings.TrimSpace(note)
	switch {
	case note == "":
		return nil, kyc.Invalid(kyc.FieldError{Field: "note", Message: "is required: say what the reviewers should do"})
	case utf8.RuneCountInString(note) > MaxEscalationReasonLen:
		return nil, kyc.Invalid(kyc.FieldError{Field: "note", Message: fmt.Sprintf("must be at most %d characters", MaxEscalationReasonLen)})
	}
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	if e, err := tx.FindEscalation(r.ID); err != nil {
		return nil, err
	} else if e == nil {
		return nil, kyc.Errorf(kyc.EConflict, "This case is not escalated.")
	}
	if err := tx.ClearEscalation(r.ID); err != nil {
		return nil, err
	}
	return r, s.audit(tx, r, by, "kyc.deescalated", note)
}

// checkEscalation refuses a back-office user's claim or decision on an
// escalated request unless they are a senior. API keys are the
// organization's own systems, outside the back office's roles: their
// decisions are not held by an escalation (it is routing between people).
func checkEscalation(tx *store.Tx, r *kyc.KYCRequest, actor Actor) error {
	if actor.Type != kyc.ActorReviewer || actor.ID == nil {
		return nil
	}
	e, err := tx.FindEscalation(r.ID)
	if err != nil || e == nil {
		return err
	}
	u, err := tx.FindUser(r.OrganizationID, *actor.ID)
	if err != nil {
		return err
	}
	if !u.Can(kyc.PermSenior) {
		return &kyc.Error{Code: kyc.EForbidden, Reason: "role",
			Message: fmt.Sprintf("This case is escalated to a senior reviewer (by %s: %s); only a senior reviewer or an admin can work it.", e.ByName, e.Reason)}
	}
	return nil
}
