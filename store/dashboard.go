package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"time"

	"kycd/kyc"
)

// DeskStats are the review dashboard's figures for one environment: the
// queue as it is now, and the final decisions made since a time.
type DeskStats struct {
	// QueueDepth is how many requests await review; OldestSubmitted is
	// when the one waiting longest was submitted (nil: none waits).
	QueueDepth      int
	OldestSubmitted *time.Time
	// Overdue is how many of them were submitted before the SLA's cutoff
	// (0 without an SLA).
	Overdue int
	// Days are the decisions per UTC day, oldest first, days without one
	// left out.
	Days []DeskDay
	// Totals over the window.
	Total DeskDay
	// MedianSeconds and P90Seconds are the time from submission to the
	// final decision (nearest rank), within 5%: the middle of its
	// DecisionTimeBucket; nil when nothing was decided.
	MedianSeconds, P90Seconds *int64
	// Timed is how many decisions those figures are taken over (those of
	// requests that were submitted).
	Timed int
	// Reviewers are the console users who made final decisions, most
	// decisions first.
	Reviewers []ReviewerCount
}

// DeskDay counts final decisions: by outcome, and by who made them (the
// engine, a person in the console, or an API client; a person deciding
// through the API counts as a person).
type DeskDay struct {
	Day                 string // YYYY-MM-DD (UTC); "" for a total
	Approved, Rejected  int
	Engine, Person, API int
	Decided             int
}

// AutomationRate is the share of decisions the engine made alone, 0-1
// (NaN when nothing was decided).
func (d DeskDay) AutomationRate() float64 {
	if d.Decided == 0 {
		return math.NaN()
	}
	return float64(d.Engine) / float64(d.Decided)
}

func (d *DeskDay) add(decision, by string, n int) {
	switch decision {
	case "approved":
		d.Approved += n
	case "rejected":
		d.Rejected += n
	}
	switch by {
	case "engine":
		d.Engine += n
	case "person":
		d.Person += n
	default:
		d.API += n
	}
	d.Decided += n
}

// ReviewerCount is one reviewer's final decisions in the window.
type ReviewerCount struct {
	UserID, Name       string
	Approved, Rejected int
}

// Decided is the reviewer's decisions of both outcomes.
func (r ReviewerCount) Decided() int { return r.Approved + r.Rejected }

