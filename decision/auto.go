package decision

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // stored captures are JPEG or PNG
	_ "image/png"
	"sort"
	"sync"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// EngineVersion is recorded with every automated decision; change it when
// a signal or the decision rule changes what it computes.
const EngineVersion = "kycd-engine-1"

// ScreenFunc screens the applicant against the AML lists (the AML
// service's screener with the organization's threshold).
type ScreenFunc func(ctx context.Context, orgID string, env kyc.Environment, firstName, lastName string, dob, country *string) ([]kyc.ListResult, error)

// Auto is the automated engine: it computes every signal and applies the
// organization's policy. Sandbox requests run every signal too, but their
// outcome follows the sandbox triggers (see sandboxOutcome).
type Auto struct {
	Store  *store.Store
	Screen ScreenFunc
	// Policy returns the organization's policy (DefaultPolicy when it has
	// none).
	Policy func(ctx context.Context, orgID string) (*Policy, error)
	Now    func() time.Time
	// ImageSignals computes the per-image signals (quality, faces); nil
	// runs none, recorded as not_run.
	ImageSignals func(c kyc.Capture, img image.Image) []Signal
}

// Decide computes the signals and the decision for one submission.
func (e *Auto) Decide(ctx context.Context, in Input) (Result, error) {
	now := e.Now()
	pol := DefaultPolicy()
	if e.Policy != nil {
		p, err := e.Policy(ctx, in.Request.OrganizationID)
		if err != nil {
			return Result{}, fmt.Errorf("load policy: %w", err)
		}
		pol = p
	}
	r, a := in.Request, in.Applicant
	var signals []Signal

	// Images, in parallel: decoding and measuring are the slow part.
	imgSignals := make([][]Signal, len(in.Captures))
	var wg sync.WaitGroup
	for i, c := range in.Captures {
		wg.Add(1)
		go func() {
			defer wg.Done()
			imgSignals[i] = e.imageSignals(c)
		}()
	}

	docSig, parsed := DocumentDataSignal(r.DocumentData, a, pol.MinimumAge, now)
	signals = append(signals, docSig, DataConsistency(a, r.DocumentData, parsed))

	results, err := e.Screen(ctx, r.OrganizationID, r.Environment, a.FirstName, a.LastName, a.DOB, a.Country)
	if err != nil {
		wg.Wait()
		return Result{}, fmt.Errorf("screen applicant: %w", err)
	}
	signals = append(signals, AMLScreening(results, pol.SanctionsRejectScore))

	var hashes []string
	for _, c := range in.Captures {
		hashes = append(hashes, c.SourceSHA256, c.SHA256)
	}
	dups, err := e.Store.FindDuplicates(ctx, r, a, hashes)
	if err != nil {
		wg.Wait()
		return Result{}, err
	}
	signals = append(signals, Duplicates(dups))

	ipCount := 0
	for _, c := range in.Captures {
		n, err := e.Store.CountRequestsFromIP(ctx, r.OrganizationID, r.Environment, c.IP, now.Add(-24*time.Hour))
		if err != nil {
			wg.Wait()
			return Result{}, err
		}
		ipCount = max(ipCount, n)
	}
	signals = append(signals, CaptureIntegrity(in.Captures, ipCount, pol.MaxRequestsPerIP))
	signals = append(signals, CountryRisk(pol, countriesOf(a, r.DocumentData, parsed)))

	wg.Wait()
	for _, s := range imgSignals {
		signals = append(signals, s...)
	}
	res := apply(pol, signals)
	res.Screenings = results
	if r.Environment == kyc.Sandbox {
		if err := sandboxOutcome(&res, a, r); err != nil {
			return Result{}, err
		}
	}
	return res, nil
}

// imageSignals decodes one capture and runs the per-image signals.
func (e *Auto) imageSignals(c kyc.Capture) []Signal {
	if e.ImageSignals == nil {
		return []Signal{notRunImage(SigImageQuality, c, "Image signals are not configured.")}
	}
	img, _, err := image.Decode(bytes.NewReader(c.Data))
	if err != nil {
		// Stored images were decoded and re-encoded at upload, so this
		// means damage after the fact: say so, do not guess.
		return []Signal{notRunImage(SigImageQuality, c, "The stored image could not be decoded: "+err.Error())}
	}
	return e.ImageSignals(c, img)
}

