package decision

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"kycd/internal/jsonkeys"
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
	CodeDocumentUploaded, CodeLooksRendered, CodeRecaptured, CodeLayoutMismatch, CodePortraitReused, CodeSpecimen,
	CodeLivenessDiscontinuous, CodeFaceMatchUncertain, CodeLivenessLightMismatch,
}

// DefaultPolicy is used by organizations without their own. docs/decisions.md
// shows it as JSON.
func DefaultPolicy() *Policy {
	return &Policy{
		Version: "default-2026-11b", MinimumAge: 18, ApproveConfidence: 0.7, ReviewRiskScore: 40,
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
			// Authenticity: a document the server did not see captured
			// now, or whose pixels or layout say drawn or recaptured, goes
			// to a person; a published specimen, or a portrait that is the
			// selfie's own photograph, is a forgery.
			CodeDocumentUploaded: ActReview, CodeLooksRendered: ActReview, CodeRecaptured: ActReview, CodeLayoutMismatch: ActReview,
			CodeSpecimen: ActReject, CodePortraitReused: ActReject,
			CodeLivenessDiscontinuous: ActReview, CodeFaceMatchUncertain: ActReview, CodeLivenessLightMismatch: ActReview,
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

// PolicyError lists every problem of a policy, each at its field (the
// JSON member's path, e.g. actions.PEP_MATCH; "policy" for the text as a
// whole), so an editor can show each beside what it is about.
type PolicyError struct {
	Problems []kyc.FieldError
}

func (e *PolicyError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Field + ": " + p.Message
	}
	return "policy: " + strings.Join(parts, "; ")
}

// ParsePolicy reads a policy. Fields left out take the default's values
// (a policy may override only what it changes). Every problem is reported
// at once, as a *PolicyError: a syntax error with its line and column, a
// member given twice, unknown members, values of the wrong type, unknown
// codes and actions, out-of-range numbers.
func ParsePolicy(data []byte) (*Policy, error) {
	if probs := checkPolicyText(data); len(probs) > 0 {
		return nil, &PolicyError{Problems: probs}
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, &PolicyError{Problems: []kyc.FieldError{{Field: "policy", Message: "must be a JSON object"}}}
	}
	p := DefaultPolicy()
	known := policyMembers()
	var probs []kyc.FieldError
	// One member at a time, so that every wrongly typed member is named,
	// not only the first.
	for _, name := range sortedKeys(members) {
		if !known[name] {
			probs = append(probs, kyc.FieldError{Field: name, Message: "is not a policy setting"})
			continue
		}
		if name == "actions" || name == "weights" {
			probs = append(probs, p.mergeCodes(name, members[name])...)
			continue
		}
		one, err := json.Marshal(map[string]json.RawMessage{name: members[name]})
		if err != nil {
			return nil, fmt.Errorf("policy: %w", err)
		}
		act, wts := p.Actions, p.Weights
		if err := json.Unmarshal(one, p); err != nil {
			probs = append(probs, typeProblem(name, err))
		}
		p.Actions, p.Weights = act, wts
	}
	// The values that did read are checked too, so that every problem is
	// named at once; a member already named is not named twice.
	var ve *PolicyError
	if errors.As(p.Validate(), &ve) {
		for _, v := range ve.Problems {
			if !slices.ContainsFunc(probs, func(f kyc.FieldError) bool { return f.Field == v.Field }) {
				probs = append(probs, v)
			}
		}
	}
	if len(probs) > 0 {
		sort.SliceStable(probs, func(i, j int) bool { return probs[i].Field < probs[j].Field })
		return nil, &PolicyError{Problems: probs}
	}
	return p, nil
}

// mergeCodes merges the policy's actions or weights member into the
// default's, code by code, naming each code whose value has the wrong
// type.
func (p *Policy) mergeCodes(name string, raw json.RawMessage) []kyc.FieldError {
	var codes map[string]json.RawMessage
	if err := json.Unmarshal(raw, &codes); err != nil {
		return []kyc.FieldError{{Field: name, Message: "must be an object of reason codes"}}
	}
	var probs []kyc.FieldError
	for _, code := range sortedKeys(codes) {
		var err error
		if name == "actions" {
			var a Action
			if err = json.Unmarshal(codes[code], &a); err == nil {
				p.Actions[code] = a
			}
		} else {
			var w float64
			if err = json.Unmarshal(codes[code], &w); err == nil {
				p.Weights[code] = w
			}
		}
		if err != nil {
			probs = append(probs, typeProblem(name+"."+code, err))
		}
	}
	return probs
}

// checkPolicyText finds what makes the text unreadable as a policy: not
// JSON (with the line and column), not an object, members given twice
// (encoding/json would keep the last silently).
func checkPolicyText(data []byte) []kyc.FieldError {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			return []kyc.FieldError{{Field: "policy", Message: fmt.Sprintf("line %d, column %d: %s", line, col, se.Error())}}
		}
		return []kyc.FieldError{{Field: "policy", Message: err.Error()}}
	}
	if _, ok := v.(map[string]any); !ok {
		return []kyc.FieldError{{Field: "policy", Message: "must be a JSON object"}}
	}
	return jsonkeys.Duplicates(data)
}

