package report

import (
	"fmt"
	"strconv"
	"strings"

	"kycd/kyc"
)

// The first page of a report answers what a compliance officer opens it
// for: what the outcome is, why, and what a reviewer must look at. The
// details that prove it follow.

// tone colours an outcome banner: a pale fill that prints legibly in
// grey, with a darker bar at its left edge.
type tone int

const (
	toneNeutral tone = iota
	toneGood
	toneBad
	toneAttention
)

func (t tone) colours() (fill, bar [3]int) {
	switch t {
	case toneGood:
		return [3]int{226, 242, 230}, [3]int{30, 120, 60}
	case toneBad:
		return [3]int{250, 228, 228}, [3]int{170, 30, 30}
	case toneAttention:
		return [3]int{253, 241, 214}, [3]int{175, 110, 0}
	}
	return [3]int{234, 236, 242}, [3]int{90, 95, 120}
}

// banner prints the outcome in a coloured box: a bold headline and
// wrapped lines under it.
func (d *doc) banner(headline, text string, t tone) {
	const pad, headH, textLH = 3.0, 6.5, 4.2
	inner := contentW - 2*pad - 2
	// The headline wraps like the text: a sandbox verdict is longer than
	// the box is wide, and drawn on one line it ran out of the box.
	d.font(bold, 13)
	heads := d.wrap(headline, inner)
	d.font(regular, 9.5)
	lines := d.wrap(text, inner)
	headsH := float64(len(heads)) * headH
	h := pad + headsH + float64(len(lines))*textLH + pad
	if text == "" {
		h = pad + headsH + pad - 1
	}
	d.ensure(h + 3)
	y := d.y()
	fill, bar := t.colours()
	d.f.SetFillColor(fill[0], fill[1], fill[2])
	d.f.Rect(margin, y, contentW, h, "F")
	d.f.SetFillColor(bar[0], bar[1], bar[2])
	d.f.Rect(margin, y, 1.6, h, "F")
	d.font(bold, 13)
	d.f.SetTextColor(20, 20, 20)
	for i, l := range heads {
		d.drawLine(margin+pad+1, y+pad+float64(i)*headH, inner, headH, l, "L")
	}
	d.font(regular, 9.5)
	for i, l := range lines {
		d.drawLine(margin+pad+1, y+pad+headsH+float64(i)*textLH, inner, textLH, l, "L")
	}
	d.f.SetTextColor(0, 0, 0)
	d.setY(y + h + 3)
}

// kycOutcome names a request's status for people, with the banner's tone.
func kycOutcome(status string) (string, tone) {
	switch status {
	case string(kyc.KYCApproved):
		return "Approved", toneGood
	case string(kyc.KYCRejected):
		return "Rejected", toneBad
	case string(kyc.KYCAwaitingReview):
		return "Awaiting review: a reviewer must decide", toneAttention
	case string(kyc.KYCFailed):
		return "Processing failed: no decision", toneAttention
	case string(kyc.KYCLinkGenerated):
		return "Waiting for the applicant: portal link issued", toneNeutral
	case string(kyc.KYCResubmissionRequested):
		return "Waiting for the applicant to redo one step (see Resubmissions)", toneNeutral
	case string(kyc.KYCSubmitted), string(kyc.KYCProcessing):
		return "Submitted: being processed", toneNeutral
	case string(kyc.KYCExpired):
		return "Expired: the applicant did not submit in time", toneNeutral
	case string(kyc.KYCCancelled):
		return "Cancelled before submission", toneNeutral
	}
	return orNone(status), toneNeutral
}

// sandboxSentence is how a sandbox report's summary says it decides
// nothing (lower case, as searched for).
const sandboxSentence = "sandbox makes no real decisions"

// kycSummary is page 1's opening: the outcome and its reason, who decided,
// the engine's recommendation, the screening at a glance, then every
// finding a reviewer must look at and every check that did not run.
func kycSummary(d *doc, rep *KYCReport) error {
	d.section("Summary")
	head, t := kycOutcome(rep.Request.Status)
	why := optStr(rep.Request.DecisionReason)
	if why == none {
		why = ""
	}
	if rep.Sandbox {
		head = "SANDBOX — " + head
		// A sandbox decision's reason says it already (decision's
		// sandbox outcome): said twice, page 1 read as a stutter.
		if !strings.Contains(strings.ToLower(why), sandboxSentence) {
			why = strings.TrimSpace("Sandbox makes no real decisions. " + why)
		}
	}
	d.banner(head, why, t)

	r, a, au := &rep.Request, &rep.Applicant, &rep.Automation
	kv := d.kvTable()
	person := strings.TrimSpace(a.FirstName + " " + a.LastName)
	if a.DOB != nil {
		person += ", born " + *a.DOB
	}
	if a.Country != nil {
		person += ", " + *a.Country
	}
	kv.kv("Applicant", orNone(person), false)
	kv.kv("Request", r.PublicID+" ("+orNone(r.WorkflowType)+" workflow)", false)
	kv.kv("Decided", decidedBy(rep), false)
	rec := optStr(au.Decision)
	if au.Decision != nil {
		rec += fmt.Sprintf(" (confidence %s, risk score %s of 100)", optNum(au.Confidence, 2), optNum(au.RiskScore, 0))
	}
	kv.kv("Engine recommends", rec, false)
	kv.kv("Screening", screeningGlance(rep.Screenings), false)
	kv.end()

	return kycAttention(d, rep)
}

