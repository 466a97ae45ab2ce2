package server

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"kycd/kyc"
)

// deskCollector serves the review dashboard's figures for every
// organization and environment: the queue (depth, oldest, overdue), the
// final decisions (counters by outcome, by who decided and per reviewer)
// and, over the dashboard's default window, the automation rate and the
// median and p90 time from submission to decision. The figures are read
// at most once per deskCacheTTL (a usual scrape interval is 15-60 s);
// scrapes in between get the last reading, so a tight scrape loop cannot
// load the database.
type deskCollector struct {
	s     *Server
	mu    sync.Mutex
	at    time.Time
	cache []prometheus.Metric
}

// deskCacheTTL is how long a reading of the desk's figures is served.
const deskCacheTTL = 30 * time.Second

// deskWindow is the window of the rate and time gauges: the dashboard's
// default (30 days).
const deskWindow = 30 * 24 * time.Hour

var (
	deskQueueDesc = prometheus.NewDesc("kycd_review_queue_depth",
		"KYC requests awaiting review now.", []string{"organization", "environment"}, nil)
	deskOldestDesc = prometheus.NewDesc("kycd_review_queue_oldest_age_seconds",
		"How long the request waiting longest for review has waited since submission (0 when none waits).", []string{"organization", "environment"}, nil)
	deskOverdueDesc = prometheus.NewDesc("kycd_review_overdue",
		"Requests awaiting review past the organization's due time for the environment (0 without one).", []string{"organization", "environment"}, nil)
	deskDecisionsDesc = prometheus.NewDesc("kycd_kyc_decisions_total",
		"Final KYC decisions by outcome (approved, rejected) and by who decided (engine: the automated checks alone; person; api). Per day: increase(...[1d]).",
		[]string{"organization", "environment", "decision", "decided_by"}, nil)
	deskReviewerDesc = prometheus.NewDesc("kycd_kyc_reviewer_decisions_total",
		"Final KYC decisions made in the back office, per reviewer (user id).", []string{"organization", "environment", "reviewer"}, nil)
	deskAutomationDesc = prometheus.NewDesc("kycd_kyc_automation_ratio",
		"Share of the last 30 days' final decisions made by the automated checks alone (decided by engine / decided); absent when none was decided.",
		[]string{"organization", "environment"}, nil)
	deskTimeDesc = prometheus.NewDesc("kycd_kyc_decision_time_seconds",
		"Time from submission to final decision over the last 30 days, by quantile (0.5, 0.9), within 5%; absent when none was decided.",
		[]string{"organization", "environment", "quantile"}, nil)
)

func (c *deskCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{deskQueueDesc, deskOldestDesc, deskOverdueDesc, deskDecisionsDesc, deskReviewerDesc,
		deskAutomationDesc, deskTimeDesc} {
		ch <- d
	}
}

func (c *deskCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.s.now()
	if c.cache == nil || now.Sub(c.at) >= deskCacheTTL || now.Before(c.at) {
		ctx, cancel := context.WithTimeout(context.Background(), collectTimeout)
		ms, err := c.read(ctx, now)
		cancel()
		if err != nil {
			// Served as a scrape error for these metrics only; the next
			// scrape tries again.
			ch <- prometheus.NewInvalidMetric(deskQueueDesc, err)
			return
		}
		c.cache, c.at = ms, now
	}
	for _, m := range c.cache {
		ch <- m
	}
}

func (c *deskCollector) read(ctx context.Context, now time.Time) ([]prometheus.Metric, error) {
	st := c.s.store
	var out []prometheus.Metric
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		out = append(out, prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...))
	}
	orgs, err := st.FindOrganizations(ctx)
	if err != nil {
		return nil, err
	}
	since := now.Add(-deskWindow)
	for _, o := range orgs {
		set, err := st.FindOrgSettings(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		for _, e := range []kyc.Environment{kyc.Live, kyc.Sandbox} {
			var overdueBefore time.Time
			if sla := set.SLA(e); sla > 0 {
				overdueBefore = now.Add(-sla)
			}
			ds, err := st.DeskStats(ctx, o.ID, e, since, overdueBefore)
			if err != nil {
				return nil, err
			}
			l := []string{o.ID, string(e)}
			gauge(deskQueueDesc, float64(ds.QueueDepth), l...)
			oldest := 0.0
			if ds.OldestSubmitted != nil {
				oldest = max(0, now.Sub(*ds.OldestSubmitted).Seconds())
			}
			gauge(deskOldestDesc, oldest, l...)
			gauge(deskOverdueDesc, float64(ds.Overdue), l...)
			if r := ds.Total.AutomationRate(); !math.IsNaN(r) {
				gauge(deskAutomationDesc, r, l...)
			}
			if ds.MedianSeconds != nil {
				gauge(deskTimeDesc, float64(*ds.MedianSeconds), o.ID, string(e), "0.5")
			}
			if ds.P90Seconds != nil {
				gauge(deskTimeDesc, float64(*ds.P90Seconds), o.ID, string(e), "0.9")
			}
		}
	}
	totals, err := st.DecisionTotals(ctx)
	if err != nil {
		return nil, err
	}
	decisions := map[[4]string]float64{}
	reviewers := map[[3]string]float64{}
	for _, t := range totals {
		decisions[[4]string{t.OrganizationID, string(t.Environment), t.Decision, t.DecidedBy}] += float64(t.Count)
		if t.ReviewerID != "" {
			reviewers[[3]string{t.OrganizationID, string(t.Environment), t.ReviewerID}] += float64(t.Count)
		}
	}
	for k, v := range decisions {
		out = append(out, prometheus.MustNewConstMetric(deskDecisionsDesc, prometheus.CounterValue, v, k[:]...))
	}
	for k, v := range reviewers {
		out = append(out, prometheus.MustNewConstMetric(deskReviewerDesc, prometheus.CounterValue, v, k[:]...))
	}
	return out, nil
}
