package kyc

import (
	"fmt"
	"time"
)

// UsageMetric is one thing a provider bills for. Only live events are
// metered (spec §1.5: sandbox does no billing).
type UsageMetric string

const (
	// UsageKYCSubmitted: a live KYC request the applicant submitted (the
	// engine ran on it). Requests created but never submitted are free.
	UsageKYCSubmitted UsageMetric = "kyc_requests_submitted"
	// UsageAMLChecks: a live AML check created (POST /v1/aml-checks).
	UsageAMLChecks UsageMetric = "aml_checks_created"
	// UsageMonitoringRescreens: a daily re-screen of a monitored live check.
	UsageMonitoringRescreens UsageMetric = "monitoring_rescreens"
	// UsageManualRescreens: a re-screen asked for through
	// POST /v1/aml-checks/{id}/rescreen on a live check.
	UsageManualRescreens UsageMetric = "manual_rescreens"
)

// UsageMetrics lists the metrics in the order reports show them.
var UsageMetrics = []UsageMetric{UsageKYCSubmitted, UsageAMLChecks, UsageMonitoringRescreens, UsageManualRescreens}

// UsageCounts is one count per metric.
type UsageCounts map[UsageMetric]int

// UsageDay is one UTC day's counts.
type UsageDay struct {
	Date   string // YYYY-MM-DD
	Counts UsageCounts
}

// Usage is an organization's metered usage over one UTC calendar month:
// the totals and every day of the month (days without events have zero
// counts, so a chart has no gaps).
type Usage struct {
	OrganizationID string
	Month          string // YYYY-MM
	Totals         UsageCounts
	Days           []UsageDay
}

// ParseMonth reads YYYY-MM as the first instant of that UTC month.
func ParseMonth(s string) (time.Time, error) {
	t, err := time.Parse("2006-01", s)
	if err != nil || t.Year() < 2000 || t.Year() > 9999 {
		return time.Time{}, fmt.Errorf("must be a month as YYYY-MM")
	}
	return t, nil
}

// MonthDays is every UTC date of the month starting at first.
func MonthDays(first time.Time) []string {
	var days []string
	for d := first; d.Month() == first.Month(); d = d.AddDate(0, 0, 1) {
		days = append(days, d.Format("2006-01-02"))
	}
	return days
}
