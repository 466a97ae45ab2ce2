package decision

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestCheckFloor: the default policy keeps the floor; a policy that
// warns about or ignores a floor code is refused at that code, saying
// what live approval needs.
func TestCheckFloor(t *testing.T) {
	if err := CheckFloor(DefaultPolicy()); err != nil {
		t.Fatalf("default policy: %v", err)
	}
	for _, r := range FloorRules() {
		for _, c := range r.Codes {
			for _, a := range []Action{ActWarn, ActIgnore} {
				p := DefaultPolicy()
				p.Actions[c] = a
				var pe *PolicyError
				if err := CheckFloor(p); !errors.As(err, &pe) || len(pe.Problems) != 1 || pe.Problems[0].Field != "actions."+c ||
					!strings.Contains(pe.Problems[0].Message, r.Needs) {
					t.Errorf("%s %s: %v", c, a, err)
				}
			}
			p := DefaultPolicy()
			p.Actions[c] = ActReject
			if err := CheckFloor(p); err != nil {
				t.Errorf("%s reject: %v", c, err)
			}
		}
	}
	// The policy: every code ignored, approval at any confidence.
	p := allIgnored()
	var pe *PolicyError
	if err := CheckFloor(p); !errors.As(err, &pe) || len(pe.Problems) < 5 {
		t.Fatalf("all ignored: %v", err)
	}
}

func allIgnored() *Policy {
	p := DefaultPolicy()
	p.Version, p.ApproveConfidence, p.MinimumAge = "all-ignored", 0, 0
	for _, c := range AllCodes {
		p.Actions[c] = ActIgnore
	}
	return p
}

// passing are the floor's signals as a live approval needs them.
func passing() []Signal {
	doc := newSignal(SigDocumentData)
	doc.Data["source"] = "document_image"
	return []Signal{doc, newSignal(SigDocumentCapture), newSignal(SigDocumentRendering), newSignal(SigDocumentRecapture),
		newSignal(SigDocumentLayout), newSignal(SigDocumentSpecimen), newSignal(SigPortraitReuse),
		newSignal(SigSelfieLiveness), newSignal(SigFaceMatch), newSignal(SigSelfieDocument),
		newSignal(SigCaptureIntegrity), newSignal(SigAMLScreening)}
}

// TestLiveFloor: in live, whatever the policy, a request is approved only
// when every floor signal ran and held; each shortfall is a review reason
// naming the signal and its code. Sandbox decisions are not held to it.
func TestLiveFloor(t *testing.T) {
	replace := func(s Signal) []Signal {
		out := passing()
		for i := range out {
			if out[i].Name == s.Name {
				out[i] = s
			}
		}
		return out
	}
	failing := func(name, code string) Signal {
		s := newSignal(name)
		if name == SigDocumentData {
			s.Data["source"] = "document_image"
		}
		s.add(Fail, 0, code, code+" message")
		return s
	}
	typed := newSignal(SigDocumentData)
	typed.Data["source"] = "typed"
	without := slices.DeleteFunc(passing(), func(s Signal) bool { return s.Name == SigSelfieLiveness })
	for _, c := range []struct {
		name    string
		signals []Signal
		code    string
	}{
		{"uploaded selfie", replace(failing(SigSelfieLiveness, CodeSelfieNotLive)), CodeSelfieNotLive},
		{"discontinuous session", replace(failing(SigSelfieLiveness, CodeLivenessDiscontinuous)), CodeLivenessDiscontinuous},
		{"face not lit by the screen", replace(failing(SigSelfieLiveness, CodeLivenessLightMismatch)), CodeLivenessLightMismatch},
		{"screen light not measured", replace(notRun(SigSelfieLiveness, "too dark")), CodeCheckNotRun},
		{"face mismatch", replace(failing(SigFaceMatch, CodeFaceMismatch)), CodeFaceMismatch},
		{"face uncertain", replace(failing(SigFaceMatch, CodeFaceMatchUncertain)), CodeFaceMatchUncertain},
		{"face not run", replace(notRun(SigFaceMatch, "No selfie")), CodeCheckNotRun},
		{"liveness missing", without, CodeCheckNotRun},
		{"typed document", replace(typed), CodeCheckNotRun},
		{"document not read", replace(failing(SigDocumentData, CodeDocumentNotRead)), CodeDocumentNotRead},
		{"list not answering", replace(failing(SigAMLScreening, CodeScreeningFailed)), CodeScreeningFailed},
		{"edited image", replace(failing(SigCaptureIntegrity, CodeEditingSoftware)), CodeEditingSoftware},
		{"selfie is document", replace(failing(SigSelfieDocument, CodeSelfieIsDocument)), CodeSelfieIsDocument},
		{"uploaded document", replace(failing(SigDocumentCapture, CodeDocumentUploaded)), CodeDocumentUploaded},
		{"drawn document", replace(failing(SigDocumentRendering, CodeLooksRendered)), CodeLooksRendered},
		{"recaptured document", replace(failing(SigDocumentRecapture, CodeRecaptured)), CodeRecaptured},
		{"layout not measured", replace(notRun(SigDocumentLayout, "No zone was read.")), CodeCheckNotRun},
		{"specimen", replace(failing(SigDocumentSpecimen, CodeSpecimen)), CodeSpecimen},
		{"portrait is the selfie", replace(failing(SigPortraitReuse, CodePortraitReused)), CodePortraitReused},
	} {
		res := apply(allIgnored(), kyc.Live, c.signals)
		reasons := res.Processing["reasons"].([]Reason)
		if res.Outcome != Review || !slices.ContainsFunc(reasons, func(r Reason) bool { return r.Code == c.code && r.Action == ActReview }) ||
			!strings.HasPrefix(res.Reason, "Live approval needs") {
			t.Errorf("%s: %s %q %v", c.name, res.Outcome, res.Reason, reasons)
		}
		if res := apply(allIgnored(), kyc.Sandbox, c.signals); res.Outcome != Approve || res.Reason == "All checks passed." {
			t.Errorf("%s in sandbox: %s %q", c.name, res.Outcome, res.Reason)
		}
	}
	if res := apply(DefaultPolicy(), kyc.Live, passing()); res.Outcome != Approve || res.Reason != "All checks passed." {
		t.Errorf("all held: %s %q", res.Outcome, res.Reason)
	}
	// A signal excluded from the evidence is neither a check that did
	// not run nor counted in the confidence.
	info := notRun(SigPassiveLiveness, "Not used as evidence.")
	info.Data["excluded"] = true
	if res := apply(DefaultPolicy(), kyc.Live, append(passing(), info)); res.Outcome != Approve || res.Reason != "All checks passed." || res.Confidence != 1 {
		t.Errorf("with an excluded signal: %s %q %v", res.Outcome, res.Reason, res.Confidence)
	}
}

