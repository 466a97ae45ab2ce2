package cmd

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"kycd/kyc"
)

// UsageCmd prints an organization's metered (billable, live) usage in one
// month, per day: what GET /v1/usage answers a live key.
type UsageCmd struct {
	dbFlag
	Org   string `required:"" help:"org_<ulid>"`
	Month string `placeholder:"YYYY-MM" help:"The UTC month (default: the current one)."`
	CSV   bool   `name:"csv" help:"CSV with a header line: one row per day, then a total row."`
}

// Run prints the month's totals and days as a table or as CSV.
func (c *UsageCmd) Run(e *env) error {
	month := c.Month
	if month == "" {
		month = time.Now().UTC().Format("2006-01")
	}
	first, err := kyc.ParseMonth(month)
	if err != nil {
		return fmt.Errorf("--month %q: %w", month, err)
	}
	s, err := openStore(e.ctx, c.DB)
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := s.FindOrganization(e.ctx, c.Org); err != nil {
		return fmt.Errorf("organization %s: %w", c.Org, err)
	}
	u, err := s.Usage(e.ctx, c.Org, first)
	if err != nil {
		return err
	}
	header := []string{"date"}
	for _, m := range kyc.UsageMetrics {
		header = append(header, string(m))
	}
	row := func(label string, counts kyc.UsageCounts) []string {
		r := []string{label}
		for _, m := range kyc.UsageMetrics {
			r = append(r, strconv.Itoa(counts[m]))
		}
		return r
	}
	if c.CSV {
		w := csv.NewWriter(e.stdout)
		w.Write(header)
		for _, d := range u.Days {
			w.Write(row(d.Date, d.Counts))
		}
		w.Write(row("total", u.Totals))
		w.Flush()
		return w.Error()
	}
	fmt.Fprintf(e.stdout, "organization %s, %s (UTC), live only: sandbox is not billed\n", u.OrganizationID, u.Month)
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	write := func(cols []string) {
		for _, col := range cols {
			fmt.Fprint(tw, col, "\t")
		}
		fmt.Fprintln(tw)
	}
	write(header)
	for _, d := range u.Days {
		if nonZero(d.Counts) {
			write(row(d.Date, d.Counts))
		}
	}
	write(row("total", u.Totals))
	return tw.Flush()
}

func nonZero(c kyc.UsageCounts) bool {
	for _, n := range c {
		if n != 0 {
			return true
		}
	}
	return false
}
