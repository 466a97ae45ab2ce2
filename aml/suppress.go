package aml

import (
	"fmt"

	"kycd/kyc"
	"kycd/store"
)

// subjectKey is the check's kyc.SubjectKey.
func subjectKey(c *kyc.AMLCheck) string {
	return kyc.SubjectKey(c.FirstName, c.LastName, c.DOB, c.Country)
}

// applySuppressions marks the matches of c's results that an earlier
// false_positive decision on the same subject covers, and sets c's review
// status from them and c's own decisions.
func applySuppressions(tx *store.Tx, c *kyc.AMLCheck, own []kyc.MatchDecisionRecord) error {
	sups, err := tx.ActiveSuppressions(c.OrganizationID, c.Environment, subjectKey(c))
	if err != nil {
		return err
	}
	kyc.ApplySuppressions(c.Results, sups, own)
	c.ReviewStatus, c.ConfirmedCount = kyc.ApplyMatchDecisions(c.Results, own)
	return nil
}

// carryDecision makes a decision on a match hold for the subject's later
// screenings: false_positive replaces any active suppression of the match
// with one of its own; confirmed lifts it, since a reviewer now says the
// entity is the person. Both are audited.
func carryDecision(tx *store.Tx, c *kyc.AMLCheck, m *kyc.MatchRecord, rec *kyc.MatchDecisionRecord, actor Actor) error {
	key := subjectKey(c)
	active, err := tx.ActiveSuppressions(c.OrganizationID, c.Environment, key)
	if err != nil {
		return err
	}
	for _, s := range active {
		if s.MatchID != m.ID {
			continue
		}
		if err := liftOne(tx, &s, actor, "replaced by decision "+rec.ID); err != nil {
			return err
		}
	}
	if rec.Decision != kyc.MatchFalsePositive {
		return nil
	}
	s := &kyc.Suppression{OrganizationID: c.OrganizationID, Environment: c.Environment, SubjectKey: key, MatchID: m.ID,
		MatchKey: m.Key(), DecisionID: rec.ID, CheckID: c.ID, Fingerprint: rec.Entity.Fingerprint()}
	if err := tx.InsertSuppression(s); err != nil {
		return err
	}
	reason := fmt.Sprintf("false positive %s (%s) suppressed for later screenings of the subject, by decision %s", m.ID, m.Key(), rec.ID)
	actorID := actor.ID
	return tx.AppendAudit(store.AuditEntry{OrganizationID: c.OrganizationID, Environment: c.Environment, ResourceType: "aml_suppression",
		ResourceID: s.ID, Action: "aml.suppression.created", ActorType: actor.Type, ActorID: &actorID, Reason: &reason})
}

func liftOne(tx *store.Tx, s *kyc.Suppression, actor Actor, note string) error {
	ok, err := tx.LiftSuppression(s.ID, actor.Type, actor.ID, note)
	if err != nil || !ok {
		return err
	}
	reason := fmt.Sprintf("suppression of %s (%s) lifted: %s", s.MatchID, s.MatchKey, note)
	actorID := actor.ID
	return tx.AppendAudit(store.AuditEntry{OrganizationID: s.OrganizationID, Environment: s.Environment, ResourceType: "aml_suppression",
		ResourceID: s.ID, Action: "aml.suppression.lifted", ActorType: actor.Type, ActorID: &actorID, Reason: &reason})
}

// LiftSuppression ends a suppression: later screenings of the subject show
// the match for review again (a check screened before keeps what its
// screening recorded until it is screened again; POST …/rescreen does that
// at once). Lifting one that has ended is a CONFLICT naming when.
func (s *Service) LiftSuppression(tx *store.Tx, orgID string, env kyc.Environment, id, note string, actor Actor) (*kyc.Suppression, error) {
	sup, err := tx.FindSuppression(orgID, env, id)
	if err != nil {
		return nil, err
	}
	if sup.LiftedAt != nil {
		return nil, kyc.Errorf(kyc.EConflict, "Suppression %s was lifted at %s.", sup.ID, kyc.FormatTime(*sup.LiftedAt))
	}
	if err := liftOne(tx, sup, actor, note); err != nil {
		return nil, err
	}
	return tx.FindSuppression(orgID, env, id)
}
