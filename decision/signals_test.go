package decision

import (
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/mrz"
	"kycd/mrz/ocr"
	"kycd/store"
)

func codes(s Signal) string {
	var cs []string
	for _, f := range s.Findings {
		cs = append(cs, f.Code)
	}
	return strings.Join(cs, ",")
}

func ptr[T any](v T) *T { return &v }

var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// The ICAO 9303 part 4 specimen: Anna Maria Eriksson, born 1974-08-12,
// passport L898902C3 expiring 2012-04-15.
const specimenTD3 = "P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10"

// readOf is what the reader returns for a photo whose MRZ is text.
func readOf(t testing.TB, text string) *ocr.Result {
	d, err := mrz.Parse(text, now)
	if err != nil {
		t.Fatal(err)
	}
	r := &ocr.Result{Status: ocr.StatusRead, Document: d, Lines: d.Lines, MinConfidence: 0.99}
	if !d.Valid {
		r.Status = ocr.StatusInvalid
	}
	return r
}

func TestDocumentDataSignal(t *testing.T) {
	anna := &kyc.Applicant{FirstName: "Anna Maria", LastName: "Eriksson", DOB: ptr("1974-08-12")}
	passport := &kyc.DocumentData{DocumentType: "passport", DocumentNumber: "L898902C3", ExpiryDate: "2031-04-15"}
	read := func(r *ocr.Result) []DocumentRead { return []DocumentRead{{CaptureID: "cap_1", Result: r}} }
	unreadable := read(&ocr.Result{Status: ocr.StatusUnreadable, Hint: ocr.HintGlare})
	bad := strings.Replace(specimenTD3, "L898902C36", "L898902C37", 1)
	for _, tt := range []struct {
		name  string
		doc   *kyc.DocumentData
		reads []DocumentRead
		a     *kyc.Applicant
		now   time.Time
		want  string
		state Status
	}{
		{"nothing submitted", nil, nil, anna, now, "", NotRun},
		{"driving licence: typed only", &kyc.DocumentData{DocumentType: "driving_licence", DocumentNumber: "X1", ExpiryDate: "2030-01-01"}, nil, anna, now, CodeDocumentNotRead, Warn},
		{"passport whose MRZ could not be read", passport, unreadable, anna, now, CodeDocumentNotRead, Warn},
		// A typed expiry in the past is a finding, but only a warning:
		// kycd did not read it (TestUnverifiedFindingsReview).
		{"typed expiry in the past still counts", &kyc.DocumentData{DocumentType: "passport", DocumentNumber: "X1", ExpiryDate: "2026-11-21"}, unreadable, anna, now,
			CodeDocumentNotRead + "," + CodeDocumentExpired, Warn},
		// The case: typed "expires 2031", the image says 2012.
		{"expiry from the image, not the typed one", passport, read(readOf(t, specimenTD3)), anna, now, CodeDocumentExpired, Fail},
		{"bad check digit", passport, read(readOf(t, bad)), anna, now, CodeMRZChecksumFailed + "," + CodeDocumentExpired, Fail},
		{"zone that breaks the grammar", passport, read(&ocr.Result{Status: ocr.StatusInvalid, Failing: []string{"format: line 2"}}), anna, now, CodeMRZInvalid, Fail},
		{"valid while it was valid", passport, read(readOf(t, specimenTD3)), anna, time.Date(2011, 6, 1, 0, 0, 0, 0, time.UTC), "", Pass},
		{"under age by the document's date of birth", passport, read(readOf(t, specimenTD3)), &kyc.Applicant{FirstName: "A", LastName: "E"},
			time.Date(1990, 6, 1, 0, 0, 0, 0, time.UTC), CodeUnderAge, Fail},
	} {
		s, parsed := DocumentDataSignal(tt.doc, tt.reads, tt.a, 18, tt.now)
		if codes(s) != tt.want || s.Status != tt.state {
			t.Errorf("%s: %s %q, want %s %q (%s)", tt.name, s.Status, codes(s), tt.state, tt.want, s.Detail)
		}
		if tt.want == CodeDocumentExpired && (parsed == nil || parsed.Surname != "ERIKSSON" || parsed.BirthDate != "1974-08-12" || !parsed.Valid || s.Data["source"] != "document_image") {
			t.Errorf("%s: parsed %+v, data %v", tt.name, parsed, s.Data)
		}
	}
}

