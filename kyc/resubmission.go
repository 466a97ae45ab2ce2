package kyc

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// ResubmissionStep is the one step a resubmission asks the applicant to
// redo.
type ResubmissionStep string

// The steps: a document side, the selfie (the camera check, or an upload
// when the camera cannot be used, as the first time), or the camera check
// itself (only a passed liveness session completes it).
const (
	StepDocumentFront ResubmissionStep = "document_front"
	StepDocumentBack  ResubmissionStep = "document_back"
	StepSelfie        ResubmissionStep = "selfie"
	StepLiveness      ResubmissionStep = "liveness"
)

// ResubmissionSteps lists every step (OpenAPI enum, validation).
var ResubmissionSteps = []ResubmissionStep{StepDocumentFront, StepDocumentBack, StepSelfie, StepLiveness}

// ResubmissionState is where one resubmission is.
type ResubmissionState string

// States: open while its link can be used; submitted once the applicant
// sent the step; expired when its link ran out first.
const (
	ResubmissionOpen      ResubmissionState = "open"
	ResubmissionSubmitted ResubmissionState = "submitted"
	ResubmissionExpired   ResubmissionState = "expired"
)

// ResubmissionStates lists every state.
var ResubmissionStates = []ResubmissionState{ResubmissionOpen, ResubmissionSubmitted, ResubmissionExpired}

// Limits of resubmission: how many a request may have (past that the
// reviewer decides on what there is), how long a link lives by default and
// at most, and how long the message may be.
const (
	MaxResubmissions         = 3
	DefaultResubmissionTTL   = 72 * time.Hour
	MaxResubmissionTTL       = 14 * 24 * time.Hour
	MaxResubmissionMessage   = 1000
	minResubmissionMessageCh = 3
)

// Resubmission is one request to redo a step.
type Resubmission struct {
	ID        string
	RequestID string
	Attempt   int // the attempt it opens (2 for the first resubmission)
	Step      ResubmissionStep
	Message   string
	State     ResubmissionState
	By        Principal
	// The earlier attempt's decision, as it stood when the resubmission
	// was asked for.
	PriorAutomationDecision *string
	PriorDecisionReason     *string
	PriorRiskScore          *float64
	PriorReasonCodes        []string
	ExpiresAt               time.Time
	CreatedAt               time.Time
	ClosedAt                *time.Time
}

// ResubmissionInput is a reviewer's request to redo one step.
type ResubmissionInput struct {
	Step    ResubmissionStep
	Message string
	TTL     time.Duration // 0: DefaultResubmissionTTL
}

// Validate checks the input against the request's workflow: a selfie or
// camera check only in the standard workflow, a back only for a document
// that has one (documentType, "" when unknown).
func (in *ResubmissionInput) Validate(wf WorkflowType, documentType string) []FieldError {
	var errs []FieldError
	known := false
	for _, s := range ResubmissionSteps {
		known = known || s == in.Step
	}
	switch {
	case !known:
		errs = append(errs, FieldError{Field: "step", Message: "must be document_front, document_back, selfie or liveness"})
	case (in.Step == StepSelfie || in.Step == StepLiveness) && wf != WorkflowStandard:
		errs = append(errs, FieldError{Field: "step", Message: "must be a document side: this request's workflow takes no selfie"})
	case in.Step == StepDocumentBack && documentType != "" && !DocumentTypes[documentType]:
		errs = append(errs, FieldError{Field: "step", Message: fmt.Sprintf("cannot be document_back: a %s has no back side", documentType)})
	}
	if n := utf8.RuneCountInString(in.Message); n < minResubmissionMessageCh || n > MaxResubmissionMessage {
		errs = append(errs, FieldError{Field: "message", Message: fmt.Sprintf("must be %d to %d characters", minResubmissionMessageCh, MaxResubmissionMessage)})
	} else if r, bad := InvisibleRune(in.Message); bad {
		// The applicant reads it in an e-mail: no hidden or reordered text.
		errs = append(errs, FieldError{Field: "message", Message: fmt.Sprintf("must not contain invisible or text-direction characters (found U+%04X)", r)})
	}
	if in.TTL < 0 || in.TTL > MaxResubmissionTTL || (in.TTL > 0 && in.TTL < time.Hour) {
		errs = append(errs, FieldError{Field: "linkTtlHours", Message: "must be 1 to 336 hours"})
	}
	return errs
}

// Allows reports whether a capture of kind and side belongs to step: the
// only images a resubmission link accepts.
func (s ResubmissionStep) Allows(kind string, side *string) bool {
	switch s {
	case StepDocumentFront:
		return kind == "document" && side != nil && *side == "front"
	case StepDocumentBack:
		return kind == "document" && side != nil && *side == "back"
	case StepSelfie, StepLiveness:
		return kind == "selfie"
	}
	return false
}

// Camera reports whether the step is taken with the face camera check
// (a liveness session) rather than a document photo.
func (s ResubmissionStep) Camera() bool { return s == StepSelfie || s == StepLiveness }

// OpenResubmission is the resubmission whose link is current, or nil.
func (r *KYCRequest) OpenResubmission() *Resubmission {
	for i := len(r.Resubmissions) - 1; i >= 0; i-- {
		if r.Resubmissions[i].State == ResubmissionOpen {
			return &r.Resubmissions[i]
		}
	}
	return nil
}