// decidedBy says who made the decision and when: the reviewer whose note
// carries it, else the decision engine.
func decidedBy(rep *KYCReport) string {
	r := &rep.Request
	if r.DecidedAt == nil {
		return "not yet"
	}
	for i := len(rep.ReviewerNotes) - 1; i >= 0; i-- {
		if n := rep.ReviewerNotes[i]; n.Decision == r.Status {
			return "by " + reviewerText(n) + ", " + *r.DecidedAt
		}
	}
	return "automatically by the decision engine, " + *r.DecidedAt
}

// reviewerText names a note's reviewer: by name and e-mail or by key,
// else as recorded.
func reviewerText(n ReviewerNote) string {
	if n.By != nil {
		return n.By.Text()
	}
	return orNone(n.Reviewer)
}

// reviewerLines is reviewerText for a table column.
func reviewerLines(n ReviewerNote) string {
	if n.By != nil {
		return n.By.Lines()
	}
	return orNone(n.Reviewer)
}

// screeningGlance puts each list's outcome on one line.
func screeningGlance(results []kyc.ListResult) string {
	if len(results) == 0 {
		return "not screened"
	}
	parts := make([]string, 0, len(results))
	for _, r := range results {
		s := checkTypeTitle(r.CheckType) + ": " + orNone(string(r.Status))
		switch {
		case r.Status == kyc.ListHit:
			s += fmt.Sprintf(" (%d %s, risk %s)", r.MatchCount, plural(r.MatchCount, "match", "matches"), riskText(r.RiskLevel))
		case r.Status == kyc.ListError:
			s += " (could not be screened)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

// kycAttention lists what a reviewer must look at: the findings the
// decision used, most severe first (the engine's order), and the checks
// that did not run, which verified nothing.
func kycAttention(d *doc, rep *KYCReport) error {
	d.subsection("What a reviewer must look at")
	if len(rep.Signals) == 0 && len(rep.Reasons) == 0 {
		d.para("No automated checks ran on this request: "+noChecksWhy(rep.Request.Status), regular, 9)
		return nil
	}
	if len(rep.Reasons) == 0 {
		d.para("No finding: every check that ran passed.", regular, 9)
	} else {
		t := d.newTable("", true, col{head: "Action", w: 0.10, style: bold}, col{head: "Finding", w: 0.56},
			col{head: "Code", w: 0.20, style: mono}, col{head: "Check", w: 0.14}).continues("What a reviewer must look at")
		for _, x := range rep.Reasons {
			m, err := object(x)
			if err != nil {
				return fmt.Errorf("reason: %w", err)
			}
			if m == nil {
				t.row(none, value(x), none, none)
				continue
			}
			t.row(field(m, "action"), field(m, "message"), field(m, "code"), field(m, "signal"))
		}
		t.end()
	}
	var notRun [][2]string
	for _, x := range rep.Signals {
		m, err := object(x)
		if err != nil {
			return fmt.Errorf("signal: %w", err)
		}
		if m != nil && field(m, "status") == "not_run" {
			notRun = append(notRun, [2]string{field(m, "name"), field(m, "detail")})
		}
	}
	if len(notRun) > 0 {
		t := d.newTable("Not checked ("+strconv.Itoa(len(notRun))+" "+plural(len(notRun), "check", "checks")+" did not run, so verified nothing)",
			false, col{w: 0.22, style: bold}, col{w: 0.78})
		for _, n := range notRun {
			t.row(n[0], n[1])
		}
		t.end()
	}
	return nil
}

func noChecksWhy(status string) string {
	switch status {
	case string(kyc.KYCLinkGenerated), string(kyc.KYCExpired), string(kyc.KYCCancelled):
		return "nothing was submitted."
	case string(kyc.KYCSubmitted), string(kyc.KYCProcessing):
		return "processing has not finished."
	}
	return "the decision was made by hand; see the reviewer notes."
}

// amlOutcome names a check's verdict for people.
func amlOutcome(c *kyc.AMLCheck) (string, string, tone) {
	n := matchTally(c)
	switch {
	case c.Status == kyc.AMLPotentialMatch && n.total > 0 && n.decided == n.total:
		when := ""
		if c.ResolvedAt != nil {
			when = " (the last on " + kyc.FormatTime(*c.ResolvedAt) + ")"
		}
		// A list that could not be screened leaves the check unclear
		// whatever was decided on the others' matches.
		unscreened := ""
		for _, r := range c.Results {
			if r.Status == kyc.ListError {
				unscreened += " " + checkTypeTitle(r.CheckType) + " could not be screened: the check is not clear until it is screened again."
			}
		}
		if n.confirmed > 0 {
			return fmt.Sprintf("Resolved: %d of %d %s confirmed as the subject", n.confirmed, n.total, plural(n.total, "match", "matches")),
				fmt.Sprintf("A reviewer decided every match%s: %d confirmed, %d false positive. Each decision, its note, who made it and when are in the match records below.%s",
					when, n.confirmed, n.total-n.confirmed, unscreened), toneBad
		}
		t := toneGood
		if unscreened != "" {
			t = toneAttention
		}
		return "Resolved: every match is a false positive",
			fmt.Sprintf("A reviewer decided that none of the %d %s is the subject%s. Each decision, its note, who made it and when are in the match records below.%s",
				n.total, plural(n.total, "match", "matches"), when, unscreened), t
	case c.Status == kyc.AMLPotentialMatch && n.decided > 0:
		return fmt.Sprintf("Potential match: %d of %d %s still to decide", n.total-n.decided, n.total, plural(n.total, "match", "matches")),
			fmt.Sprintf("%d %s at or above the threshold %.2f; risk level %s. A reviewer must compare the undecided matches with the subject.",
				c.MatchCount, plural(c.MatchCount, "match", "matches"), c.Threshold, riskText(c.RiskLevel)), toneAttention
	}
	switch c.Status {
	case kyc.AMLPotentialMatch:
		return "Potential match: a reviewer must compare the matches with the subject",
			fmt.Sprintf("%d %s at or above the threshold %.2f; risk level %s.", c.MatchCount, plural(c.MatchCount, "match", "matches"),
				c.Threshold, riskText(c.RiskLevel)), toneAttention
	case kyc.AMLFailed:
		return "Failed: not every list could be screened",
			"Fail-closed: this is not a clean result. Retry with POST /v1/aml-checks/{id}/rescreen once the list is available.", toneBad
	case kyc.AMLNoMatch:
		return "No match", fmt.Sprintf("Every list was screened and none had a match at or above the threshold %.2f.", c.Threshold), toneGood
	}
	return orNone(string(c.Status)), "", toneNeutral
}

// amlSummary opens an AML report: the verdict in a banner, the subject,
// and one row per list saying what was found or what went wrong.
func amlSummary(d *doc, c *kyc.AMLCheck) {
	d.section("Summary")
	head, why, t := amlOutcome(c)
	if c.Environment == kyc.Sandbox {
		head, why = "SANDBOX — "+head, "Sandbox screens a built-in test list too; not a real result. "+why
	}
	d.banner(head, why, t)
	kv := d.kvTable()
	subject := strings.TrimSpace(c.FirstName + " " + c.LastName)
	if c.DOB != nil {
		subject += ", born " + *c.DOB
	}
	if c.Country != nil {
		subject += ", " + *c.Country
	}
	kv.kv("Subject", orNone(subject), false)
	kv.kv("Check", c.PublicID, false)
	kv.kv("Last screened", kyc.FormatTime(c.LastScreenedAt), false)
	kv.kv("Monitoring", monitoring(c), false)
	kv.end()

	d.subsection("What a reviewer must look at")
	lt := d.newTable("", true, col{head: "List", w: 0.22, style: bold}, col{head: "Outcome", w: 0.16},
		col{head: "What to look at", w: 0.62}).continues("What a reviewer must look at")
	for _, r := range c.Results {
		outcome, look := orNone(string(r.Status)), "Nothing: no listed name reached the threshold."
		switch r.Status {
		case kyc.ListHit:
			outcome = fmt.Sprintf("%d %s, risk %s", r.MatchCount, plural(r.MatchCount, "match", "matches"), riskText(r.RiskLevel))
			var n tally
			n.add(r.Matches)
			if n.decided == n.total {
				look = fmt.Sprintf("Nothing left: every match decided (%d confirmed, %d false positive); the decisions are in the match records below.",
					n.confirmed, n.decided-n.confirmed)
				break
			}
			top := firstUndecided(r.Matches)
			name := top.MatchedName
			if len(top.Names) > 0 {
				name = top.Names[0]
			}
			look = fmt.Sprintf("Best undecided match %s (score %.3f, %s): compare its dates of birth, countries and programmes "+
				"with the subject (match records below).", name, top.Score, orNone(top.Provider))
			if n.decided > 0 {
				look += fmt.Sprintf(" %d of %d decided.", n.decided, n.total)
			}
		case kyc.ListError:
			outcome = "not screened"
			look = "Could not be screened: " + strings.TrimSuffix(optStr(r.Error), ".") + ". The check is not clear until it is screened again."
		}
		lt.row(checkTypeTitle(r.CheckType), outcome, look)
	}
	if len(c.Results) == 0 {
		lt.row(none, "not screened", "No list result was recorded.")
	}
	lt.end()
}

// firstUndecided is the best-scored match without a current decision
// (matches come best first); the first match when all are decided.
func firstUndecided(ms []kyc.MatchRecord) kyc.MatchRecord {
	for _, m := range ms {
		if m.Review == nil || !m.Review.Current {
			return m
		}
	}
	return ms[0]
}
