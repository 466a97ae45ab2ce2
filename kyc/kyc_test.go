package kyc

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestCountryCodes(t *testing.T) {
	if n := len(countrySet); n != 250 {
		t.Fatalf("%d codes, want 249 ISO 3166-1 alpha-2 codes + XK", n)
	}
	for _, c := range []string{"GB", "DE", "US", "SS", "XK", "AX"} {
		if !ValidCountry(c) {
			t.Errorf("%s refused", c)
		}
	}
	for _, c := range []string{"UK", "EU", "ZZ", "gb", "G", "GBR", ""} {
		if ValidCountry(c) {
			t.Errorf("%s accepted", c)
		}
	}
}

func TestParseAPIKey(t *testing.T) {
	secret := strings.Repeat("aZ9", 14) + "x" // 43 base62 characters
	const id = "01JCXW6Y0Q4H3T2V5N7M8K9P0R"
	for _, tt := range []struct {
		token string
		ok    bool
		env   Environment
	}{
		{"svc_test_" + id + "." + secret, true, Sandbox},
		{"svc_live_" + id + "." + secret, true, Live},
		{"svc_prod_" + id + "." + secret, false, ""},
		{"svc_test_" + strings.ToLower(id) + "." + secret, false, ""},
		{"svc_test_" + id + "." + secret[:42], false, ""},
		{"svc_test_" + id + "." + secret + "x", false, ""},
		{"svc_test_" + id + "." + secret[:42] + "-", false, ""},
		{"svc_test_" + id + secret, false, ""},
		{"svc_test_8" + id[1:] + "." + secret, false, ""}, // overflows 128 bits
		{"", false, ""},
	} {
		k, ok := ParseAPIKey(tt.token)
		if ok != tt.ok || (ok && (k.Environment != tt.env || k.ID != id || k.Secret != secret)) {
			t.Errorf("ParseAPIKey(%q) = %+v, %v; want ok=%v env=%s", tt.token, k, ok, tt.ok, tt.env)
		}
	}
}

func TestClassifyID(t *testing.T) {
	for _, tt := range []struct {
		in    string
		kind  IDKind
		canon string
	}{
		{"app_01JCXW6Y0Q4H3T2V5N7M8K9P0R", IDInternal, "app_01JCXW6Y0Q4H3T2V5N7M8K9P0R"},
		{"app_7k3m9qz2xw4d", IDPublic, "app_7k3m9qz2xw4d"},
		{"app_7K3M9QZ2XW4D", IDPublic, "app_7k3m9qz2xw4d"},
		{"app_7k3m9qz2xw4u", IDInvalid, ""}, // u is not Crockford
		{"app_7k3m9qz2xw4", IDInvalid, ""},
		{"kyc_7k3m9qz2xw4d", IDInvalid, ""},
		{"app_01jcxw6y0q4h3t2v5n7m8k9p0r", IDInvalid, ""},
		{"app_", IDInvalid, ""},
	} {
		if kind, canon := ClassifyID("app_", tt.in); kind != tt.kind || canon != tt.canon {
			t.Errorf("ClassifyID(%q) = %v %q, want %v %q", tt.in, kind, canon, tt.kind, tt.canon)
		}
	}
}

func TestRequestsPerMinute(t *testing.T) {
	zero, ten := 0, 10
	for _, tt := range []struct {
		key  APIKey
		want int
	}{
		{APIKey{Environment: Sandbox, Tier: TierPro}, 60},
		{APIKey{Environment: Live, Tier: TierFree}, 60},
		{APIKey{Environment: Live, Tier: TierStarter}, 300},
		{APIKey{Environment: Live, Tier: TierPro}, 1000},
		{APIKey{Environment: Live, Tier: TierPro, RPMOverride: &ten}, 10},
		{APIKey{Environment: Sandbox, RPMOverride: &zero}, 0},
	} {
		if got := tt.key.RequestsPerMinute(); got != tt.want {
			t.Errorf("%+v: %d, want %d", tt.key, got, tt.want)
		}
	}
}