// DeskStats reads the dashboard of one environment: the queue now (due
// before overdueBefore counts as overdue; zero: no SLA) and the final
// decisions made on or after since's UTC day. The queue is read from
// kyc_requests_org_env_status_submitted_idx alone (the rows are large),
// the decisions from their daily counts (kyc_decision_counts and
// kyc_decision_times): a few rows per day, however many requests.
func (s *Store) DeskStats(ctx context.Context, orgID string, env kyc.Environment, since, overdueBefore time.Time) (*DeskStats, error) {
	q := readPool{s.readStmts}
	st := &DeskStats{}
	cutoff := "" // nothing sorts before it: no SLA, nothing overdue
	if !overdueBefore.IsZero() {
		cutoff = kyc.FormatTime(overdueBefore)
	}
	var oldest sql.NullString
	if err := q.QueryRowContext(ctx, `SELECT count(*), min(submitted_at), count(CASE WHEN submitted_at < ? THEN 1 END) FROM kyc_requests
		WHERE organization_id = ? AND environment = ? AND status = 'awaiting_review'`, cutoff, orgID, string(env)).
		Scan(&st.QueueDepth, &oldest, &st.Overdue); err != nil {
		return nil, fmt.Errorf("dashboard queue: %w", err)
	}
	st.OldestSubmitted = parseTimePtr(oldest)

	from := since.UTC().Format(time.DateOnly)
	rows, err := q.QueryContext(ctx, `SELECT day, decision, decided_by, CAST(sum(decisions) AS BIGINT) FROM kyc_decision_counts
		WHERE organization_id = ? AND environment = ? AND day >= ? GROUP BY day, decision, decided_by ORDER BY day`, orgID, string(env), from)
	if err != nil {
		return nil, fmt.Errorf("dashboard decisions: %w", err)
	}
	for rows.Next() {
		var day, dec, by string
		var n int
		if err := rows.Scan(&day, &dec, &by, &n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("dashboard decisions: %w", err)
		}
		if len(st.Days) == 0 || st.Days[len(st.Days)-1].Day != day {
			st.Days = append(st.Days, DeskDay{Day: day})
		}
		st.Days[len(st.Days)-1].add(dec, by, n)
		st.Total.add(dec, by, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("dashboard decisions: %w", err)
	}

	rows, err = q.QueryContext(ctx, `SELECT seconds, CAST(sum(decisions) AS BIGINT) FROM kyc_decision_times
		WHERE organization_id = ? AND environment = ? AND day >= ? GROUP BY seconds ORDER BY seconds`, orgID, string(env), from)
	if err != nil {
		return nil, fmt.Errorf("dashboard decision times: %w", err)
	}
	var hist []timeBucket
	for rows.Next() {
		var b timeBucket
		if err := rows.Scan(&b.seconds, &b.n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("dashboard decision times: %w", err)
		}
		hist = append(hist, b)
		st.Timed += b.n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("dashboard decision times: %w", err)
	}
	st.MedianSeconds, st.P90Seconds = quantile(hist, st.Timed, 0.5), quantile(hist, st.Timed, 0.9)

	rows, err = q.QueryContext(ctx, `SELECT c.reviewer_id, coalesce(u.name, c.reviewer_id), c.decision, CAST(sum(c.decisions) AS BIGINT)
		FROM kyc_decision_counts c LEFT JOIN users u ON u.id = c.reviewer_id
		WHERE c.organization_id = ? AND c.environment = ? AND c.day >= ? AND c.reviewer_id <> ''
		GROUP BY c.reviewer_id, u.name, c.decision`, orgID, string(env), from)
	if err != nil {
		return nil, fmt.Errorf("dashboard reviewers: %w", err)
	}
	defer rows.Close()
	idx := map[string]int{}
	for rows.Next() {
		var id, name, dec string
		var n int
		if err := rows.Scan(&id, &name, &dec, &n); err != nil {
			return nil, fmt.Errorf("dashboard reviewers: %w", err)
		}
		i, ok := idx[id]
		if !ok {
			i = len(st.Reviewers)
			idx[id] = i
			st.Reviewers = append(st.Reviewers, ReviewerCount{UserID: id, Name: name})
		}
		switch dec {
		case "approved":
			st.Reviewers[i].Approved += n
		case "rejected":
			st.Reviewers[i].Rejected += n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("dashboard reviewers: %w", err)
	}
	sortReviewers(st.Reviewers)
	return st, nil
}

type timeBucket struct {
	seconds int64
	n       int
}

// quantile is the nearest-rank q-quantile of the histogram's n values:
// the middle of the smallest bucket with at least q of the values at or
// below it (nil for none). A bucket spans under 10% of its values, so the
// middle is within 5% of the exact figure.
func quantile(hist []timeBucket, n int, q float64) *int64 {
	if n == 0 {
		return nil
	}
	rank := max(1, int(math.Ceil(q*float64(n))))
	seen := 0
	for _, b := range hist {
		if seen += b.n; seen >= rank {
			v := b.seconds + bucketWidth(b.seconds)/2
			return &v
		}
	}
	return nil
}

// bucketWidth is the span of the DecisionTimeBucket starting at b.
func bucketWidth(b int64) int64 {
	p := int64(1)
	for b/p >= 100 && p < 10_000_000 {
		p *= 10
	}
	return p
}

// sortReviewers orders by decisions, most first, then by name.
func sortReviewers(rs []ReviewerCount) {
	slices.SortFunc(rs, func(a, b ReviewerCount) int {
		if c := cmp.Compare(b.Decided(), a.Decided()); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
}

// DecisionTotal is how many final decisions of one outcome one kind of
// decider has made in one environment, ever (for /metrics' counters).
type DecisionTotal struct {
	OrganizationID string
	Environment    kyc.Environment
	Decision       string // approved, rejected
	DecidedBy      string // engine, person, api
	ReviewerID     string // the console user, for decisions by a person in the console; else ""
	Count          int
}

// DecisionTotals counts every organization's final decisions by
// environment, outcome, decider and reviewer, from the daily counts.
func (s *Store) DecisionTotals(ctx context.Context) ([]DecisionTotal, error) {
	rows, err := s.reader.QueryContext(ctx, `SELECT organization_id, environment, decision, decided_by, reviewer_id, CAST(sum(decisions) AS BIGINT)
		FROM kyc_decision_counts GROUP BY organization_id, environment, decision, decided_by, reviewer_id`)
	if err != nil {
		return nil, fmt.Errorf("decision totals: %w", err)
	}
	defer rows.Close()
	var out []DecisionTotal
	for rows.Next() {
		var t DecisionTotal
		var env string
		if err := rows.Scan(&t.OrganizationID, &env, &t.Decision, &t.DecidedBy, &t.ReviewerID, &t.Count); err != nil {
			return nil, fmt.Errorf("decision totals: %w", err)
		}
		t.Environment = kyc.Environment(env)
		out = append(out, t)
	}
	return out, rows.Err()
}

// DecisionTimeBucket rounds seconds down to two significant figures: the
// buckets of kyc_decision_times (migration 0029 computes the same in SQL).
func DecisionTimeBucket(s int64) int64 {
	if s < 0 {
		return 0
	}
	p := bucketWidth(s)
	return s / p * p
}

// countDecision adds a request's final decision, made now, to the
// dashboard's counts: outcome (approved or rejected), who (engine,
// person, api), the console user for a person, and the time since
// submission.
func (tx *Tx) countDecision(requestID, decision, by, reviewerID string) error {
	var org, env string
	var submitted sql.NullString
	if err := tx.queryRow(`SELECT organization_id, environment, submitted_at FROM kyc_requests WHERE id = ?`, requestID).
		Scan(&org, &env, &submitted); err != nil {
		return fmt.Errorf("count decision: %w", err)
	}
	day := tx.now.UTC().Format(time.DateOnly)
	if _, err := tx.exec(`INSERT INTO kyc_decision_counts (organization_id, environment, day, decision, decided_by, reviewer_id, decisions)
		VALUES (?, ?, ?, ?, ?, ?, 1) ON CONFLICT (organization_id, environment, day, decision, decided_by, reviewer_id)
		DO UPDATE SET decisions = kyc_decision_counts.decisions + 1`, org, env, day, decision, by, reviewerID); err != nil {
		return fmt.Errorf("count decision: %w", err)
	}
	if !submitted.Valid {
		return nil
	}
	secs := int64(tx.now.Sub(parseTime(submitted.String)).Round(time.Second) / time.Second)
	if _, err := tx.exec(`INSERT INTO kyc_decision_times (organization_id, environment, day, seconds, decisions)
		VALUES (?, ?, ?, ?, 1) ON CONFLICT (organization_id, environment, day, seconds)
		DO UPDATE SET decisions = kyc_decision_times.decisions + 1`, org, env, day, DecisionTimeBucket(secs)); err != nil {
		return fmt.Errorf("count decision time: %w", err)
	}
	return nil
}
