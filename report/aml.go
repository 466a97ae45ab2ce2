package report

import (
	"context"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// AMLReport is what an AML check's PDF shows: the subject, the verdict,
// each list's result with provider and list versions, every match record
// with its explanation, and the monitoring history. Its JSON form is GET
// /v1/aml-checks/{id}.
type AMLReport struct {
	GeneratedAt  string
	Organization Organization
	// Check has its History loaded and each match's latest decision
	// (Review), with ReviewStatus and ConfirmedCount computed from them.
	Check *kyc.AMLCheck
	// Deciders name the actor of each decision, by actor id.
	Deciders map[string]*Person
}

// BuildAML gathers a check's report, scoped like every lookup.
func BuildAML(ctx context.Context, st *store.Store, orgID string, env kyc.Environment, id string, now time.Time) (*AMLReport, error) {
	c, err := st.FindAMLCheck(ctx, orgID, env, id)
	if err != nil {
		return nil, err
	}
	if c.History, err = st.FindScreenings(ctx, c.ID); err != nil {
		return nil, err
	}
	decisions, err := st.FindMatchDecisions(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	c.ReviewStatus, c.ConfirmedCount = kyc.ApplyMatchDecisions(c.Results, decisions)
	org, err := findOrg(ctx, st, orgID)
	if err != nil {
		return nil, err
	}
	rep := &AMLReport{GeneratedAt: kyc.FormatTime(now), Organization: *org, Check: c, Deciders: map[string]*Person{}}
	pp := newPeople(ctx, st, orgID)
	for _, d := range decisions {
		p, err := pp.find(d.ActorID)
		if err != nil {
			return nil, err
		}
		if p != nil {
			rep.Deciders[d.ActorID] = p
		}
	}
	return rep, nil
}
