package verification

import (
	"fmt"

	"kycd/kyc"
	"kycd/store"
)

// Assign makes a request assigneeID's case ("" unassigns): whose case it
// is, which lasts, unlike a claim, the short lock taken while working on
// it. The assignee must be an active user of the organization who may
// decide. Assigning a request to whom it already is changes nothing and
// writes no audit entry. A decided request is INVALID_TRANSITION: there is
// nothing left to work on.
func (s *Service) Assign(tx *store.Tx, orgID string, env kyc.Environment, id, assigneeID string, by *kyc.User) (*kyc.User, error) {
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	switch r.Status {
	case kyc.KYCApproved, kyc.KYCRejected, kyc.KYCExpired, kyc.KYCCancelled, kyc.KYCFailed:
		return nil, &kyc.Error{Code: kyc.EInvalidTransition, Message: fmt.Sprintf("This request is %s; only open requests can be assigned.", r.Status)}
	}
	var to *kyc.User
	if assigneeID != "" {
		to, err = tx.FindUser(orgID, assigneeID)
		if kyc.ErrorCode(err) == kyc.ENotFound {
			return nil, kyc.Invalid(kyc.FieldError{Field: "assignee", Message: "is not a user of this organization"})
		}
		if err != nil {
			return nil, err
		}
		if to.DisabledAt != nil || !to.Can(kyc.PermDecide) {
			return nil, kyc.Invalid(kyc.FieldError{Field: "assignee", Message: to.Name + " cannot decide cases (disabled, or a role without decisions)"})
		}
	}
	cur, err := tx.FindAssigneeID(r.ID)
	if err != nil {
		return nil, err
	}
	if cur == assigneeID {
		return to, nil
	}
	if err := tx.SetAssignee(r.ID, assigneeID); err != nil {
		return nil, err
	}
	action, reason := "kyc.assigned", ""
	switch {
	case to == nil:
		action, reason = "kyc.unassigned", "was "+cur
	case cur == "":
		reason = "to " + to.ID
	default:
		action, reason = "kyc.reassigned", "from "+cur+" to "+to.ID
	}
	return to, s.audit(tx, r, by, action, reason)
}

// assignInTurn assigns a request that has just come to review to the
// next reviewer who is in, when the organization assigns in turn
// (round-robin) and nobody has the case yet. With nobody in, the case
// stays unassigned in the queue. The assignment is not a claim: the
// reviewer still claims the case to work on it, and anyone may.
func (s *Service) assignInTurn(tx *store.Tx, r *kyc.KYCRequest) error {
	set, err := tx.FindOrgSettings(r.OrganizationID)
	if err != nil || !set.RoundRobin {
		return err
	}
	cur, err := tx.FindAssigneeID(r.ID)
	if err != nil || cur != "" {
		return err
	}
	next, err := tx.NextRoundRobin(r.OrganizationID)
	if err != nil || next == "" {
		return err
	}
	if err := tx.SetAssignee(r.ID, next); err != nil {
		return err
	}
	st, reason := string(r.Status), "to "+next+" (round-robin)"
	return tx.AppendAudit(store.AuditEntry{OrganizationID: r.OrganizationID, Environment: r.Environment, ResourceType: "kyc_request",
		ResourceID: r.ID, Action: "kyc.assigned", ActorType: kyc.ActorSystem, FromStatus: &st, ToStatus: &st, Reason: &reason})
}
