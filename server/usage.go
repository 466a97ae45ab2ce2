package server

import (
	"net/http"

	"kycd/kyc"
)

// usageCountsJSON is one set of counts in the API.
type usageCountsJSON struct {
	KYCRequestsSubmitted int `json:"kycRequestsSubmitted"`
	AMLChecksCreated     int `json:"amlChecksCreated"`
	MonitoringRescreens  int `json:"monitoringRescreens"`
	ManualRescreens      int `json:"manualRescreens"`
}

type usageDayJSON struct {
	Date string `json:"date"`
	usageCountsJSON
}

type usageJSON struct {
	Month       string          `json:"month"`
	Environment kyc.Environment `json:"environment"`
	// Billable: the counts are billed (live). A sandbox key sees its own
	// environment, which does no billing: zeros, never live's counts.
	Billable bool            `json:"billable"`
	Totals   usageCountsJSON `json:"totals"`
	Days     []usageDayJSON  `json:"days"`
}

func toUsageCounts(c kyc.UsageCounts, billable bool) usageCountsJSON {
	if !billable {
		return usageCountsJSON{}
	}
	return usageCountsJSON{KYCRequestsSubmitted: c[kyc.UsageKYCSubmitted], AMLChecksCreated: c[kyc.UsageAMLChecks],
		MonitoringRescreens: c[kyc.UsageMonitoringRescreens], ManualRescreens: c[kyc.UsageManualRescreens]}
}

// handleUsage handles "GET /v1/usage": the organization's metered usage in
// one UTC month (default: the current one), with every day of it.
func (s *Server) handleUsage(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	month := q.str("month")
	if month == "" {
		month = s.now().UTC().Format("2006-01")
	}
	first, err := kyc.ParseMonth(month)
	if err != nil {
		q.errs = append(q.errs, kyc.FieldError{Field: "month", Message: err.Error()})
	}
	if err := q.check(); err != nil {
		return err
	}
	key := keyFrom(r.Context())
	u, err := s.store.Usage(r.Context(), key.OrganizationID, first)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, usageResponse(u, key.Environment))
	return nil
}

func usageResponse(u *kyc.Usage, env kyc.Environment) usageJSON {
	billable := env == kyc.Live
	j := usageJSON{Month: u.Month, Environment: env, Billable: billable, Totals: toUsageCounts(u.Totals, billable),
		Days: make([]usageDayJSON, len(u.Days))}
	for i, d := range u.Days {
		j.Days[i] = usageDayJSON{Date: d.Date, usageCountsJSON: toUsageCounts(d.Counts, billable)}
	}
	return j
}
