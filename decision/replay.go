package decision

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"kycd/kyc"
)

// ErrNotReplayable: the processing result holds no automated signals to
// decide again (the manual engine ran, or nothing was recorded).
var ErrNotReplayable = errors.New("no automated signals were recorded")

// Replay decides a request again under policy p from the signals its
// processing result recorded, without running any check again: no image
// is decoded, no list screened, no clock read. It is what a policy dry run
// shows: the same request, the same evidence, another policy.
//
// Most of a policy only maps findings to actions and weights, which apply
// to the recorded findings as they are. The few settings that decide
// whether a finding exists at all are applied again to the measurement
// the signal recorded beside it: the minimum age (document_data's age,
// as it was on the day of the decision), the country comparison
// (data_consistency, from the MRZ document_data recorded and the
// applicant's country country_risk recorded), the sanctions reject score
// (aml_screening's top sanctions score), the requests per address
// (capture_integrity's count) and the high-risk countries (country_risk's
// countries). A signal recorded without its measurement keeps its
// findings as they were.
//
// Sandbox test triggers are not applied: the result is what the policy
// decides, which is what live would do.
func Replay(p *Policy, processing map[string]any) (Result, error) {
	if processing == nil || processing["automatedChecks"] != true {
		return Result{}, ErrNotReplayable
	}
	raw, err := json.Marshal(processing["signals"])
	if err != nil {
		return Result{}, fmt.Errorf("replay: %w", err)
	}
	var signals []Signal
	if err := json.Unmarshal(raw, &signals); err != nil {
		return Result{}, fmt.Errorf("replay: recorded signals: %w", err)
	}
	if len(signals) == 0 {
		return Result{}, ErrNotReplayable
	}
	for i := range signals {
		if signals[i].Data == nil {
			signals[i].Data = map[string]any{}
		}
	}
	mrz, country := recordedDocument(signals)
	for i := range signals {
		s := &signals[i]
		if s.Status == NotRun {
			continue
		}
		switch s.Name {
		case SigDocumentData:
			if age, ok := number(s.Data["age"]); ok {
				dropFindings(s, CodeUnderAge)
				underAge(s, int(age), p.MinimumAge, recordedBasis(s.Data["dateOfBirthSource"]))
			}
		case SigDataConsistency:
			if mrz != nil && hasComparison(s, "country") {
				dropFindings(s, CodeNationalityMismatch)
				if _, mismatch := compareCountry(p, country, mrz); mismatch != "" {
					s.add(Warn, 0.7, CodeNationalityMismatch, mismatch)
				}
			}
		case SigAMLScreening:
			if top, ok := number(s.Data["sanctionsTopScore"]); ok {
				setSanctionsReject(s, top, p.SanctionsRejectScore)
			}
		case SigCaptureIntegrity:
			if n, ok := number(s.Data["requestsFromIp24h"]); ok {
				dropFindings(s, CodeManyAttemptsFromIP)
				manyAttempts(s, int(n), p.MaxRequestsPerIP)
			}
		case SigCountryRisk:
			if cs, ok := s.Data["countries"].(map[string]any); ok {
				countries := map[string]string{}
				for role, v := range cs {
					if c, ok := v.(string); ok {
						countries[role] = c
					}
				}
				*s = CountryRisk(p, countries)
			}
		}
	}
	return apply(p, kyc.Live, signals), nil
}

// recordedDocument is the MRZ document_data recorded (nil when none was
// read) and the applicant's country country_risk recorded.
func recordedDocument(signals []Signal) (*MRZData, *string) {
	var mrz *MRZData
	var country *string
	for _, s := range signals {
		switch s.Name {
		case SigDocumentData:
			if m, ok := s.Data["mrz"]; ok && m != nil {
				b, err := json.Marshal(m)
				if err != nil {
					continue
				}
				var d MRZData
				if json.Unmarshal(b, &d) == nil {
					mrz = &d
				}
			}
		case SigCountryRisk:
			if cs, ok := s.Data["countries"].(map[string]any); ok {
				if c, ok := cs[applicantCountryRole].(string); ok && c != "" {
					country = &c
				}
			}
		}
	}
	return mrz, country
}

// applicantCountryRole is the applicant's country in country_risk's data.
const applicantCountryRole = "applicant's country"

func hasComparison(s *Signal, field string) bool {
	list, _ := s.Data["comparisons"].([]any)
	return slices.ContainsFunc(list, func(v any) bool {
		m, _ := v.(map[string]any)
		return m["field"] == field
	})
}

// dropFindings removes the findings with code. A signal left without
// findings passes; otherwise it keeps its status (the dry run shows
// outcomes, reasons and risk, which the findings alone decide).
func dropFindings(s *Signal, code string) {
	kept := s.Findings[:0]
	for _, f := range s.Findings {
		if f.Code != code {
			kept = append(kept, f)
		}
	}
	s.Findings = kept
	if len(kept) == 0 && s.Status != NotRun {
		s.Status, s.Score = Pass, 1
	}
}

// recordedBasis is what a recorded date rests on ("" when kycd read it
// from the document). A result recorded before the source was kept
// counts as read, as it was decided then.
func recordedBasis(v any) string {
	if src, _ := v.(string); src == Typed || src == Record {
		return src
	}
	return ""
}

// number reads a recorded JSON number.
func number(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}