func notRunImage(name string, c kyc.Capture, why string) Signal {
	s := notRun(name, why)
	s.CaptureID = c.ID
	return s
}

// countriesOf collects the countries the country-risk signal looks at.
func countriesOf(a *kyc.Applicant, doc *kyc.DocumentData, parsed *MRZData) map[string]string {
	m := map[string]string{}
	if a.Country != nil {
		m["applicant's country"] = *a.Country
	}
	if doc != nil && doc.IssuingCountry != "" {
		m["document's issuing country"] = doc.IssuingCountry
	}
	if parsed != nil && parsed.NationalityISO != "" {
		m["nationality on the document"] = parsed.NationalityISO
	}
	return m
}

// Reason is one finding as the decision used it.
type Reason struct {
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Signal  string  `json:"signal"`
	Action  Action  `json:"action"`
	Weight  float64 `json:"weight,omitempty"`
}

// apply turns signals into the decision: any reject finding rejects; else
// any review finding reviews; else the warn weights add up to the risk
// score (0–100) and reaching ReviewRiskScore reviews; approval also needs
// confidence ≥ ApproveConfidence, where confidence = (1 − risk/100) × the
// share of signals that ran.
func apply(p *Policy, signals []Signal) Result {
	var reasons []Reason
	risk := 0.0
	ran, total := 0, 0
	for _, s := range signals {
		total++
		if s.Status != NotRun {
			ran++
		}
		for _, f := range s.Findings {
			act := p.action(f.Code)
			if f.Code == CodeSanctionsMatch && s.Data["sanctionsAboveRejectScore"] == true {
				act = ActReject
			}
			if act == ActIgnore {
				continue
			}
			r := Reason{Code: f.Code, Message: f.Message, Signal: s.Name, Action: act}
			if act == ActWarn {
				r.Weight = p.Weights[f.Code]
				risk += r.Weight
			}
			reasons = append(reasons, r)
		}
	}
	risk = min(risk, 100)
	rank := map[Action]int{ActReject: 0, ActReview: 1, ActWarn: 2}
	sort.SliceStable(reasons, func(i, j int) bool {
		if rank[reasons[i].Action] != rank[reasons[j].Action] {
			return rank[reasons[i].Action] < rank[reasons[j].Action]
		}
		return reasons[i].Weight > reasons[j].Weight
	})
	coverage := 1.0
	if total > 0 {
		coverage = float64(ran) / float64(total)
	}
	confidence := round3((1 - risk/100) * coverage)
	out := Result{RiskScore: risk, Confidence: confidence}
	switch {
	case len(reasons) > 0 && reasons[0].Action == ActReject:
		out.Outcome, out.Reason, out.Confidence = Reject, reasons[0].Message, round3(coverage)
	case len(reasons) > 0 && reasons[0].Action == ActReview:
		out.Outcome, out.Reason = Review, reasons[0].Message
	case risk >= p.ReviewRiskScore:
		out.Outcome, out.Reason = Review, fmt.Sprintf("Risk score %.0f reaches the review level %.0f: %s", risk, p.ReviewRiskScore, reasons[0].Message)
	case confidence < p.ApproveConfidence:
		out.Outcome, out.Reason = Review, fmt.Sprintf("Confidence %.2f is below the %.2f an approval needs (%d of %d signals ran).", confidence, p.ApproveConfidence, ran, total)
	default:
		out.Outcome, out.Reason = Approve, "All checks passed."
	}
	if reasons == nil {
		reasons = []Reason{}
	}
	out.Processing = map[string]any{
		"engine": "auto", "engineVersion": EngineVersion, "policyVersion": p.Version, "automatedChecks": true,
		"signals": signals, "reasons": reasons, "riskScore": risk, "confidence": out.Confidence,
		"decision": out.Outcome, "signalsRun": ran, "signalsTotal": total,
	}
	return out
}