// lineCol turns a byte offset into a 1-based line and column (in
// characters).
func lineCol(data []byte, off int64) (line, col int) {
	// encoding/json's offset is just past the character it could not
	// take, except at the end of the text.
	if off > 0 && off < int64(len(data)) {
		off--
	}
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	start := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[start:]) + 1
}

// typeProblem says which member of a policy setting had the wrong type.
func typeProblem(name string, err error) kyc.FieldError {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return kyc.FieldError{Field: name, Message: err.Error()}
	}
	// The path encoding/json gives names the member within the setting,
	// if any; name is the setting's own.
	field := name
	if te.Field != "" && te.Field != name {
		if _, sub, ok := strings.Cut(te.Field, "."); ok && strings.HasPrefix(sub, name) {
			field = sub
		}
	}
	want := map[reflect.Kind]string{reflect.String: "text", reflect.Float64: "a number", reflect.Int: "a whole number",
		reflect.Bool: "true or false", reflect.Map: "an object", reflect.Slice: "a list"}[te.Type.Kind()]
	if want == "" {
		want = te.Type.String()
	}
	return kyc.FieldError{Field: field, Message: "must be " + want + ", not " + te.Value}
}

// policyMembers are the JSON names of Policy's fields.
func policyMembers() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[Policy]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
}

// maxVersionLen bounds a policy's version, which every decision records.
const maxVersionLen = 64

// validVersion: 1 to maxVersionLen printable ASCII characters.
func validVersion(v string) bool {
	if len(v) == 0 || len(v) > maxVersionLen {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return false
		}
	}
	return true
}

// describeVersion says what is wrong with a version without repeating it
// (it may be huge).
func describeVersion(v string) string {
	if len(v) > maxVersionLen {
		return fmt.Sprintf("%d bytes", len(v))
	}
	return "one with other characters"
}

// Validate reports every problem of the policy at once, as a
// *PolicyError (nil when there is none).
func (p *Policy) Validate() error {
	var errs []kyc.FieldError
	add := func(field, format string, args ...any) {
		errs = append(errs, kyc.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if strings.TrimSpace(p.Version) == "" {
		add("version", "is required (it is recorded with every decision)")
	} else if !validVersion(p.Version) {
		// Every decision copies it: a 250 KB version passed preview once.
		add("version", "must be 1 to %d printable ASCII characters (letters, digits, spaces and punctuation; it is recorded with every decision), not %s",
			maxVersionLen, describeVersion(p.Version))
	}
	if p.MinimumAge < 0 || p.MinimumAge > 100 {
		add("minimumAge", "must be from 0 to 100")
	}
	if p.ApproveConfidence < 0 || p.ApproveConfidence > 1 {
		add("approveConfidence", "must be from 0 to 1")
	}
	if p.ReviewRiskScore <= 0 || p.ReviewRiskScore > 100 {
		add("reviewRiskScore", "must be above 0 and at most 100")
	}
	if p.SanctionsRejectScore <= 0 || p.SanctionsRejectScore > 1 {
		add("sanctionsRejectScore", "must be above 0 and at most 1")
	}
	if p.MaxRequestsPerIP < 1 {
		add("maxRequestsPerIp", "must be at least 1")
	}
	for _, c := range p.HighRiskCountries {
		if !kyc.ValidCountry(c) {
			add("highRiskCountries", "%q is not an ISO 3166-1 alpha-2 code", c)
		}
	}
	known := map[string]bool{}
	for _, c := range AllCodes {
		known[c] = true
	}
	for _, k := range sortedKeys(p.Actions) {
		switch {
		case !known[k]:
			add("actions."+k, "unknown reason code")
		case p.Actions[k] != ActReject && p.Actions[k] != ActReview && p.Actions[k] != ActWarn && p.Actions[k] != ActIgnore:
			add("actions."+k, "%q must be reject, review, warn or ignore", p.Actions[k])
		}
	}
	for _, k := range sortedKeys(p.Weights) {
		switch {
		case !known[k]:
			add("weights."+k, "unknown reason code")
		case p.Weights[k] < 0 || p.Weights[k] > 100:
			add("weights."+k, "must be from 0 to 100")
		}
	}
	if len(errs) > 0 {
		return &PolicyError{Problems: errs}
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

// Same reports whether two policies are the same (by their JSON: maps
// marshal in key order).
func Same(a, b *Policy) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// CheckNewVersion refuses a policy that changes the one in force without
// changing its version: every decision records the version, and two
// different policies under one would make that record ambiguous.
func CheckNewVersion(current, proposed *Policy) error {
	if proposed.Version == current.Version && !Same(current, proposed) {
		return &PolicyError{Problems: []kyc.FieldError{{Field: "version",
			Message: "is the version of the policy in force (" + current.Version + "); a changed policy needs a new version, which every decision records"}}}
	}
	return nil
}