// TestApprovalReasonNamesWhatDidNotCount: "All checks passed." only when
// nothing was ignored, not run or switched off.
func TestApprovalReasonNamesWhatDidNotCount(t *testing.T) {
	withWarn := passing()
	withWarn[slices.IndexFunc(withWarn, func(s Signal) bool { return s.Name == SigCaptureIntegrity })].add(Warn, 0.5, CodeManyAttemptsFromIP, "many")
	withAML := passing()
	withAML[slices.IndexFunc(withAML, func(s Signal) bool { return s.Name == SigAMLScreening })] = AMLScreening(
		[]kyc.ListResult{{CheckType: "sanctions", Status: kyc.ListClear}, {CheckType: "pep", Status: kyc.ListNotScreened}}, 0.97)
	noAge := DefaultPolicy()
	noAge.MinimumAge, noAge.MatchCountry = 0, false
	ignoring := DefaultPolicy()
	ignoring.Actions[CodeManyAttemptsFromIP] = ActIgnore
	ignoring.ApproveConfidence = 0
	for _, c := range []struct {
		name    string
		p       *Policy
		signals []Signal
		want    []string
	}{
		{"ignored finding", ignoring, withWarn, []string{"ignores: MANY_ATTEMPTS_FROM_IP"}},
		{"not run", ignoring, append(passing(), notRun(SigCountryRisk, "No country is known.")), []string{"not run: country_risk (No country is known)"}},
		{"switched off", noAge, passing(), []string{"minimum age (minimumAge 0)", "country comparison (matchCountry false)"}},
		{"list kind off", DefaultPolicy(), withAML, []string{"screening against pep lists"}},
	} {
		res := apply(c.p, kyc.Live, c.signals)
		if res.Outcome != Approve || res.Reason == "All checks passed." {
			t.Errorf("%s: %s %q", c.name, res.Outcome, res.Reason)
		}
		for _, w := range c.want {
			if !strings.Contains(res.Reason, w) {
				t.Errorf("%s: %q lacks %q", c.name, res.Reason, w)
			}
		}
	}
}

// TestFloorRulesKnownCodes: every floor rule names a signal and codes the
// package emits and policies can name.
func TestFloorRulesKnownCodes(t *testing.T) {
	for _, r := range FloorRules() {
		if r.Signal == "" || r.Needs == "" {
			t.Errorf("rule %+v: no signal or no words for people", r)
		}
		for _, c := range r.Codes {
			if !slices.Contains(AllCodes, c) {
				t.Errorf("floor rule for %s names unknown code %s", r.Signal, c)
			}
		}
	}
}

// TestApprovalReasonNamesWarnings: an approval carrying warn findings
// (within the risk score) names them instead of "All checks passed."
// (an attacker's approved forgery read "All checks passed." beside
// IMAGE_BLURRY).
func TestApprovalReasonNamesWarnings(t *testing.T) {
	signals := passing()
	signals[slices.IndexFunc(signals, func(s Signal) bool { return s.Name == SigCaptureIntegrity })].add(Warn, 0.5, CodeManyAttemptsFromIP, "many")
	res := apply(DefaultPolicy(), kyc.Live, signals)
	if res.Outcome != Approve || res.Reason != "Approved with warnings within the risk score: MANY_ATTEMPTS_FROM_IP." {
		t.Errorf("%s %q", res.Outcome, res.Reason)
	}
}
