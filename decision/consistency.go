package decision

import (
	"fmt"
	"strings"

	"kycd/kyc"
	"kycd/mrz"
	"kycd/screening"
)

// NameMatchThreshold is the name similarity (screening.CompareNames) from
// which the document's name and the applicant's are the same person's.
const NameMatchThreshold = 0.82

// Comparison is one part of data_consistency: what the document says,
// what the applicant record says, and how they compared.
type Comparison struct {
	Field     string `json:"field"` // name, dateOfBirth, country, documentNumber
	Document  string `json:"document"`
	Applicant string `json:"applicant"`
	// Result is match, mismatch, or not_compared (Detail says why).
	Result string  `json:"result"`
	Score  float64 `json:"score,omitempty"` // name similarity
	Detail string  `json:"detail"`
}

// Comparison results.
const (
	Match       = "match"
	Mismatch    = "mismatch"
	NotCompared = "not_compared"
)

// DataConsistency compares what the document says — the MRZ read from its
// image — with the applicant record: the name through the screening
// matcher, in every form an issuer may print it (ICAO transliterations,
// accents dropped, a name cut short to fit the zone); the date of birth
// exactly; the nationality and issuing state with the applicant's country
// when the policy asks for it; and a typed document number with the MRZ's.
// Data.comparisons reports each part. Without an MRZ read from the
// document there is nothing the server knows the document says: the
// signal is not_run. It passes only when the name and the date of birth
// were both compared; when the date of birth could not be (none on the
// record, or only part of it on the document) it warns with
// DATA_PARTIALLY_COMPARED instead.
func DataConsistency(a *kyc.Applicant, typed *kyc.DocumentData, parsed *MRZData, p *Policy) Signal {
	if parsed == nil {
		return notRun(SigDataConsistency, "Document data not read from the document: there is nothing the document says to compare with the applicant.")
	}
	s := newSignal(SigDataConsistency)
	s.Data["source"] = "document_image"
	var cmp []Comparison

	c := compareName(a, parsed)
	cmp = append(cmp, c)
	s.Data["nameSimilarity"], s.Data["documentName"], s.Data["applicantName"] = c.Score, c.Document, c.Applicant
	if c.Result == Mismatch {
		s.add(Fail, c.Score, CodeNameMismatch, fmt.Sprintf("The name on the document (%s) does not match the applicant (%s): similarity %.2f.", c.Document, c.Applicant, c.Score))
	}

	c = Comparison{Field: "dateOfBirth", Document: parsed.BirthDate}
	switch {
	case a.DOB == nil:
		c.Result, c.Detail = NotCompared, "The applicant record has no date of birth."
	case len(parsed.BirthDate) != 10:
		c.Applicant = *a.DOB
		c.Result, c.Detail = NotCompared, "The document gives only part of the date of birth."
	case *a.DOB == parsed.BirthDate:
		c.Applicant, c.Result = *a.DOB, Match
	default:
		c.Applicant, c.Result = *a.DOB, Mismatch
		s.add(Fail, 0, CodeDOBMismatch, fmt.Sprintf("The date of birth on the document (%s) is not the applicant's (%s).", parsed.BirthDate, *a.DOB))
	}
	cmp = append(cmp, c)
	if c.Result == NotCompared {
		// The name and the date of birth are what make the document the
		// applicant's: with only the name compared, a pass would claim
		// more than was compared.
		s.add(Warn, 0.5, CodeDataPartiallyCompared, "Only the name was compared with the document; the date of birth was not: "+
			strings.ToLower(c.Detail[:1])+c.Detail[1:])
	}

	c, mismatch := compareCountry(p, a.Country, parsed)
	if mismatch != "" {
		s.add(Warn, 0.7, CodeNationalityMismatch, mismatch)
	}
	cmp = append(cmp, c)

	if typed != nil && typed.DocumentNumber != "" && parsed.DocumentNumber != "" {
		c = Comparison{Field: "documentNumber", Document: maskNumber(parsed.DocumentNumber), Applicant: maskNumber(kyc.NormalizeDocumentNumber(typed.DocumentNumber)), Result: Match,
			Detail: "The number the applicant typed."}
		if kyc.NormalizeDocumentNumber(typed.DocumentNumber) != kyc.NormalizeDocumentNumber(parsed.DocumentNumber) {
			c.Result = Mismatch
			// A typing error is not a forged document: it never rejects.
			s.addUnverified(Typed, Fail, 0, CodeDocumentNumberDiffer, "The document number typed does not match the one in the document's MRZ.")
		}
		cmp = append(cmp, c)
	}
	s.Data["comparisons"] = cmp
	var parts []string
	for _, c := range cmp {
		parts = append(parts, c.Field+" "+strings.ReplaceAll(c.Result, "_", " "))
	}
	if len(s.Findings) == 0 {
		s.Detail = "Compared with the MRZ read from the document: " + strings.Join(parts, ", ") + "."
	} else {
		s.Detail = s.Findings[0].Message
	}
	return s
}