func TestDataConsistency(t *testing.T) {
	mrzData := &MRZData{Surname: "ERIKSSON", GivenNames: "ANNA MARIA", BirthDate: "1974-08-12", Nationality: "SWE", NationalityISO: "SE", IssuingState: "SWE", IssuingISO: "SE", DocumentNumber: "L898902C3"}
	doc := &kyc.DocumentData{DocumentNumber: "l898902c3"}
	p := DefaultPolicy()
	for _, tt := range []struct {
		name string
		a    *kyc.Applicant
		d    *MRZData
		want string
	}{
		{"same person", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("SE")}, mrzData, ""},
		{"diacritics and order", &kyc.Applicant{FirstName: "Ánna Maria", LastName: "Ériksson", DOB: ptr("1974-08-12")}, mrzData, ""},
		{"Cyrillic record", &kyc.Applicant{FirstName: "Анна", LastName: "Эрикссон", DOB: ptr("1974-08-12")}, mrzData, ""},
		// The name alone: the date of birth was not compared (no pass).
		{"no date of birth on the record", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson"}, mrzData, CodeDataPartiallyCompared},
		// ICAO transliteration: Müller is MUELLER in the zone, Peña PENA.
		{"umlaut as AE", &kyc.Applicant{FirstName: "Jürgen", LastName: "Müller", DOB: ptr("1974-08-12")}, &MRZData{Surname: "MUELLER", GivenNames: "JUERGEN", BirthDate: "1974-08-12"}, ""},
		{"umlaut dropped", &kyc.Applicant{FirstName: "Jürgen", LastName: "Müller", DOB: ptr("1974-08-12")}, &MRZData{Surname: "MULLER", GivenNames: "JURGEN", BirthDate: "1974-08-12"}, ""},
		{"slashed o", &kyc.Applicant{FirstName: "Søren", LastName: "Ødegård", DOB: ptr("1974-08-12")}, &MRZData{Surname: "OEDEGAARD", GivenNames: "SOEREN", BirthDate: "1974-08-12"}, ""},
		{"eñe", &kyc.Applicant{FirstName: "Iñigo", LastName: "Peña", DOB: ptr("1974-08-12")}, &MRZData{Surname: "PENA", GivenNames: "INIGO", BirthDate: "1974-08-12"}, ""},
		{"name cut to fit the zone", &kyc.Applicant{FirstName: "Jodie Pippa Alexandra", LastName: "United Kingdom Twenty Six", DOB: ptr("1974-08-12")},
			&MRZData{Surname: "UNITED KINGDOM TWENTY SIX", GivenNames: "JODIE PIPPA A", Truncated: true, BirthDate: "1974-08-12"}, ""},
		{"another name", &kyc.Applicant{FirstName: "Bob", LastName: "Smith", DOB: ptr("1974-08-12")}, mrzData, CodeNameMismatch},
		{"another birthday", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1975-08-12")}, mrzData, CodeDOBMismatch},
		{"another country", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("NO")}, mrzData, CodeNationalityMismatch},
	} {
		s := DataConsistency(tt.a, doc, tt.d, p)
		if codes(s) != tt.want {
			t.Errorf("%s: %q, want %q (%v)", tt.name, codes(s), tt.want, s.Data["comparisons"])
		}
	}
	// Each part is reported, also what was not compared.
	s := DataConsistency(&kyc.Applicant{FirstName: "Anna", LastName: "Eriksson"}, nil, mrzData, p)
	cmp := s.Data["comparisons"].([]Comparison)
	if len(cmp) != 3 || cmp[0].Result != Match || cmp[1].Field != "dateOfBirth" || cmp[1].Result != NotCompared || cmp[2].Result != NotCompared {
		t.Errorf("comparisons: %+v", cmp)
	}
	off := DefaultPolicy()
	off.MatchCountry = false
	if s := DataConsistency(&kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("NO")}, nil, mrzData, off); codes(s) != "" {
		t.Errorf("country not compared by policy: %q", codes(s))
	}
	if s := DataConsistency(&kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1974-08-12")}, &kyc.DocumentData{DocumentNumber: "X123"}, mrzData, p); codes(s) != CodeDocumentNumberDiffer {
		t.Errorf("typed number differs from the MRZ: %q", codes(s))
	}
	if s := DataConsistency(&kyc.Applicant{}, doc, nil, p); s.Status != NotRun {
		t.Errorf("nothing read from the document: %s", s.Status)
	}
}

// TestDataConsistencyHonest: the signal passes only on a real comparison
// of the name and the date of birth with what was read from the document;
// with nothing read it is not_run (it used to pass with score 1 when only
// the typed document number was there), and when the date of birth could
// not be compared it warns DATA_PARTIALLY_COMPARED instead of passing.
func TestDataConsistencyHonest(t *testing.T) {
	p := DefaultPolicy()
	read := &MRZData{Surname: "ERIKSSON", GivenNames: "ANNA MARIA", BirthDate: "1974-08-12", Nationality: "SWE", NationalityISO: "SE", DocumentNumber: "L898902C3"}
	full := &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("SE")}
	typed := &kyc.DocumentData{DocumentType: "driving_licence", IssuingCountry: "SE", DocumentNumber: "L898902C3", ExpiryDate: "2031-01-01"}
	noDOB := &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", Country: ptr("SE")}
	partDOB := *read
	partDOB.BirthDate = ""
	for _, tt := range []struct {
		name   string
		a      *kyc.Applicant
		doc    *kyc.DocumentData
		mrz    *MRZData
		status Status
		dob    string // the dateOfBirth comparison's result ("" when not_run)
	}{
		{"typed details only, nothing read", full, typed, nil, NotRun, ""},
		{"nothing confirmed, nothing read", full, nil, nil, NotRun, ""},
		{"record without a date of birth", noDOB, typed, read, Warn, NotCompared},
		{"document without a full date of birth", full, typed, &partDOB, Warn, NotCompared},
		{"name and date of birth", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1974-08-12")}, nil, read, Pass, Match},
		{"everything", full, typed, read, Pass, Match},
	} {
		s := DataConsistency(tt.a, tt.doc, tt.mrz, p)
		dob := ""
		if cmp, ok := s.Data["comparisons"].([]Comparison); ok {
			for _, c := range cmp {
				if c.Field == "dateOfBirth" {
					dob = c.Result
				}
			}
		}
		if s.Status != tt.status || dob != tt.dob {
			t.Errorf("%s: %s, dateOfBirth %q (%s); want %s, %q", tt.name, s.Status, dob, s.Detail, tt.status, tt.dob)
		}
		if s.Status == Pass && s.Score != 1 || s.Status == NotRun && s.Score != 0 || s.Status == Warn && s.Score >= 1 {
			t.Errorf("%s: %s with score %v", tt.name, s.Status, s.Score)
		}
		if s.Status == Warn && codes(s) != CodeDataPartiallyCompared {
			t.Errorf("%s: warn with codes %q", tt.name, codes(s))
		}
	}
}

