package report

import (
	"fmt"
	"strings"
)

// kycResubmissions prints the steps a reviewer sent back to the
// applicant, each with the decision the earlier attempt had: with the
// images' attempt numbers, the report shows both attempts side by side.
func kycResubmissions(d *doc, rep *KYCReport) {
	if len(rep.Resubmissions) == 0 {
		return
	}
	d.section("Resubmissions")
	d.para(fmt.Sprintf("The evidence is on attempt %d. Each image above names the attempt it was taken in; the decision of an earlier attempt is kept here.",
		rep.Request.Attempt), regular, 9)
	for _, rs := range rep.Resubmissions {
		t := d.kvTable()
		t.kv("Attempt opened", fmt.Sprintf("%d (%s)", rs.Attempt, rs.Status), false)
		t.kv("Step", rs.Step, false)
		t.kv("Requested by", reviewerLines(ReviewerNote{Reviewer: rs.RequestedBy, By: rs.By}), false)
		t.kv("Requested", rs.RequestedAt, false)
		t.kv("Link expires", rs.ExpiresAt, false)
		t.kv("Closed", optStr(rs.ClosedAt), false)
		t.kv("Message to the applicant", orNone(rs.Message), false)
		t.kv("Earlier recommendation", optStr(rs.PriorAutomationDecision), false)
		t.kv("Earlier reason", optStr(rs.PriorDecisionReason), false)
		if rs.PriorRiskScore != nil {
			t.kv("Earlier risk score", fmt.Sprintf("%.2f", *rs.PriorRiskScore), false)
		}
		t.kv("Earlier reason codes", orNone(strings.Join(rs.PriorReasonCodes, ", ")), false)
		t.end()
	}
}
