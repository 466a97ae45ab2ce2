package decision

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

// Action is what a finding does to the decision.
type Action string

// Actions: reject and review decide; warn adds the code's weight to the
// risk score; ignore drops the finding from the decision (it stays in the
// signal for the record).
const (
	ActReject Action = "reject"
	ActReview Action = "review"
	ActWarn   Action = "warn"
	ActIgnore Action = "ignore"
)

// Policy maps findings to a decision. It is per organization, stored as
// JSON, and its Version is recorded with every decision it made.
type Policy struct {
	Version string `json:"version"`
	// MinimumAge is the youngest age accepted (UNDER_AGE below it).
	MinimumAge int `json:"minimumAge"`
	// ApproveConfidence is the least confidence an approval needs; below
	// it the request goes to review.
	ApproveConfidence float64 `json:"approveConfidence"`
	// ReviewRiskScore sends a request to review when the risk score (the
	// sum of the weights of warn findings, at most 100) reaches it.
	ReviewRiskScore float64 `json:"reviewRiskScore"`
	// SanctionsRejectScore: a sanctions match scoring at least this is
	// rejected outright (the SANCTIONS_MATCH action applies below it).
	SanctionsRejectScore float64 `json:"sanctionsRejectScore"`
	// MaxRequestsPerIP in 24 hours before MANY_ATTEMPTS_FROM_IP.
	MaxRequestsPerIP int `json:"maxRequestsPerIp"`
	// MatchCountry compares the nationality and issuing state read from the
	// document with the applicant's country (NATIONALITY_MISMATCH when
	// neither is it).
	MatchCountry bool `json:"matchCountry"`
	// HighRiskCountries are ISO alpha-2 codes (HIGH_RISK_COUNTRY).
	HighRiskCountries []string `json:"highRiskCountries"`
	// Actions per reason code; Weights are the risk points of warn codes.
	Actions map[string]Action  `json:"actions"`
	Weights map[string]float64 `json:"weights"`
}

// FATFDate is when the default high-risk list was taken from the FATF
// public statements.
const FATFDate = "2025-10-24"

// fatfCountries: FATF "high-risk jurisdictions subject to a call for
// action" (KP, IR, MM) and "jurisdictions under increased monitoring" as
// published after the October 2025 plenary.
var fatfCountries = []string{
	"KP", "IR", "MM", // call for action
	"DZ", "AO", "BO", "BG", "CM", "CI", "CD", "HT", "KE", "LA", "LB", "MC", "NA", "NP", "SS", "SY", "VE", "VN", "VG", "YE",
}

// AllCodes lists every reason code a signal can emit.
var AllCodes = []string{
	CodeImageTooSmall, CodeImageBlurry, CodeImageGlare, CodeImageDark, CodeDocumentNotFilling,
	CodeFaceNotDetected, CodeMultipleFaces, CodeMRZMissing, CodeMRZInvalid, CodeMRZChecksumFailed,
	CodeDocumentExpired, CodeUnderAge, CodeNameMismatch, CodeDOBMismatch, CodeNationalityMismatch,
	CodeDocumentNumberDiffer, CodeDataPartiallyCompared, CodeSanctionsMatch, CodePEPMatch, CodeAdverseMediaMatch, CodeScreeningFailed,
	CodeDuplicateDocument, CodeDuplicateImage, CodeDuplicateApplicant, CodeUploadedNotCaptured,
	CodeEditingSoftware, CodeSameImageReused, CodeManyAttemptsFromIP, CodeHighRiskCountry, CodeFaceMismatch,
	CodeDuplicateFace, CodeDocumentNotRead, CodeSelfieIsDocument, CodeSelfieNotLive, CodeSpoofScore,
}

// DefaultPolicy is used by organizations without their own. The README
// shows it as JSON.
func DefaultPolicy() *Policy {
	return &Policy{
		Version: "default-2026-11", MinimumAge: 18, ApproveConfidence: 0.7, ReviewRiskScore: 40,
		SanctionsRejectScore: 0.97, MaxRequestsPerIP: 5, MatchCountry: true, HighRiskCountries: append([]string(nil), fatfCountries...),
		Actions: map[string]Action{
			CodeDocumentExpired: ActReject, CodeUnderAge: ActReject, CodeMRZChecksumFailed: ActReject,
			CodeSameImageReused: ActReject,
			CodeSanctionsMatch:  ActReview, CodePEPMatch: ActReview, CodeAdverseMediaMatch: ActReview, CodeScreeningFailed: ActReview,
			CodeFaceNotDetected: ActReview, CodeMultipleFaces: ActReview, CodeMRZInvalid: ActReview,
			// The document's holder is not the applicant: rejected (a
			// policy can send these to review instead).
			CodeNameMismatch: ActReject, CodeDOBMismatch: ActReject, CodeDocumentNumberDiffer: ActReview,
			// What the server could not verify is never approved.
			CodeDocumentNotRead: ActReview, CodeSelfieIsDocument: ActReview,
			CodeDuplicateDocument: ActReview, CodeDuplicateImage: ActReview, CodeDuplicateApplicant: ActReview,
			CodeEditingSoftware: ActReview, CodeFaceMismatch: ActReview, CodeDuplicateFace: ActReview,
			CodeSelfieNotLive: ActReview, CodeSpoofScore: ActReview,
			CodeImageTooSmall: ActWarn, CodeImageBlurry: ActWarn, CodeImageGlare: ActWarn, CodeImageDark: ActWarn,
			CodeDocumentNotFilling: ActWarn, CodeMRZMissing: ActWarn, CodeNationalityMismatch: ActWarn, CodeDataPartiallyCompared: ActWarn,
			CodeUploadedNotCaptured: ActWarn, CodeManyAttemptsFromIP: ActWarn, CodeHighRiskCountry: ActWarn,
		},
		Weights: map[string]float64{
			CodeImageTooSmall: 15, CodeImageBlurry: 15, CodeImageGlare: 10, CodeImageDark: 10, CodeDocumentNotFilling: 5,
			CodeMRZMissing: 10, CodeNationalityMismatch: 15, CodeDataPartiallyCompared: 10, CodeUploadedNotCaptured: 10, CodeManyAttemptsFromIP: 20,
			CodeHighRiskCountry: 30,
		},
	}
}

