package decision

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"kycd/kyc"
)

// recordedCase is one request's inputs to the request-level signals, as
// the engine computes them.
type recordedCase struct {
	name string
	a    *kyc.Applicant
	// aml: the top sanctions and PEP scores (0: no hit).
	sanctions, pep float64
	fromIP         int
	caps           []kyc.Capture
}

// signalsUnder computes the case's signals under policy p, as Auto.Decide
// does on the specimen passport read from its image (while it was valid).
func (c recordedCase) signalsUnder(t testing.TB, p *Policy, at time.Time) []Signal {
	t.Helper()
	typed := &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "SE", DocumentNumber: "L898902C3", ExpiryDate: "2012-04-15"}
	// The specimen as a Swedish passport, so that the country comparison
	// has a country to compare (UTO is no country; nationality and
	// issuing state are outside the check digits).
	reads := []DocumentRead{{CaptureID: "cap_doc", Result: readOf(t, strings.ReplaceAll(specimenTD3, "UTO", "SWE"))}}
	doc, parsed := DocumentDataSignal(typed, reads, c.a, p.MinimumAge, at)
	var results []kyc.ListResult
	for _, l := range []struct {
		kind  string
		score float64
	}{{"sanctions", c.sanctions}, {"pep", c.pep}, {"adverse_media", 0}} {
		r := kyc.ListResult{CheckType: l.kind, Status: kyc.ListClear}
		if l.score > 0 {
			r.Status, r.MatchCount = kyc.ListHit, 1
			r.Matches = []kyc.MatchRecord{{MatchedName: "A Listed Name", Provider: "test list", Score: l.score}}
		}
		results = append(results, r)
	}
	return []Signal{doc, DataConsistency(c.a, typed, parsed, p), AMLScreening(results, p.SanctionsRejectScore), Duplicates(nil, ""),
		CaptureIntegrity(c.caps, c.fromIP, p.MaxRequestsPerIP), CountryRisk(p, countriesOf(c.a, typed, parsed)),
		// The selfie's signals as a live approval needs them (the floor).
		{Name: SigFaceMatch, Status: Pass, Score: 0.9, Findings: []Finding{}, Data: map[string]any{}},
		{Name: SigSelfieLiveness, Status: Pass, Score: 1, Findings: []Finding{}, Data: map[string]any{}},
		{Name: SigSelfieDocument, Status: Pass, Score: 1, Findings: []Finding{}, Data: map[string]any{}},
		// The document's authenticity signals, held (the floor).
		newSignal(SigDocumentCapture), newSignal(SigDocumentRendering), newSignal(SigDocumentRecapture),
		newSignal(SigDocumentLayout), newSignal(SigDocumentSpecimen), newSignal(SigPortraitReuse)}
}

