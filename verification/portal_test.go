package verification

import (
	"testing"
	"time"

	"kycd/kyc"
)

func TestLinkState(t *testing.T) {
	now := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		status  kyc.KYCStatus
		expires time.Time
		want    LinkState
	}{
		{kyc.KYCLinkGenerated, now.Add(time.Minute), LinkOpen},
		{kyc.KYCLinkGenerated, now, LinkExpired}, // at the instant of expiry, before the job ran
		{kyc.KYCLinkGenerated, now.Add(-time.Hour), LinkExpired},
		{kyc.KYCExpired, now.Add(time.Hour), LinkExpired},
		{kyc.KYCCancelled, now.Add(time.Hour), LinkCancelled},
		{kyc.KYCSubmitted, now.Add(time.Hour), LinkDone},
		{kyc.KYCAwaitingReview, now.Add(-time.Hour), LinkDone},
		{kyc.KYCApproved, now.Add(time.Hour), LinkDone},
	} {
		if got := linkState(&kyc.KYCRequest{Status: tt.status, PortalExpiresAt: tt.expires}, now); got != tt.want {
			t.Errorf("%s expiring %v: %s, want %s", tt.status, tt.expires.Sub(now), got, tt.want)
		}
	}
}

func TestMissingCaptures(t *testing.T) {
	front, back := "front", "back"
	passport, idCard := "passport", "id_card"
	doc := func(side, typ *string) kyc.Capture {
		return kyc.Capture{Kind: "document", Side: side, DocumentType: typ}
	}
	selfie := kyc.Capture{Kind: "selfie"}
	for _, tt := range []struct {
		wf   kyc.WorkflowType
		caps []kyc.Capture
		want string
	}{
		{kyc.WorkflowStandard, nil, "document.front,selfie"},
		{kyc.WorkflowStandard, []kyc.Capture{doc(&front, &passport), selfie}, ""},
		{kyc.WorkflowStandard, []kyc.Capture{doc(&front, &idCard), selfie}, "document.back"},
		{kyc.WorkflowStandard, []kyc.Capture{doc(&front, &idCard), doc(&back, &idCard)}, "selfie"},
		{kyc.WorkflowDocumentOnly, []kyc.Capture{doc(&front, &passport)}, ""},
		{kyc.WorkflowDocumentOnly, []kyc.Capture{selfie}, "document.front"},
	} {
		got := ""
		for i, m := range missingCaptures(tt.wf, tt.caps) {
			if i > 0 {
				got += ","
			}
			got += m
		}
		if got != tt.want {
			t.Errorf("%s %d captures: %q, want %q", tt.wf, len(tt.caps), got, tt.want)
		}
	}
}
