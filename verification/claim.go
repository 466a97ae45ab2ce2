package verification

import (
	"fmt"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// ClaimTTL is how long a reviewer's claim on a case lasts; claiming again
// extends it.
const ClaimTTL = 30 * time.Minute

// Claim gives a request awaiting review to a back-office user, so that two
// people do not work on it at once. A live claim by someone else is
// CONFLICT naming them; claiming one's own case again extends the claim.
// A request not awaiting review is INVALID_TRANSITION.
func (s *Service) Claim(tx *store.Tx, orgID string, env kyc.Environment, id string, user *kyc.User) (*store.Claim, error) {
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return nil, err
	}
	if r.Status != kyc.KYCAwaitingReview {
		return nil, &kyc.Error{Code: kyc.EInvalidTransition, Message: fmt.Sprintf("Only a request awaiting review can be claimed; this one is %s.", r.Status)}
	}
	if err := checkEscalation(tx, r, Actor{Type: kyc.ActorReviewer, ID: &user.ID}); err != nil {
		return nil, err
	}
	c, err := tx.FindClaim(r.ID)
	if err != nil {
		return nil, err
	}
	if c != nil && c.UserID != user.ID {
		return nil, kyc.Errorf(kyc.EConflict, "%s is working on this case (claimed until %s UTC).", c.UserName, c.ExpiresAt.UTC().Format("15:04"))
	}
	c, err = tx.SetClaim(r.ID, user.ID, ClaimTTL)
	if err != nil {
		return nil, err
	}
	c.UserName = user.Name
	return c, s.audit(tx, r, user, "kyc.claimed", "until "+kyc.FormatTime(c.ExpiresAt))
}

// Release lets go of a claim: one's own, or anyone's for an admin.
func (s *Service) Release(tx *store.Tx, orgID string, env kyc.Environment, id string, user *kyc.User) error {
	r, err := tx.FindKYCRequest(orgID, env, id)
	if err != nil {
		return err
	}
	c, err := tx.FindClaim(r.ID)
	if err != nil || c == nil {
		return err
	}
	if c.UserID != user.ID && user.Role != kyc.RoleAdmin {
		return kyc.Errorf(kyc.EConflict, "%s holds this claim; only they or an admin can release it.", c.UserName)
	}
	if err := tx.DeleteClaim(r.ID); err != nil {
		return err
	}
	return s.audit(tx, r, user, "kyc.claim_released", "claim of "+c.UserName)
}

// checkClaim refuses a decision on a request someone else has claimed.
func checkClaim(tx *store.Tx, r *kyc.KYCRequest, actor Actor) error {
	c, err := tx.FindClaim(r.ID)
	if err != nil || c == nil {
		return err
	}
	if actor.ID != nil && *actor.ID == c.UserID {
		return nil
	}
	return kyc.Errorf(kyc.EConflict, "%s is working on this case (claimed until %s UTC); wait for them or ask them to release it.",
		c.UserName, c.ExpiresAt.UTC().Format("15:04"))
}

// audit writes a back-office action on a request to the audit log (in
// both environments: it records who did what, not a decision).
func (s *Service) audit(tx *store.Tx, r *kyc.KYCRequest, user *kyc.User, action, reason string) error {
	id := user.ID
	st := string(r.Status)
	return tx.AppendAudit(store.AuditEntry{OrganizationID: r.OrganizationID, Environment: r.Environment, ResourceType: "kyc_request",
		ResourceID: r.ID, Action: action, ActorType: kyc.ActorUser, ActorID: &id, FromStatus: &st, ToStatus: &st, Reason: &reason})
}

// sandboxReviewAudit writes a sandbox review to the audit log: live
// transitions are audited with every other live move (record), and a
// person's decision is audited in sandbox too, so that every back-office
// action is in the chain with who made it.
func sandboxReviewAudit(tx *store.Tx, r *kyc.KYCRequest, actor Actor, action, reason string) error {
	if r.Environment == kyc.Live {
		return nil
	}
	st := string(r.Status)
	return tx.AppendAudit(store.AuditEntry{OrganizationID: r.OrganizationID, Environment: r.Environment, ResourceType: "kyc_request",
		ResourceID: r.ID, Action: action, ActorType: actor.Type, ActorID: actor.ID, ToStatus: &st, Reason: &reason})
}
