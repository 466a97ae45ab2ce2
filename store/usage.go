package store

import (
	"context"
	"fmt"
	"time"

	"kycd/kyc"
)

// Meter records one billable event of a live resource (spec §1.5: sandbox
// does no billing, so a sandbox event writes nothing). It runs inside the
// event's own transaction: the count and the event commit or roll back
// together, and metering the same resource twice counts it once.
func (tx *Tx) Meter(orgID string, env kyc.Environment, metric kyc.UsageMetric, resourceID string) error {
	if env != kyc.Live {
		return nil
	}
	_, err := tx.exec(`INSERT INTO usage_events (metric, resource_id, organization_id, occurred_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (metric, resource_id) DO NOTHING`, string(metric), resourceID, orgID, kyc.FormatTime(tx.now))
	if err != nil {
		return fmt.Errorf("meter %s: %w", metric, err)
	}
	return nil
}

// Usage is the organization's metered usage in the UTC month starting at
// first, per day.
func (s *Store) Usage(ctx context.Context, orgID string, first time.Time) (*kyc.Usage, error) {
	first = time.Date(first.Year(), first.Month(), 1, 0, 0, 0, 0, time.UTC)
	next := first.AddDate(0, 1, 0)
	u := &kyc.Usage{OrganizationID: orgID, Month: first.Format("2006-01"), Totals: kyc.UsageCounts{}}
	for _, m := range kyc.UsageMetrics {
		u.Totals[m] = 0
	}
	byDay := map[string]kyc.UsageCounts{}
	for _, d := range kyc.MonthDays(first) {
		c := kyc.UsageCounts{}
		for _, m := range kyc.UsageMetrics {
			c[m] = 0
		}
		byDay[d] = c
		u.Days = append(u.Days, kyc.UsageDay{Date: d, Counts: c})
	}
	// occurred_at is RFC 3339 in UTC, so its first ten characters are the
	// UTC date and the range compares as text on the index.
	rows, err := s.reader.QueryContext(ctx, `SELECT substr(occurred_at, 1, 10), metric, count(*) FROM usage_events
		WHERE organization_id = ? AND occurred_at >= ? AND occurred_at < ?
		GROUP BY 1, 2`, orgID, kyc.FormatTime(first), kyc.FormatTime(next))
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var day, metric string
		var n int
		if err := rows.Scan(&day, &metric, &n); err != nil {
			return nil, fmt.Errorf("usage: %w", err)
		}
		c, ok := byDay[day]
		if !ok {
			return nil, fmt.Errorf("usage: day %q outside %s", day, u.Month)
		}
		c[kyc.UsageMetric(metric)] += n
		u.Totals[kyc.UsageMetric(metric)] += n
	}
	return u, rows.Err()
}
