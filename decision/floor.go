package decision

import (
	"fmt"
	"slices"
	"strings"

	"kycd/kyc"
)

// The policy floor: what a live request needs before any policy may
// approve it. The floor is a property of this package, not of a policy:
// apply enforces it on every live decision whatever the policy says, and
// CheckFloor refuses a policy whose actions contradict it, so the console
// editor and kycd orgs update --policy ask this package rather than keep
// a copy of its rules.
//
// A check joins the floor by declaration: a signal whose findings must
// keep a live request from approval gets a rule in floorRules below. From
// then on a live request without that signal, or with it not_run or
// failing, is not approved (CHECK_NOT_RUN or the finding's code, as a
// review reason), and a policy that warns about or ignores one of its
// codes is refused by the console and the CLI. TestFloorRulesKnownCodes
// holds every rule to codes the package knows.

// FloorRule is one thing a live approval needs from one signal.
type FloorRule struct {
	// Signal is the signal's name. A live request whose signals do not
	// include it, or where it is not_run, is not approved.
	Signal string
	// Needs says, for people, what live approval needs from it, e.g.
	// "the document read by the server from its image".
	Needs string
	// Codes are the findings that keep a live request from approval. A
	// policy may only reject or review them (CheckFloor).
	Codes []string
	// MustPass: the signal's status must be pass (any finding blocks),
	// as for authenticity and liveness signals; otherwise only Codes
	// block (aml_screening: a PEP match is the policy's business, a list
	// that did not answer is not).
	MustPass bool
	// Check, when set, is what else must hold of the signal: "" when it
	// holds, else why not (for people).
	Check func(s Signal) string
}

// Codes of the liveness, face and floor checks.
const (
	// CodeLivenessDiscontinuous: the frames of a liveness session are not
	// one continuous capture (a mirrored frame, a cut, a jump of the
	// face, frames not at the rate the page records).
	CodeLivenessDiscontinuous = "LIVENESS_DISCONTINUOUS"
	// CodeLivenessLightMismatch: in a liveness session the face did not
	// take on the screen colours the server asked for, or no more than
	// the far background did (liveness.CodeLightMismatch).
	CodeLivenessLightMismatch = "LIVENESS_LIGHT_MISMATCH"
	// CodeFaceMatchUncertain: the faces are closer than the verification
	// threshold allows but not so far that they are certainly two
	// people: a reviewer compares them (the distance is shown).
	CodeFaceMatchUncertain = "FACE_MATCH_UNCERTAIN"
	// CodeCheckNotRun: a check live approval needs verified nothing (it
	// did not run, was switched off, or its signal is missing). Only the
	// floor emits it; no policy action applies to it.
	CodeCheckNotRun = "CHECK_NOT_RUN"
)

// FloorRules lists the floor's rules (for docs/decisions.md, the console and
// tests).
func FloorRules() []FloorRule { return slices.Clone(floorRules) }

// floorRules are the floor, one rule per signal. The document's own
// authenticity signals are on it: in live, no request is approved whose
// document was not photographed in the server's camera session, looks
// drawn or recaptured, does not have its format's layout, is a published
// specimen, or whose portrait is the selfie's own photograph, and no
// request where one of those checks could not run (a format without a
// known layout, a document without a portrait).
var floorRules = []FloorRule{
	{Signal: SigDocumentData, Needs: "the document read by the server from its image",
		Codes: []string{CodeDocumentNotRead, CodeMRZInvalid, CodeMRZChecksumFailed},
		Check: func(s Signal) string {
			if s.Data["source"] != "document_image" {
				return "the document's data was not read from its image"
			}
			return ""
		}},
	{Signal: SigDocumentCapture, Needs: "a document photographed in the server's camera session",
		Codes: []string{CodeDocumentUploaded}, MustPass: true},
	{Signal: SigDocumentRendering, Needs: "a document photographed, not drawn",
		Codes: []string{CodeLooksRendered}, MustPass: true},
	{Signal: SigDocumentRecapture, Needs: "a document photographed itself, not from a screen or a print",
		Codes: []string{CodeRecaptured}, MustPass: true},
	{Signal: SigDocumentLayout, Needs: "a document laid out as its format requires",
		Codes: []string{CodeLayoutMismatch}, MustPass: true},
	{Signal: SigDocumentSpecimen, Needs: "a document that is not a published specimen",
		Codes: []string{CodeSpecimen}, MustPass: true},
	{Signal: SigPortraitReuse, Needs: "a document portrait that is not the selfie's photograph",
		Codes: []string{CodePortraitReused}, MustPass: true},
	{Signal: SigSelfieLiveness, Needs: "a passed liveness session",
		Codes: []string{CodeSelfieNotLive, CodeLivenessDiscontinuous, CodeLivenessLightMismatch}, MustPass: true},
	{Signal: SigFaceMatch, Needs: "the selfie's face matched to the document portrait",
		Codes: []string{CodeFaceMismatch, CodeFaceMatchUncertain, CodeFaceNotDetected}, MustPass: true},
	{Signal: SigSelfieDocument, Needs: "a selfie that is not a picture of the document",
		Codes: []string{CodeSelfieIsDocument}, MustPass: true},
	{Signal: SigCaptureIntegrity, Needs: "images neither edited nor reused",
		Codes: []string{CodeEditingSoftware, CodeSameImageReused}},
	{Signal: SigAMLScreening, Needs: "an answer from every list in scope",
		Codes: []string{CodeScreeningFailed}},
}

