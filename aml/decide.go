package aml

import (
	"context"
	"fmt"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

// Actor is who decides on a match: an API key or a back-office user.
type Actor struct {
	Type kyc.ActorType
	ID   string
}

// MaxNoteLen bounds a decision's note.
const MaxNoteLen = 2000

// DecideMatch records a person's decision on one match of a check: the
// listed entity is not the screened person (false_positive) or it is
// (confirmed). The decision holds while the list says the same about the
// entity; the check is resolved once every match has such a decision.
// The decision is written to the audit log with its actor. A match id the
// check's current results do not have is NOT_FOUND.
func (s *Service) DecideMatch(tx *store.Tx, orgID string, env kyc.Environment, checkID, matchID string, d kyc.MatchDecision,
	note string, actor Actor) (*kyc.AMLCheck, error) {
	c, err := tx.FindAMLCheck(orgID, env, checkID)
	if err != nil {
		return nil, err
	}
	_, m := kyc.FindMatch(c.Results, matchID)
	if m == nil {
		return nil, kyc.Errorf(kyc.ENotFound, "AML check %s has no match %s in its latest screening.", c.ID, matchID)
	}
	before := c.ReviewStatus
	rec := &kyc.MatchDecisionRecord{CheckID: c.ID, MatchID: m.ID, MatchKey: m.Key(), Decision: d, Note: strings.TrimSpace(note),
		Entity: m.Entity(), ActorType: actor.Type, ActorID: actor.ID}
	if err := tx.InsertMatchDecision(rec); err != nil {
		return nil, err
	}
	if err := carryDecision(tx, c, m, rec, actor); err != nil {
		return nil, err
	}
	all, err := tx.FindMatchDecisions(c.ID)
	if err != nil {
		return nil, err
	}
	c.ReviewStatus, c.ConfirmedCount = kyc.ApplyMatchDecisions(c.Results, all)
	if err := tx.SetAMLReview(c); err != nil {
		return nil, err
	}
	from, to := string(before), string(c.ReviewStatus)
	reason := fmt.Sprintf("%s on %s (%s, %s): %s", d, m.ID, m.Key(), m.MatchedName, rec.Note)
	actorID := actor.ID
	if err := tx.AppendAudit(store.AuditEntry{OrganizationID: c.OrganizationID, Environment: c.Environment, ResourceType: "aml_check",
		ResourceID: c.ID, Action: "aml.match.decided", ActorType: actor.Type, ActorID: &actorID, FromStatus: &from, ToStatus: &to,
		Reason: &reason}); err != nil {
		return nil, err
	}
	if d == kyc.MatchConfirmed {
		// A confirmed match needs an investigation: it opens an AML case
		// (or joins the check's open one).
		if err := openCase(tx, c, m, actor); err != nil {
			return nil, err
		}
	}
	if c.History, err = tx.FindScreenings(c.ID); err != nil {
		return nil, err
	}
	return c, nil
}

// Load returns a check with its monitoring history and, on each match,
// the decision that applies to it.
func (s *Service) Load(ctx context.Context, orgID string, env kyc.Environment, id string) (*kyc.AMLCheck, error) {
	c, err := s.store.FindAMLCheck(ctx, orgID, env, id)
	if err != nil {
		return nil, err
	}
	if c.History, err = s.store.FindScreenings(ctx, c.ID); err != nil {
		return nil, err
	}
	all, err := s.store.FindMatchDecisions(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	_, c.ConfirmedCount = kyc.ApplyMatchDecisions(c.Results, all)
	return c, nil
}
