package kyc

import (
	"strings"
	"testing"
	"time"
)

// TestResubmissionStateMachine says, for every status, what the
// resubmission actions allow: only a request waiting for a person can be
// sent back; a decided-final request (approved, rejected) or one that
// ended (expired, cancelled, failed) cannot; only a request awaiting a
// resubmission can be resubmitted or have its resubmission expire.
func TestResubmissionStateMachine(t *testing.T) {
	type want struct {
		request, resubmit, expire KYCStatus // "" = INVALID_TRANSITION
	}
	cases := map[KYCStatus]want{
		KYCLinkGenerated:         {},
		KYCSubmitted:             {},
		KYCProcessing:            {},
		KYCAwaitingReview:        {request: KYCResubmissionRequested},
		KYCApproved:              {},
		KYCRejected:              {},
		KYCExpired:               {},
		KYCCancelled:             {},
		KYCFailed:                {},
		KYCResubmissionRequested: {resubmit: KYCSubmitted, expire: KYCAwaitingReview},
	}
	if len(cases) != len(KYCStatuses) {
		t.Fatalf("the table covers %d statuses, there are %d", len(cases), len(KYCStatuses))
	}
	for from, w := range cases {
		for _, step := range []struct {
			action KYCAction
			to     KYCStatus
			event  EventType
		}{
			{ActionRequestResubmission, w.request, EventKYCResubmissionRequested},
			{ActionResubmit, w.resubmit, EventKYCSubmitted},
			{ActionResubmissionExpire, w.expire, EventKYCAwaitingReview},
		} {
			tr, err := CheckTransition(step.action, from, "")
			if step.to == "" {
				if AsError(err).Code != EInvalidTransition {
					t.Errorf("%s from %s: got %v, want INVALID_TRANSITION", step.action, from, err)
				}
				continue
			}
			if err != nil || tr.To != step.to || tr.Event != step.event {
				t.Errorf("%s from %s: got %s/%s, %v; want %s/%s", step.action, from, tr.To, tr.Event, err, step.to, step.event)
			}
		}
	}
	// While awaiting the applicant, a reviewer cannot decide: the evidence
	// is about to change.
	for _, a := range []KYCAction{ActionApprove, ActionReject, ActionCancel, ActionSubmit, ActionResendLink} {
		if _, err := CheckTransition(a, KYCResubmissionRequested, ""); AsError(err).Code != EInvalidTransition {
			t.Errorf("%s from resubmission_requested: got %v, want INVALID_TRANSITION", a, err)
		}
	}
	if d := StatusDecision(KYCResubmissionRequested); d != DecisionPending {
		t.Errorf("decision while awaiting a resubmission = %s, want pending", d)
	}
	if e := StatusEvent(KYCResubmissionRequested); e != EventKYCResubmissionRequested {
		t.Errorf("StatusEvent(resubmission_requested) = %s", e)
	}
	if e := StatusEvent(KYCSubmitted); e != EventKYCSubmitted {
		t.Errorf("StatusEvent(submitted) = %s", e)
	}
}

func TestResubmissionInputValidate(t *testing.T) {
	ok := "Your passport photo is blurred; please take it again in good light."
	cases := []struct {
		name    string
		in      ResubmissionInput
		wf      WorkflowType
		docType string
		fields  string // the fields refused, comma-separated
	}{
		{"front", ResubmissionInput{Step: StepDocumentFront, Message: ok}, WorkflowStandard, "passport", ""},
		{"back of a card", ResubmissionInput{Step: StepDocumentBack, Message: ok}, WorkflowStandard, "id_card", ""},
		{"back of a passport", ResubmissionInput{Step: StepDocumentBack, Message: ok}, WorkflowStandard, "passport", "step"},
		{"selfie", ResubmissionInput{Step: StepSelfie, Message: ok}, WorkflowStandard, "passport", ""},
		{"liveness", ResubmissionInput{Step: StepLiveness, Message: ok}, WorkflowStandard, "passport", ""},
		{"selfie without selfie workflow", ResubmissionInput{Step: StepSelfie, Message: ok}, WorkflowDocumentOnly, "passport", "step"},
		{"liveness without selfie workflow", ResubmissionInput{Step: StepLiveness, Message: ok}, WorkflowDocumentOnly, "passport", "step"},
		{"unknown step", ResubmissionInput{Step: "details", Message: ok}, WorkflowStandard, "passport", "step"},
		{"empty step", ResubmissionInput{Message: ok}, WorkflowStandard, "passport", "step"},
		{"short message", ResubmissionInput{Step: StepSelfie, Message: "ok"}, WorkflowStandard, "", "message"},
		{"long message", ResubmissionInput{Step: StepSelfie, Message: strings.Repeat("é", MaxResubmissionMessage+1)}, WorkflowStandard, "", "message"},
		{"longest message", ResubmissionInput{Step: StepSelfie, Message: strings.Repeat("é", MaxResubmissionMessage)}, WorkflowStandard, "", ""},
		{"ttl too short", ResubmissionInput{Step: StepSelfie, Message: ok, TTL: time.Minute}, WorkflowStandard, "", "linkTtlHours"},
		{"ttl too long", ResubmissionInput{Step: StepSelfie, Message: ok, TTL: MaxResubmissionTTL + time.Hour}, WorkflowStandard, "", "linkTtlHours"},
		{"ttl longest", ResubmissionInput{Step: StepSelfie, Message: ok, TTL: MaxResubmissionTTL}, WorkflowStandard, "", ""},
		{"text-direction override", ResubmissionInput{Step: StepSelfie, Message: "Please take it\u202e again."}, WorkflowStandard, "", "message"},
		{"line breaks", ResubmissionInput{Step: StepSelfie, Message: "Please take it again.\nIn good light."}, WorkflowStandard, "", ""},
		{"everything wrong", ResubmissionInput{Step: "x", Message: "", TTL: -time.Hour}, WorkflowStandard, "", "step,message,linkTtlHours"},
	}
	for _, c := range cases {
		var got []string
		for _, e := range c.in.Validate(c.wf, c.docType) {
			got = append(got, e.Field)
		}
		if strings.Join(got, ",") != c.fields {
			t.Errorf("%s: refused %v, want %q", c.name, got, c.fields)
		}
	}
}

// TestResubmissionStepAllows is what a resubmission link accepts: the
// step's own image and nothing else.
func TestResubmissionStepAllows(t *testing.T) {
	front, back := "front", "back"
	images := []struct {
		kind string
		side *string
		name string
	}{{"document", &front, "front"}, {"document", &back, "back"}, {"selfie", nil, "selfie"}, {"document", nil, "document without side"}}
	want := map[ResubmissionStep]string{StepDocumentFront: "front", StepDocumentBack: "back", StepSelfie: "selfie", StepLiveness: "selfie"}
	for _, step := range ResubmissionSteps {
		for _, im := range images {
			if got := step.Allows(im.kind, im.side); got != (im.name == want[step]) {
				t.Errorf("%s allows %s = %v", step, im.name, got)
			}
		}
	}
}