func TestApplicantValidateUpdate(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	s := func(v string) *string { return &v }
	// Nothing given is a valid update, not a valid create.
	if errs := (&ApplicantInput{}).Validate(false, now, ""); len(errs) != 0 {
		t.Errorf("empty update: %v", errs)
	}
	if errs := (&ApplicantInput{}).Validate(true, now, "applicant."); len(errs) != 2 || errs[0].Field != "applicant.firstName" {
		t.Errorf("empty create: %v", errs)
	}
	// "" clears optional fields but not required ones.
	errs := (&ApplicantInput{Email: s(""), Phone: s(""), DOB: s(""), Country: s(""), ExternalRef: s(""), FirstName: s("")}).Validate(false, now, "")
	if len(errs) != 1 || errs[0].Field != "firstName" {
		t.Errorf("clearing: %v", errs)
	}
	if errs := (&ApplicantInput{DOB: s("2026-06-01")}).Validate(false, now, ""); len(errs) != 1 {
		t.Errorf("today as dob accepted")
	}
	if errs := (&ApplicantInput{DOB: s("2024-02-29")}).Validate(false, now, ""); len(errs) != 0 {
		t.Errorf("leap day refused: %v", errs)
	}
}

func FuzzParseAPIKey(f *testing.F) {
	f.Add("svc_test_01JCXW6Y0Q4H3T2V5N7M8K9P0R." + strings.Repeat("a", 43))
	f.Add("svc_live_.")
	f.Fuzz(func(t *testing.T, token string) {
		k, ok := ParseAPIKey(token)
		if ok && (KeyPrefix(k.Environment)+k.ID+"."+k.Secret != token) {
			t.Fatalf("parsed %q into %+v, which does not re-form the token", token, k)
		}
	})
}

func FuzzClassifyID(f *testing.F) {
	f.Add("app_01JCXW6Y0Q4H3T2V5N7M8K9P0R")
	f.Add("app_7k3m9qz2xw4d")
	f.Fuzz(func(t *testing.T, s string) {
		kind, canon := ClassifyID("app_", s)
		if kind != IDInvalid && !strings.EqualFold(canon, s) {
			t.Fatalf("ClassifyID(%q) canon %q", s, canon)
		}
		if kind == IDInvalid && canon != "" {
			t.Fatalf("invalid with canon %q", canon)
		}
	})
}

// TestRollUp is the roll-up table of spec §3.2 with the precedence kycd
// chose: hit > error > clear.
func TestRollUp(t *testing.T) {
	clear := ListResult{Status: ListClear, RiskLevel: Risk(RiskLow)}
	hit := func(l RiskLevel, n int) ListResult {
		return ListResult{Status: ListHit, RiskLevel: Risk(l), MatchCount: n}
	}
	failed := ListResult{Status: ListError}
	for _, tt := range []struct {
		name    string
		results []ListResult
		status  AMLStatus
		risk    RiskLevel // "" for nil
		count   int
	}{
		{"all clear", []ListResult{clear, clear, clear}, AMLNoMatch, "", 0},
		{"one hit", []ListResult{clear, hit(RiskMedium, 2), clear}, AMLPotentialMatch, RiskMedium, 2},
		{"highest risk wins", []ListResult{hit(RiskHigh, 1), hit(RiskMedium, 3), clear}, AMLPotentialMatch, RiskHigh, 4},
		{"error, no hit", []ListResult{clear, failed, clear}, AMLFailed, "", 0},
		{"hit beats error", []ListResult{failed, hit(RiskMedium, 1), clear}, AMLPotentialMatch, RiskMedium, 1},
		{"nothing screened", nil, AMLNoMatch, "", 0},
	} {
		st, risk, n := RollUp(tt.results)
		got := RiskLevel("")
		if risk != nil {
			got = *risk
		}
		if st != tt.status || got != tt.risk || n != tt.count {
			t.Errorf("%s: %s %q %d, want %s %q %d", tt.name, st, got, n, tt.status, tt.risk, tt.count)
		}
	}
}

// TestListResultErrorRiskNull: a list that could not be screened has no
// risk level (null), also when it was stored by a kycd that wrote "low".
func TestListResultErrorRiskNull(t *testing.T) {
	var r ListResult
	if err := json.Unmarshal([]byte(`{"checkType":"pep","status":"error","riskLevel":"low","matchCount":0,"error":"no pep list"}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.RiskLevel != nil {
		t.Fatalf("stored error result: riskLevel %q, want null", *r.RiskLevel)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"riskLevel":null`) {
		t.Fatalf("error result encodes as %s, want riskLevel null", b)
	}
	if err := json.Unmarshal([]byte(`{"checkType":"pep","status":"clear","riskLevel":"low"}`), &r); err != nil || r.RiskLevel == nil || *r.RiskLevel != RiskLow {
		t.Fatalf("clear result: %v %v, want low", r.RiskLevel, err)
	}
}