// CheckFloor refuses a policy that would let a live request be approved
// below the floor: a floor code the policy warns about or ignores. The
// problems are a *PolicyError, each at the action's field, saying why.
func CheckFloor(p *Policy) error {
	var probs []kyc.FieldError
	seen := map[string]bool{}
	for _, r := range floorRules {
		for _, c := range r.Codes {
			if seen[c] {
				continue
			}
			seen[c] = true
			if a := p.action(c); a != ActReject && a != ActReview {
				probs = append(probs, kyc.FieldError{Field: "actions." + c, Message: fmt.Sprintf(
					"cannot be %s: in live no request is approved without %s (%s must be reject or review)", a, r.Needs, c)})
			}
		}
	}
	if len(probs) > 0 {
		return &PolicyError{Problems: probs}
	}
	return nil
}

// floorShortfalls says, for a live request, each floor rule its signals
// do not meet, as reasons (review) naming the signal and why. The codes
// are the findings that broke the rule, or CHECK_NOT_RUN when the signal
// is missing or verified nothing.
func floorShortfalls(signals []Signal) []Reason {
	var out []Reason
	for _, r := range floorRules {
		found := false
		for _, s := range signals {
			if s.Name != r.Signal {
				continue
			}
			found = true
			out = append(out, ruleShortfalls(r, s)...)
		}
		if !found {
			out = append(out, Reason{Code: CodeCheckNotRun, Signal: r.Signal, Action: ActReview,
				Message: fmt.Sprintf("Live approval needs %s: the %s check did not run.", r.Needs, r.Signal)})
		}
	}
	return out
}

func ruleShortfalls(r FloorRule, s Signal) []Reason {
	if s.Status == NotRun {
		return []Reason{{Code: CodeCheckNotRun, Signal: s.Name, Action: ActReview,
			Message: fmt.Sprintf("Live approval needs %s: the %s check did not run (%s)", r.Needs, s.Name, strings.TrimSuffix(s.Detail, ".")) + "."}}
	}
	var out []Reason
	for _, f := range s.Findings {
		if slices.Contains(r.Codes, f.Code) || (r.MustPass && s.Status != Pass) {
			out = append(out, Reason{Code: f.Code, Signal: s.Name, Action: ActReview,
				Message: fmt.Sprintf("Live approval needs %s: %s", r.Needs, f.Message)})
		}
	}
	if len(out) == 0 && r.MustPass && s.Status != Pass {
		out = append(out, Reason{Code: CodeCheckNotRun, Signal: s.Name, Action: ActReview,
			Message: fmt.Sprintf("Live approval needs %s: the %s check did not pass (%s).", r.Needs, s.Name, s.Status)})
	}
	if r.Check != nil {
		if why := r.Check(s); why != "" && len(out) == 0 {
			out = append(out, Reason{Code: CodeCheckNotRun, Signal: s.Name, Action: ActReview,
				Message: fmt.Sprintf("Live approval needs %s: %s.", r.Needs, why)})
		}
	}
	return out
}

// approvalReason is an approval's decisionReason: "All checks passed."
// only when every signal ran, the policy ignored no finding, switched no
// check off and no finding warned; otherwise it names each (the warnings,
// which an approval carries within its risk score, by code).
func approvalReason(p *Policy, signals []Signal, ignored []string, reasons []Reason) string {
	var parts []string
	var notRun []string
	for _, s := range signals {
		if s.Status == NotRun && !excluded(s) {
			notRun = append(notRun, fmt.Sprintf("%s (%s)", s.Name, strings.TrimSuffix(s.Detail, ".")))
		}
	}
	if len(notRun) > 0 {
		parts = append(parts, "not run: "+strings.Join(notRun, ", "))
	}
	if len(ignored) > 0 {
		parts = append(parts, "findings the policy ignores: "+strings.Join(ignored, ", "))
	}
	var off []string
	if p.MinimumAge == 0 {
		off = append(off, "the minimum age (minimumAge 0)")
	}
	if !p.MatchCountry {
		off = append(off, "the country comparison (matchCountry false)")
	}
	for _, s := range signals {
		if s.Name != SigAMLScreening {
			continue
		}
		if kinds := stringList(s.Data["notScreened"]); len(kinds) > 0 {
			off = append(off, "screening against "+strings.Join(kinds, ", ")+" lists")
		}
	}
	if len(off) > 0 {
		parts = append(parts, "switched off: "+strings.Join(off, ", "))
	}
	var warned []string
	for _, r := range reasons {
		if r.Action == ActWarn && !slices.Contains(warned, r.Code) {
			warned = append(warned, r.Code)
		}
	}
	switch {
	case len(parts) == 0 && len(warned) == 0:
		return "All checks passed."
	case len(parts) == 0:
		return "Approved with warnings within the risk score: " + strings.Join(warned, ", ") + "."
	case len(warned) > 0:
		parts = append(parts, "warnings within the risk score: "+strings.Join(warned, ", "))
	}
	return "Approved, but not every check counted: " + strings.Join(parts, "; ") + "."
}

// stringList reads a list of text from a signal's data, as computed or
// as recorded (JSON gives []any).
func stringList(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	case []any:
		var out []string
		for _, x := range l {
			if t, ok := x.(string); ok {
				out = append(out, t)
			}
		}
		return out
	}
	return nil
}

// excluded reports whether a signal is recorded for information only and
// is no evidence (passive_liveness: measured not to separate attacks).
func excluded(s Signal) bool { return s.Data["excluded"] == true }
