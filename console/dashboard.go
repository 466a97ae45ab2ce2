package console

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// dashboardWindows are the periods the dashboard counts decisions over,
// in days; the first is the default.
var dashboardWindows = []int{30, 7, 90}

type dashboardPage struct {
	Stats   *store.DeskStats
	Days    int   // the window
	Windows []int // to choose from
	Since   time.Time
	Now     time.Time
	SLA     time.Duration
	// AllReviewers: the role sees every reviewer's counts (admins); the
	// others see their own.
	AllReviewers bool
	Reviewers    []store.ReviewerCount
	MaxDay       int // the busiest day's decisions, for the bars
}

// handleDashboard handles "GET /console/{env}/dashboard": the queue as it
// is (depth, oldest waiting, overdue) and the decisions of the last days
// (per day by outcome and by who decided, the automation rate, the time
// from submission to decision, per reviewer). Counts only, no personal
// data, so every role reads it; how many cases each colleague decided is
// for admins, and every other user sees their own line.
func (c *console) handleDashboard(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	org, e := sess.User.OrganizationID, env(r)
	days := dashboardWindows[0]
	if v := r.URL.Query().Get("days"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || !slices.Contains(dashboardWindows, n) {
			return kyc.Invalid(kyc.FieldError{Field: "days", Message: "must be 7, 30 or 90"})
		}
		days = n
	}
	set, err := c.store.FindOrgSettings(r.Context(), org)
	if err != nil {
		return err
	}
	now := c.now()
	sla := set.SLA(e)
	var overdueBefore time.Time
	if sla > 0 {
		overdueBefore = now.Add(-sla)
	}
	// The window is whole UTC days: today and the days-1 before it.
	since := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -(days - 1))
	st, err := c.store.DeskStats(r.Context(), org, e, since, overdueBefore)
	if err != nil {
		return err
	}
	d := dashboardPage{Stats: st, Days: days, Windows: dashboardWindows, Since: since, Now: now, SLA: sla,
		AllReviewers: sess.User.Can(kyc.PermAdmin)}
	for _, rc := range st.Reviewers {
		if d.AllReviewers || rc.UserID == sess.User.ID {
			d.Reviewers = append(d.Reviewers, rc)
		}
	}
	for _, day := range st.Days {
		d.MaxDay = max(d.MaxDay, day.Decided)
	}
	return c.render(w, r, http.StatusOK, "dashboard.html", &page{Title: "Dashboard", Section: "dashboard", Data: d})
}

// durationText says a number of seconds the way a reviewer reads a wait:
// "40 minutes", "26 hours", "3 days".
func durationText(secs *int64) string {
	if secs == nil {
		return "—"
	}
	// Rounded to the nearest unit: the figure is itself within 5%.
	d := time.Duration(*secs) * time.Second
	switch {
	case d < time.Minute:
		return plural(int(d.Seconds()), "second")
	case d < time.Hour-30*time.Second:
		return plural(int(math.Round(d.Minutes())), "minute")
	case d < 47*time.Hour+30*time.Minute:
		return plural(int(math.Round(d.Hours())), "hour")
	}
	return plural(int(math.Round(d.Hours()/24)), "day")
}

// percent is a share as a whole percentage ("—" for none).
func percent(f float64) string {
	if math.IsNaN(f) {
		return "—"
	}
	return strconv.Itoa(int(math.Round(f*100))) + "%"
}

// barWidth is n's share of the largest, 0-100 (an SVG length: the
// console's CSP allows no inline style).
func barWidth(n, most int) string {
	if most <= 0 {
		return "0"
	}
	return strconv.FormatFloat(float64(n)*100/float64(most), 'f', 1, 64)
}
