package decision

import (
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/mrz/ocr"
	"kycd/store"
)

// TestUnverifiedFindingsReview: only what kycd read from the document (or
// observed itself) may reject. A finding that rests on details the
// applicant typed, on the applicant record or on what the applicant's
// page said sends to review and says so, under the default policy and
// under one that rejects every code. The case: a live request
// rejected "The document expired on 2006-04-12" on a date only the
// applicant typed.
func TestUnverifiedFindingsReview(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	anna := &kyc.Applicant{FirstName: "Anna Maria", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("SE")}
	child := &kyc.Applicant{FirstName: "Anna Maria", LastName: "Eriksson", DOB: ptr("2015-01-01"), Country: ptr("SE")}
	typedOld := &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "SE", DocumentNumber: "L898902C3", ExpiryDate: "2006-04-12"}
	typedOK := &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "SE", DocumentNumber: "L898902C3", ExpiryDate: "2031-04-15"}
	typedOther := &kyc.DocumentData{DocumentType: "passport", IssuingCountry: "SE", DocumentNumber: "X0000001", ExpiryDate: "2031-04-15"}
	unread := []DocumentRead{{CaptureID: "cap_1", Result: &ocr.Result{Status: ocr.StatusUnreadable, Hint: ocr.HintGlare}}}
	read := []DocumentRead{{CaptureID: "cap_1", Result: readOf(t, specimenTD3)}} // expires 2012-04-15
	valid := time.Date(2011, 6, 1, 0, 0, 0, 0, time.UTC)                         // the specimen is valid then

	strict := DefaultPolicy()
	for _, c := range AllCodes {
		strict.Actions[c] = ActReject
	}
	for _, tt := range []struct {
		name string
		// signals builds the signals under policy p.
		signals func(p *Policy) []Signal
		code    string
		basis   string  // "" when kycd read or observed what the finding rests on
		want    Outcome // under both policies, for the code's reason
	}{
		{"expiry only typed (the issue's case)", func(p *Policy) []Signal {
			s, _ := DocumentDataSignal(typedOld, unread, anna, p.MinimumAge, at)
			return []Signal{s}
		}, CodeDocumentExpired, Typed, Review},
		{"expiry read from the MRZ", func(p *Policy) []Signal {
			s, _ := DocumentDataSignal(typedOK, read, anna, p.MinimumAge, at)
			return []Signal{s}
		}, CodeDocumentExpired, "", Reject},
		{"age from the applicant record", func(p *Policy) []Signal {
			s, _ := DocumentDataSignal(typedOK, unread, child, p.MinimumAge, at)
			return []Signal{s}
		}, CodeUnderAge, Record, Review},
		{"age from the MRZ's date of birth", func(p *Policy) []Signal {
			s, _ := DocumentDataSignal(typedOK, read, anna, p.MinimumAge, time.Date(1990, 6, 1, 0, 0, 0, 0, time.UTC))
			return []Signal{s}
		}, CodeUnderAge, "", Reject},
		{"typed number differs from the MRZ's", func(p *Policy) []Signal {
			_, parsed := DocumentDataSignal(typedOther, read, anna, p.MinimumAge, valid)
			return []Signal{DataConsistency(anna, typedOther, parsed, p)}
		}, CodeDocumentNumberDiffer, Typed, Review},
		{"the MRZ's name is not the applicant's", func(p *Policy) []Signal {
			_, parsed := DocumentDataSignal(typedOK, read, anna, p.MinimumAge, valid)
			bob := &kyc.Applicant{FirstName: "Bob", LastName: "Smith", DOB: ptr("1974-08-12")}
			return []Signal{DataConsistency(bob, typedOK, parsed, p)}
		}, CodeNameMismatch, "", Reject},
		{"duplicate of a typed document number", func(*Policy) []Signal {
			return []Signal{Duplicates([]store.Duplicate{{RequestID: "kyc_1", What: "document_number"}}, Typed)}
		}, CodeDuplicateDocument, Typed, Review},
		{"duplicate of a number read from the MRZ", func(*Policy) []Signal {
			return []Signal{Duplicates([]store.Duplicate{{RequestID: "kyc_1", What: "document_number"}}, "document_image")}
		}, CodeDuplicateDocument, "", Review}, // review by default; rejects under the strict policy (below)
		{"duplicate applicant details", func(*Policy) []Signal {
			return []Signal{Duplicates([]store.Duplicate{{RequestID: "kyc_1", What: "applicant_details"}}, "")}
		}, CodeDuplicateApplicant, Record, Review},
		{"high-risk country of the record", func(p *Policy) []Signal {
			return []Signal{CountryRisk(p, map[string]string{applicantCountryRole: "IR"})}
		}, CodeHighRiskCountry, Record, ""},
		{"high-risk issuing country typed", func(p *Policy) []Signal {
			return []Signal{CountryRisk(p, map[string]string{typedIssuingRole: "IR"})}
		}, CodeHighRiskCountry, Typed, ""},
		{"high-risk nationality read from the MRZ", func(p *Policy) []Signal {
			return []Signal{CountryRisk(p, map[string]string{readNationalityRole: "IR"})}
		}, CodeHighRiskCountry, "", ""},
		{"the page said it uploaded", func(p *Policy) []Signal {
			return []Signal{CaptureIntegrity([]kyc.Capture{{Kind: "selfie", Method: "upload", SourceSHA256: "a"}}, 1, p.MaxRequestsPerIP)}
		}, CodeUploadedNotCaptured, Browser, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, p := range []*Policy{DefaultPolicy(), strict} {
				strictRun := p == strict
				res := apply(p, kyc.Sandbox, tt.signals(p))
				var r *Reason
				for _, x := range res.Processing["reasons"].([]Reason) {
					if x.Code == tt.code {
						r = &x
						break
					}
				}
				if r == nil {
					t.Fatalf("strict %v: no %s reason in %v", strictRun, tt.code, res.Processing["reasons"])
				}
				if r.Unverified != tt.basis {
					t.Errorf("strict %v: %s rests on %q, want %q", strictRun, tt.code, r.Unverified, tt.basis)
				}
				wantAct := p.action(tt.code)
				if tt.basis != "" && wantAct == ActReject {
					wantAct = ActReview
				}
				if r.Action != wantAct {
					t.Errorf("strict %v: %s action %s, want %s", strictRun, tt.code, r.Action, wantAct)
				}
				if tt.basis != "" {
					// (A strict policy may still reject for another
					// finding, such as DOCUMENT_NOT_READ.)
					if r.Action == ActReject || (res.Outcome == Reject && res.Reason == r.Message) {
						t.Errorf("strict %v: rejected on unverified data: %s (%s)", strictRun, res.Outcome, res.Reason)
					}
					if !strings.Contains(r.Message, "a reviewer must check it") {
						t.Errorf("strict %v: message does not say what it rests on: %q", strictRun, r.Message)
					}
				}
				if tt.want != "" && !strictRun && res.Outcome != tt.want {
					t.Errorf("default policy: %s (%s), want %s", res.Outcome, res.Reason, tt.want)
				}
				if strictRun && tt.basis == "" && res.Outcome != Reject {
					t.Errorf("strict: what kycd read no longer rejects: %s (%s)", res.Outcome, res.Reason)
				}
			}
		})
	}
}

// TestReplayKeepsUnverifiedAge: a policy dry run re-applies the minimum
// age to the recorded age, and an age that rested on the applicant record
// still only reviews.
func TestReplayKeepsUnverifiedAge(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	teen := &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("2008-01-01")} // 18
	typed := &kyc.DocumentData{DocumentType: "driving_licence", IssuingCountry: "SE", DocumentNumber: "X1", ExpiryDate: "2031-01-01"}
	s, _ := DocumentDataSignal(typed, nil, teen, 18, at)
	res := apply(DefaultPolicy(), kyc.Sandbox, []Signal{s})
	p := DefaultPolicy()
	p.MinimumAge, p.Version = 21, "older"
	again, err := Replay(p, res.Processing)
	if err != nil {
		t.Fatal(err)
	}
	rs := again.Processing["reasons"].([]Reason)
	var under *Reason
	for i := range rs {
		if rs[i].Code == CodeUnderAge {
			under = &rs[i]
		}
	}
	if under == nil || under.Action != ActReview || under.Unverified != Record || again.Outcome != Review {
		t.Fatalf("replay under minimum age 21: %s, reasons %+v", again.Outcome, rs)
	}
}
