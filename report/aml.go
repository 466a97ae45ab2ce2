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
	Check        *kyc.AMLCheck // with History loaded
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
	org, err := findOrg(ctx, st, orgID)
	if err != nil {
		return nil, err
	}
	return &AMLReport{GeneratedAt: kyc.FormatTime(now), Organization: *org, Check: c}, nil
}
