package console

import (
	"fmt"
	"net/http"
	"strconv"

	"kycd/kyc"
)

// usageLabels name the metrics on the page, in kyc.UsageMetrics order.
var usageLabels = map[kyc.UsageMetric]string{
	kyc.UsageKYCSubmitted:        "KYC requests submitted",
	kyc.UsageAMLChecks:           "AML checks created",
	kyc.UsageMonitoringRescreens: "Monitoring re-screens",
	kyc.UsageManualRescreens:     "Manual re-screens",
}

type usageMetric struct {
	Key   string // CSS class and id
	Label string
	Total int
}

type usageBar struct {
	X, Y, W, H float64
	Key, Title string
}

type usageDayRow struct {
	Date   string
	Counts []int
	Total  int
}

type usagePage struct {
	Month, Prev, Next string
	Metrics           []usageMetric
	Days              []usageDayRow // days with any event
	Bars              []usageBar
	Ticks             []usageTick
	Labels            []usageTick // day numbers under the axis
	Max               int
	Summary           string // the chart's text alternative
}

type usageTick struct {
	Y, X  float64
	Label string
}

// The chart's drawing area (SVG user units; the SVG scales to its box).
const (
	chartW, chartH        = 720.0, 240.0
	chartLeft, chartBelow = 40.0, 24.0
)

// handleUsage handles "GET /console/usage?month=YYYY-MM": the month's
// billable (live) counts and a daily chart drawn here as SVG, so the page
// needs no script and works under the CSP.
func (c *console) handleUsage(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	month := r.URL.Query().Get("month")
	if month == "" {
		month = c.now().UTC().Format("2006-01")
	}
	first, err := kyc.ParseMonth(month)
	if err != nil {
		return kyc.Invalid(kyc.FieldError{Field: "month", Message: err.Error()})
	}
	u, err := c.store.Usage(r.Context(), sess.User.OrganizationID, first)
	if err != nil {
		return err
	}
	d := usagePage{Month: u.Month, Prev: first.AddDate(0, -1, 0).Format("2006-01"), Next: first.AddDate(0, 1, 0).Format("2006-01")}
	for _, m := range kyc.UsageMetrics {
		d.Metrics = append(d.Metrics, usageMetric{Key: string(m), Label: usageLabels[m], Total: u.Totals[m]})
	}
	for _, day := range u.Days {
		row := usageDayRow{Date: day.Date}
		for _, m := range kyc.UsageMetrics {
			row.Counts = append(row.Counts, day.Counts[m])
			row.Total += day.Counts[m]
		}
		d.Max = max(d.Max, row.Total)
		if row.Total > 0 {
			d.Days = append(d.Days, row)
		}
	}
	d.chart(u)
	return c.render(w, r, http.StatusOK, "usage.html", &page{Title: "Usage", Section: "usage", Data: d})
}

// chart lays out one stacked bar per day and a few horizontal ticks.
func (d *usagePage) chart(u *kyc.Usage) {
	top := niceCeil(d.Max)
	const above = 10.0 // room for the top tick's label
	plotH := chartH - chartBelow
	slot := (chartW - chartLeft) / float64(len(u.Days))
	for i := 0; i <= 4; i++ {
		v := top * i / 4
		d.Ticks = append(d.Ticks, usageTick{Y: plotH - (plotH-above)*float64(v)/float64(top), Label: strconv.Itoa(v)})
	}
	total := 0
	for i, day := range u.Days {
		x := chartLeft + float64(i)*slot + slot*0.15
		y := plotH
		for _, m := range kyc.UsageMetrics {
			n := day.Counts[m]
			if n == 0 {
				continue
			}
			h := (plotH - above) * float64(n) / float64(top)
			y -= h
			d.Bars = append(d.Bars, usageBar{X: x, Y: y, W: slot * 0.7, H: h, Key: string(m),
				Title: fmt.Sprintf("%s: %d %s", day.Date, n, usageLabels[m])})
			total += n
		}
		if i == 0 || (i+1)%5 == 0 {
			d.Labels = append(d.Labels, usageTick{X: x + slot*0.35, Y: chartH - 6, Label: strconv.Itoa(i + 1)})
		}
	}
	d.Summary = fmt.Sprintf("Daily billable events in %s: %d in all, at most %d on one day.", u.Month, total, d.Max)
}

// niceCeil is the axis top: at least n and 4, a multiple of 4 so the four
// ticks are whole numbers, rounded up to 1, 2 or 5 times a power of ten
// when large.
func niceCeil(n int) int {
	if n <= 4 {
		return 4
	}
	for step := 1; ; step *= 10 {
		for _, m := range []int{1, 2, 5} {
			if top := 4 * m * step; top >= n {
				return top
			}
		}
	}
}