// ParsePolicy reads a policy. Fields left out take the default's values
// (a policy may override only what it changes); unknown fields, unknown
// codes, actions and out-of-range numbers are errors naming the field.
func ParsePolicy(data []byte) (*Policy, error) {
	p := DefaultPolicy()
	var in struct {
		Policy
		Actions map[string]Action  `json:"actions"`
		Weights map[string]float64 `json:"weights"`
	}
	in.Policy = *p
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&in); err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	*p = in.Policy
	p.Actions, p.Weights = DefaultPolicy().Actions, DefaultPolicy().Weights
	for k, v := range in.Actions {
		p.Actions[k] = v
	}
	for k, v := range in.Weights {
		p.Weights[k] = v
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// Validate reports every problem of the policy at once.
func (p *Policy) Validate() error {
	var errs []string
	if strings.TrimSpace(p.Version) == "" {
		errs = append(errs, "version: is required (it is recorded with every decision)")
	}
	if p.MinimumAge < 0 || p.MinimumAge > 100 {
		errs = append(errs, "minimumAge: must be from 0 to 100")
	}
	if p.ApproveConfidence < 0 || p.ApproveConfidence > 1 {
		errs = append(errs, "approveConfidence: must be from 0 to 1")
	}
	if p.ReviewRiskScore <= 0 || p.ReviewRiskScore > 100 {
		errs = append(errs, "reviewRiskScore: must be above 0 and at most 100")
	}
	if p.SanctionsRejectScore <= 0 || p.SanctionsRejectScore > 1 {
		errs = append(errs, "sanctionsRejectScore: must be above 0 and at most 1")
	}
	if p.MaxRequestsPerIP < 1 {
		errs = append(errs, "maxRequestsPerIp: must be at least 1")
	}
	for _, c := range p.HighRiskCountries {
		if !kyc.ValidCountry(c) {
			errs = append(errs, fmt.Sprintf("highRiskCountries: %q is not an ISO 3166-1 alpha-2 code", c))
		}
	}
	known := map[string]bool{}
	for _, c := range AllCodes {
		known[c] = true
	}
	for _, k := range sortedKeys(p.Actions) {
		switch {
		case !known[k]:
			errs = append(errs, fmt.Sprintf("actions.%s: unknown reason code", k))
		case p.Actions[k] != ActReject && p.Actions[k] != ActReview && p.Actions[k] != ActWarn && p.Actions[k] != ActIgnore:
			errs = append(errs, fmt.Sprintf("actions.%s: %q must be reject, review, warn or ignore", k, p.Actions[k]))
		}
	}
	for _, k := range sortedKeys(p.Weights) {
		switch {
		case !known[k]:
			errs = append(errs, fmt.Sprintf("weights.%s: unknown reason code", k))
		case p.Weights[k] < 0 || p.Weights[k] > 100:
			errs = append(errs, fmt.Sprintf("weights.%s: must be from 0 to 100", k))
		}
	}
	if len(errs) > 0 {
		return errors.New("policy: " + strings.Join(errs, "; "))
	}
	return nil
}

// action is the policy's action for a code (review when it has none, so a
// new code is never silently ignored).
func (p *Policy) action(code string) Action {
	if a, ok := p.Actions[code]; ok {
		return a
	}
	return ActReview
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// StorePolicy loads organizations' policies from the store (the default
// when an organization has none).
func StorePolicy(st *store.Store) func(ctx context.Context, orgID string) (*Policy, error) {
	return func(ctx context.Context, orgID string) (*Policy, error) {
		o, err := st.FindOrgSettings(ctx, orgID)
		if err != nil {
			return nil, err
		}
		if o.DecisionPolicy == nil {
			return DefaultPolicy(), nil
		}
		return ParsePolicy(o.DecisionPolicy)
	}
}