// compareCountry compares the document's nationality and issuing state
// with the applicant's country, when the policy asks for it. mismatch is
// the NATIONALITY_MISMATCH message when neither is the country ("" when
// they agree or were not compared). A policy dry run calls it again with
// what the decision recorded.
func compareCountry(p *Policy, country *string, parsed *MRZData) (c Comparison, mismatch string) {
	c = Comparison{Field: "country", Document: strings.Trim(parsed.NationalityISO+" / "+parsed.IssuingISO, " /")}
	switch {
	case !p.MatchCountry:
		c.Result, c.Detail = NotCompared, "The policy does not compare the document's countries with the applicant's."
	case country == nil:
		c.Result, c.Detail = NotCompared, "The applicant record has no country."
	case parsed.NationalityISO == "" && parsed.IssuingISO == "":
		c.Applicant = *country
		c.Result, c.Detail = NotCompared, fmt.Sprintf("The document's codes (%s, %s) name no country.", parsed.Nationality, parsed.IssuingState)
	case *country == parsed.NationalityISO || *country == parsed.IssuingISO:
		c.Applicant, c.Result = *country, Match
		c.Detail = "Nationality or issuing state is the applicant's country."
	default:
		c.Applicant, c.Result = *country, Mismatch
		mismatch = fmt.Sprintf("Neither the document's nationality (%s) nor its issuing state (%s) is the applicant's country (%s).",
			parsed.Nationality, parsed.IssuingState, *country)
	}
	return c, mismatch
}

// compareName compares the applicant's name with the document's in every
// form an issuer may have printed it, keeping the best.
func compareName(a *kyc.Applicant, d *MRZData) Comparison {
	docName := strings.TrimSpace(d.GivenNames + " " + d.Surname)
	appName := strings.TrimSpace(a.FirstName + " " + a.LastName)
	c := Comparison{Field: "name", Document: docName, Applicant: appName}
	best, how := screening.CompareNames(appName, docName), "as written"
	firsts, lasts := mrz.NameForms(a.FirstName), mrz.NameForms(a.LastName)
	for _, f := range firsts {
		for _, l := range lasts {
			cand, label := f+" "+l, "ICAO transliteration"
			if d.Truncated {
				// The zone holds SURNAME<<GIVEN<NAMES cut to the field:
				// cut the applicant's the same way before comparing.
				cand, label = truncatedName(l, f, len(d.Surname)+len(d.GivenNames)+2), "ICAO transliteration, cut short as the document's"
			}
			if sim := screening.CompareNames(cand, docName); sim > best {
				best, how = sim, label
			}
		}
	}
	c.Score = round3(best)
	c.Result = Match
	if best < NameMatchThreshold {
		c.Result = Mismatch
	}
	c.Detail = fmt.Sprintf("Similarity %.2f (%s); %.2f needed.", best, how, NameMatchThreshold)
	return c
}

// truncatedName is "GIVEN NAMES SURNAME" from the MRZ field
// SURNAME<<GIVEN<NAMES cut to n characters.
func truncatedName(last, first string, n int) string {
	field := strings.ReplaceAll(last, " ", "<") + "<<" + strings.ReplaceAll(first, " ", "<")
	if len(field) > n {
		field = field[:n]
	}
	s, g, _ := strings.Cut(field, "<<")
	return strings.TrimSpace(strings.ReplaceAll(g, "<", " ") + " " + strings.ReplaceAll(s, "<", " "))
}
