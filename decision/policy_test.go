package decision

import (
	"encoding/json"
	"strings"
	"testing"

	"kycd/kyc"
)

func TestParsePolicy(t *testing.T) {
	if err := DefaultPolicy().Validate(); err != nil {
		t.Fatalf("default policy: %v", err)
	}
	p, err := ParsePolicy([]byte(`{"version":"acme-1","minimumAge":21,"actions":{"PEP_MATCH":"warn"},"weights":{"PEP_MATCH":25}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.MinimumAge != 21 || p.action(CodePEPMatch) != ActWarn || p.Weights[CodePEPMatch] != 25 ||
		p.action(CodeDocumentExpired) != ActReject || p.ReviewRiskScore != 40 {
		t.Errorf("override did not merge with the default: %+v", p)
	}
	for _, tt := range []struct{ in, want string }{
		{`{`, "policy: line 1, column 2: unexpected end of JSON input"},
		{"{\n  \"version\": \"x\",\n  \"minimumAge\": 18,,\n}", "policy: line 3, column 20: invalid character ','"},
		{`[]`, "policy: must be a JSON object"},
		{`{"version":"x","colour":1,"shade":2}`, `colour: is not a policy setting; shade: is not a policy setting`},
		{`{"version":"x","minimumAge":18,"minimumAge":21}`, `minimumAge: appears more than once`},
		{`{"version":"x","actions":{"PEP_MATCH":"warn","PEP_MATCH":"reject"}}`, `actions.PEP_MATCH: appears more than once`},
		{`{"version":"x","minimumAge":"18","matchCountry":1,"weights":{"PEP_MATCH":"high"}}`,
			`matchCountry: must be true or false, not number; minimumAge: must be a whole number, not string; weights.PEP_MATCH: must be a number, not string`},
		{`{"version":"x","minimumAge":18.5}`, `minimumAge: must be a whole number, not number 18.5`},
		{`{"version":""}`, "version: is required"},
		{`{"version":"x","minimumAge":-1,"approveConfidence":2,"reviewRiskScore":0}`, "approveConfidence: must be from 0 to 1; minimumAge: must be from 0 to 100; reviewRiskScore"},
		{`{"version":"x","actions":{"NOT_A_CODE":"reject","UNDER_AGE":"shrug"}}`, `actions.NOT_A_CODE: unknown reason code; actions.UNDER_AGE: "shrug" must be reject, review, warn or ignore`},
		{`{"version":"x","weights":{"IMAGE_BLURRY":101}}`, "weights.IMAGE_BLURRY: must be from 0 to 100"},
		{`{"version":"x","highRiskCountries":["ZZ","ir"]}`, `highRiskCountries: "ZZ" is not`},
	} {
		_, err := ParsePolicy([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.in, err, tt.want)
		}
	}
}

func sig(name string, st Status, codes ...string) Signal {
	s := newSignal(name)
	for _, c := range codes {
		s.add(st, 0.5, c, c+" message")
	}
	if len(codes) == 0 {
		s.Status = st
	}
	return s
}

// TestApply is the decision rule: reject beats review beats the risk
// score, and approval needs confidence.
func TestApply(t *testing.T) {
	p := DefaultPolicy()
	for _, tt := range []struct {
		name    string
		signals []Signal
		want    Outcome
		risk    float64
		reason  string
	}{
		{"all pass", []Signal{sig("a", Pass), sig("b", Pass)}, Approve, 0, "All checks passed."},
		{"expired document rejects", []Signal{sig("a", Fail, CodeSanctionsMatch), sig("b", Fail, CodeDocumentExpired)}, Reject, 0, "DOCUMENT_EXPIRED message"},
		{"sanctions match reviews", []Signal{sig("a", Fail, CodeSanctionsMatch), sig("b", Warn, CodeImageBlurry)}, Review, 15, "SANCTIONS_MATCH message"},
		{"warnings below the review level", []Signal{sig("a", Warn, CodeImageBlurry, CodeImageGlare)}, Approve, 25, "Approved with warnings within the risk score: IMAGE_BLURRY, IMAGE_GLARE."},
		{"warnings reach the review level", []Signal{sig("a", Warn, CodeImageBlurry, CodeImageGlare, CodeUploadedNotCaptured, CodeImageDark)}, Review, 45, "Risk score 45 reaches"},
		{"too little ran", []Signal{sig("a", Pass), notRun("b", "x"), notRun("c", "y")}, Review, 0, "Confidence 0.33 is below"},
	} {
		res := apply(p, kyc.Sandbox, tt.signals)
		if res.Outcome != tt.want || res.RiskScore != tt.risk || !strings.HasPrefix(res.Reason, tt.reason) {
			t.Errorf("%s: %s risk %v reason %q", tt.name, res.Outcome, res.RiskScore, res.Reason)
		}
	}
	// A sanctions match above the reject score rejects even though the
	// code's action is review.
	s := sig("aml", Fail, CodeSanctionsMatch)
	s.Data["sanctionsAboveRejectScore"] = true
	if res := apply(p, kyc.Sandbox, []Signal{s}); res.Outcome != Reject {
		t.Errorf("strong sanctions match: %s", res.Outcome)
	}
	// Ignored codes do not count.
	p.Actions[CodeImageBlurry] = ActIgnore
	if res := apply(p, kyc.Sandbox, []Signal{sig("a", Warn, CodeImageBlurry)}); res.RiskScore != 0 || res.Outcome != Approve {
		t.Errorf("ignored code: %+v", res)
	}
}

// TestApplyDeterministic: the same signals and policy give the same
// result, byte for byte.
func TestApplyDeterministic(t *testing.T) {
	signals := []Signal{sig("a", Warn, CodeImageBlurry, CodeImageGlare), sig("b", Fail, CodePEPMatch), sig("c", Pass)}
	first, _ := json.Marshal(apply(DefaultPolicy(), kyc.Sandbox, signals))
	for i := 0; i < 20; i++ {
		again, _ := json.Marshal(apply(DefaultPolicy(), kyc.Sandbox, signals))
		if string(again) != string(first) {
			t.Fatalf("run %d differs:\n%s\n%s", i, first, again)
		}
	}
}