// stored is a processing result as the database gives it back: through
// JSON, numbers as float64.
func stored(t testing.TB, processing map[string]any) map[string]any {
	t.Helper()
	b, err := json.Marshal(processing)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

type decided struct {
	Outcome    Outcome
	Risk, Conf float64
	Reason     string
	Reasons    []Reason
}

func decidedOf(t *testing.T, r Result) decided {
	t.Helper()
	var reasons []Reason
	b, _ := json.Marshal(r.Processing["reasons"])
	if err := json.Unmarshal(b, &reasons); err != nil {
		t.Fatal(err)
	}
	return decided{r.Outcome, r.RiskScore, r.Confidence, r.Reason, reasons}
}

// TestReplay: deciding again from what a decision recorded, under another
// policy, gives exactly what the engine decides when it computes the
// signals under that policy from the start — for every setting, including
// those that decide whether a finding exists (minimum age, country
// comparison, sanctions reject score, requests per address, high-risk
// countries) and not only how findings are weighed.
func TestReplay(t *testing.T) {
	at := time.Date(2011, 6, 1, 0, 0, 0, 0, time.UTC) // the specimen is valid
	anna := &kyc.Applicant{FirstName: "Anna Maria", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("SE")}
	annaDE := &kyc.Applicant{FirstName: "Anna Maria", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("DE")}
	annaIR := &kyc.Applicant{FirstName: "Anna Maria", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("IR")}
	upload := []kyc.Capture{{Kind: "document", Method: kyc.MethodUpload, SourceSHA256: "a"}, {Kind: "selfie", Method: kyc.MethodUpload, SourceSHA256: "b"}}
	cases := []recordedCase{
		{name: "clean", a: anna},
		{name: "other country", a: annaDE},
		{name: "high-risk country", a: annaIR},
		{name: "strong sanctions hit", a: anna, sanctions: 0.95},
		{name: "PEP hit", a: anna, pep: 0.9},
		{name: "many from one address, uploads", a: anna, fromIP: 7, caps: upload},
	}
	policies := map[string]func(p *Policy){
		"unchanged":                    func(*Policy) {},
		"minimum age 40":               func(p *Policy) { p.MinimumAge = 40 },
		"country not compared":         func(p *Policy) { p.MatchCountry = false },
		"sanctions reject at 0.9":      func(p *Policy) { p.SanctionsRejectScore = 0.9 },
		"ten per address":              func(p *Policy) { p.MaxRequestsPerIP = 10 },
		"three per address":            func(p *Policy) { p.MaxRequestsPerIP = 3 },
		"no high-risk countries":       func(p *Policy) { p.HighRiskCountries = nil },
		"Sweden high-risk":             func(p *Policy) { p.HighRiskCountries = []string{"SE"} },
		"PEP only warns":               func(p *Policy) { p.Actions[CodePEPMatch] = ActWarn; p.Weights[CodePEPMatch] = 45 },
		"nationality mismatch rejects": func(p *Policy) { p.Actions[CodeNationalityMismatch] = ActReject },
		"review from 20":               func(p *Policy) { p.ReviewRiskScore = 20 },
		"approval needs 0.99":          func(p *Policy) { p.ApproveConfidence = 0.99 },
	}
	outcomes := map[Outcome]bool{}
	for _, c := range cases {
		// Recorded under a policy with the opposite of every setting the
		// replay has to re-apply, so nothing can carry over by accident.
		then := DefaultPolicy()
		then.MinimumAge, then.MatchCountry, then.SanctionsRejectScore, then.MaxRequestsPerIP = 30, !then.MatchCountry, 0.99, 2
		then.HighRiskCountries = []string{"DE"}
		rec := stored(t, apply(then, kyc.Live, c.signalsUnder(t, then, at)).Processing)
		for name, change := range policies {
			p := DefaultPolicy()
			change(p)
			want := decidedOf(t, apply(p, kyc.Live, c.signalsUnder(t, p, at)))
			res, err := Replay(p, rec)
			if err != nil {
				t.Fatalf("%s / %s: %v", c.name, name, err)
			}
			if got := decidedOf(t, res); !reflect.DeepEqual(got, want) {
				t.Errorf("%s / %s:\nreplayed %+v\nwant     %+v", c.name, name, got, want)
			}
			outcomes[want.Outcome] = true
		}
	}
	if len(outcomes) != 3 {
		t.Errorf("the cases reach only %v: the table does not exercise every outcome", outcomes)
	}
}

// TestReplayNothingRecorded: a request the manual engine sent to review,
// or one without a processing result, cannot be decided again.
func TestReplayNothingRecorded(t *testing.T) {
	manual, _ := Manual{}.Decide(t.Context(), Input{})
	for _, proc := range []map[string]any{nil, stored(t, manual.Processing), {"automatedChecks": true, "signals": []any{}}} {
		if _, err := Replay(DefaultPolicy(), proc); err != ErrNotReplayable {
			t.Errorf("%v: %v", proc, err)
		}
	}
}

// BenchmarkReplay: one request decided again from its recorded processing
// result (a policy dry run does 2 × 50 of these).
func BenchmarkReplay(b *testing.B) {
	at := time.Date(2011, 6, 1, 0, 0, 0, 0, time.UTC)
	c := recordedCase{a: &kyc.Applicant{FirstName: "Anna Maria", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("DE")}, sanctions: 0.9, fromIP: 7}
	rec := stored(b, apply(DefaultPolicy(), kyc.Live, c.signalsUnder(b, DefaultPolicy(), at)).Processing)
	p := DefaultPolicy()
	p.MinimumAge = 21
	for b.Loop() {
		if _, err := Replay(p, rec); err != nil {
			b.Fatal(err)
		}
	}
}
