// Package decision turns what an applicant submitted into an automated
// decision: signals computed from the data and images, and a policy that
// maps them to approve, reject or review.
package decision

import (
	"context"

	"kycd/kyc"
	"kycd/store"
)

// Input is everything the engine may look at for one request.
type Input struct {
	Request   *kyc.KYCRequest
	Applicant *kyc.Applicant
	// Captures are the submitted images with their data loaded.
	Captures []kyc.Capture
	// LivenessSessions are the request's selfie capture sessions (their
	// verdicts; frames without image data).
	LivenessSessions []kyc.LivenessSession
}

// Outcome is the engine's recommendation.
type Outcome string

// Outcomes map to the statuses approved, rejected and awaiting_review.
const (
	Approve Outcome = "approve"
	Reject  Outcome = "reject"
	Review  Outcome = "review"
)

// Result is what the engine decided and why.
type Result struct {
	Outcome    Outcome
	Confidence float64 // [0,1]
	RiskScore  float64 // [0,1]
	Reason     string  // for people: decisionReason
	// Processing is stored as the request's processingResult: the engine
	// and policy versions, every signal with its outcome, the reasons.
	Processing map[string]any
	// Screenings are the AML results of the applicant, if the engine ran
	// them (the request's /screenings).
	Screenings []kyc.ListResult
	// Faces are the face descriptors the engine computed (the document
	// portrait's and the selfie's), for the processing job to save with
	// the decision: the duplicate-face check of later requests reads them.
	Faces []store.FaceDescriptor
	// DocumentNumberRead is the document number read from the document's
	// MRZ ("" when none was read), for the processing job to record with
	// the decision: the duplicate check of later requests compares it.
	DocumentNumberRead string
	// AddressRead is the holder's address read from the document the
	// engine took its data from (a licence's barcode; nil for an MRZ or
	// nothing read), for the processing job to record sealed: personal
	// data, which Processing (stored in clear) does not carry.
	AddressRead *kyc.DocumentAddress
}

// Engine decides a request. An error means the engine could not decide
// (the processing job retries, then the request fails); it is never a
// rejection.
type Engine interface {
	Decide(ctx context.Context, in Input) (Result, error)
}

// Manual is the engine used until automated checks exist: it runs no
// checks and sends every request to a reviewer. It never approves.
type Manual struct{}

// ManualVersion identifies the Manual engine in processing results.
const ManualVersion = "manual-0"

// Decide returns review with a processing result that says no automated
// check ran.
func (Manual) Decide(_ context.Context, in Input) (Result, error) {
	return Result{
		Outcome: Review, Confidence: 0, RiskScore: 0,
		Reason: "No automated checks ran; a reviewer must decide.",
		Processing: map[string]any{
			"engine": "manual", "engineVersion": ManualVersion, "policyVersion": nil,
			"automatedChecks": false, "signals": []any{},
			"reasons": []any{}, "summary": "No automated checks ran; a reviewer must decide.",
			"capturesCount": len(in.Captures),
		},
	}, nil
}
