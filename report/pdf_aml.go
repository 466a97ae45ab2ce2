package report

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"kycd/kyc"
)

// WriteAMLPDF renders an AML check's report as an A4 PDF: a summary of
// the verdict and of what a reviewer must look at, then the subject, the
// verdict, each list's result with the provider and list versions it
// was computed from, every match record with the features that explain
// its score, and the monitoring history. Sandbox checks say "SANDBOX —
// not a real decision" on every page. The same report always renders to
// the same bytes.
func WriteAMLPDF(w io.Writer, rep *AMLReport) error {
	if rep == nil || rep.Check == nil {
		return errors.New("write aml pdf: no check in the report")
	}
	c := rep.Check
	sandbox := c.Environment == kyc.Sandbox
	d, err := newDoc("AML screening report", c.PublicID, rep.GeneratedAt, "Check "+c.ID, sandbox)
	if err != nil {
		return fmt.Errorf("write aml pdf: %w", err)
	}
	d.deciders = rep.Deciders
	if d.deciders == nil {
		d.deciders = map[string]*Person{}
	}

	amlSummary(d, c)

	d.section("Organization and environment")
	t := d.kvTable()
	t.kv("Organization", rep.Organization.Name, false)
	t.kv("Organization id", rep.Organization.ID, true)
	env := orNone(string(c.Environment))
	if sandbox {
		env += " (SANDBOX — not a real decision)"
	}
	t.kv("Environment", env, false)
	t.end()

	d.section("Subject")
	t = d.kvTable()
	t.kv("Name", orNone(strings.TrimSpace(c.FirstName+" "+c.LastName)), false)
	t.kv("First name", orNone(c.FirstName), false)
	t.kv("Last name", orNone(c.LastName), false)
	t.kv("Date of birth", optStr(c.DOB), false)
	t.kv("Country", optStr(c.Country), false)
	t.kv("Check id", c.ID, true)
	t.kv("Public id", c.PublicID, true)
	t.end()

	d.section("Verdict")
	t = d.kvTable()
	t.kv("Status", orNone(string(c.Status)), false)
	risk := none
	if c.RiskLevel != nil {
		risk = string(*c.RiskLevel)
	}
	t.kv("Risk level", risk, false)
	t.kv("Matches", strconv.Itoa(c.MatchCount), false)
	t.kv("Match threshold", strconv.FormatFloat(c.Threshold, 'f', 2, 64), false)
	t.kv("Review", reviewText(c), false)
	t.kv("Monitoring", monitoring(c), false)
	t.kv("Created", kyc.FormatTime(c.CreatedAt), false)
	t.kv("Last screened", kyc.FormatTime(c.LastScreenedAt), false)
	t.end()

	d.section("Results per list", d.screeningsHeight(c.Results))
	d.screenings(c.Results)
	amlHistory(d, c.History)
	d.setY(d.y() + 2)
	d.para(scriptLegend, regular, 8)
	return d.finish(w)
}

// reviewText says whether the check's matches still need a person.
func reviewText(c *kyc.AMLCheck) string {
	n := matchTally(c)
	switch {
	case n.total == 0:
		return "not required: no match"
	case n.decided == n.total:
		s := fmt.Sprintf("resolved: every match decided (%d confirmed, %d false positive)", n.confirmed, n.decided-n.confirmed)
		if c.ResolvedAt != nil {
			s += ", " + kyc.FormatTime(*c.ResolvedAt)
		}
		return s
	}
	return fmt.Sprintf("pending: %d of %d %s decided", n.decided, n.total, plural(n.total, "match", "matches"))
}

// tally counts a check's matches and their current decisions.
type tally struct{ total, decided, confirmed int }

func matchTally(c *kyc.AMLCheck) tally {
	var n tally
	for _, r := range c.Results {
		n.add(r.Matches)
	}
	return n
}

func (n *tally) add(ms []kyc.MatchRecord) {
	for _, m := range ms {
		n.total++
		if m.Review != nil && m.Review.Current {
			n.decided++
			if m.Review.Decision == kyc.MatchConfirmed {
				n.confirmed++
			}
		}
	}
}

func monitoring(c *kyc.AMLCheck) string {
	if !c.MonitoringEnabled {
		return "off"
	}
	if c.NextScreenAt == nil {
		return "on"
	}
	return "on, next screening " + kyc.FormatTime(*c.NextScreenAt)
}

// amlHistory prints every screening of the check, oldest first: what
// triggered it, the status before and after, and which matches appeared
// or went away.
func amlHistory(d *doc, history []kyc.Screening) {
	d.section(fmt.Sprintf("Monitoring history (%d %s)", len(history), plural(len(history), "screening", "screenings")))
	if len(history) == 0 {
		d.para("No screening history was loaded.", regular, 9)
		return
	}
	// Widths (shares of 180 mm, cell padding included): a timestamp takes
	// 36 mm at 7.5 pt, potential_match 21, list_update 15, the heads
	// Changed and Matches 14 and 13, so each fits on one line.
	t := d.newTable("", true, col{head: "#", w: 0.03, align: "R"}, col{head: "Screened", w: 0.205},
		col{head: "Trigger", w: 0.09}, col{head: "Status", w: 0.122}, col{head: "Previous", w: 0.122},
		col{head: "Changed", w: 0.08}, col{head: "Matches", w: 0.076, align: "R"},
		col{head: "New matches", w: 0.1375}, col{head: "Removed matches", w: 0.1375}).continues("Monitoring history")
	for i, s := range history {
		prev := none
		if s.PreviousStatus != nil {
			prev = string(*s.PreviousStatus)
		}
		changed := "no"
		if s.Changed {
			changed = "yes"
		}
		matches := strconv.Itoa(s.MatchCount)
		if s.RiskLevel != nil {
			matches += "\n" + string(*s.RiskLevel)
		}
		t.row(strconv.Itoa(i+1), kyc.FormatTime(s.ScreenedAt), orNone(s.Trigger), orNone(string(s.Status)), prev,
			changed, matches, list(s.NewMatches, "\n"), list(s.RemovedMatches, "\n"))
	}
	t.end()
}