func TestAMLScreeningSignal(t *testing.T) {
	hit := kyc.ListResult{CheckType: "sanctions", Status: kyc.ListHit, MatchCount: 1, Matches: []kyc.MatchRecord{{MatchedName: "X", Score: 0.98, Provider: "UN"}}}
	pep := kyc.ListResult{CheckType: "pep", Status: kyc.ListHit, MatchCount: 1, Matches: []kyc.MatchRecord{{MatchedName: "Y", Score: 0.9}}}
	msg := "no list"
	failed := kyc.ListResult{CheckType: "adverse_media", Status: kyc.ListError, Error: &msg}
	clear := kyc.ListResult{CheckType: "pep", Status: kyc.ListClear}
	if s := AMLScreening([]kyc.ListResult{clear}, 0.97); s.Status != Pass || codes(s) != "" {
		t.Errorf("clear: %+v", s)
	}
	s := AMLScreening([]kyc.ListResult{hit, pep, failed}, 0.97)
	if codes(s) != "SANCTIONS_MATCH,PEP_MATCH,SCREENING_FAILED" || s.Data["sanctionsAboveRejectScore"] != true {
		t.Errorf("hits: %q %v", codes(s), s.Data)
	}
	if s := AMLScreening([]kyc.ListResult{hit}, 0.99); s.Data["sanctionsAboveRejectScore"] == true {
		t.Error("0.98 is below a 0.99 reject score")
	}
}

func TestDuplicatesCaptureIntegrityCountryRisk(t *testing.T) {
	if s := Duplicates([]store.Duplicate{{RequestID: "kyc_1", What: "image"}, {RequestID: "kyc_2", What: "image"}, {RequestID: "kyc_3", What: "document_number"}}, ""); codes(s) != "DUPLICATE_IMAGE,DUPLICATE_DOCUMENT" {
		t.Errorf("duplicates: %q", codes(s))
	}
	front := "front"
	caps := []kyc.Capture{
		{Kind: "document", Side: &front, Method: "camera", SourceSHA256: "a", Meta: map[string]any{"software": "Adobe Photoshop 25.0"}},
		{Kind: "selfie", Method: "upload", SourceSHA256: "a", Meta: map[string]any{"software": "iOS 17.1"}},
	}
	if s := CaptureIntegrity(caps, 9, 5); codes(s) != "EDITING_SOFTWARE,SAME_IMAGE_REUSED,UPLOADED_NOT_CAPTURED,MANY_ATTEMPTS_FROM_IP" {
		t.Errorf("integrity: %q", codes(s))
	}
	if s := CaptureIntegrity(caps[1:], 1, 5); codes(s) != "UPLOADED_NOT_CAPTURED" {
		t.Errorf("phone OS is not an editor: %q", codes(s))
	}
	p := DefaultPolicy()
	if s := CountryRisk(p, map[string]string{"applicant's country": "GB", "nationality on the document": "IR"}); codes(s) != "HIGH_RISK_COUNTRY" || s.Status != Warn {
		t.Errorf("country risk: %q", codes(s))
	}
	if s := CountryRisk(p, map[string]string{}); s.Status != NotRun {
		t.Errorf("no countries: %s", s.Status)
	}
}

// TestDocumentNumberMasked: processingResult is stored in clear, so the
// document number in the document_data signal is masked.
func TestDocumentNumberMasked(t *testing.T) {
	s, parsed := DocumentDataSignal(nil, []DocumentRead{{CaptureID: "cap_1", Result: readOf(t, specimenTD3)}},
		&kyc.Applicant{FirstName: "Anna", LastName: "Eriksson"}, 18, now)
	if got := s.Data["mrz"].(MRZData).DocumentNumber; got != "*****02C3" || parsed.DocumentNumber != "L898902C3" {
		t.Errorf("stored %q, parsed %q", got, parsed.DocumentNumber)
	}
}
