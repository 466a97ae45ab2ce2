package decision

import (
	"strings"
	"testing"
	"time"

	"kycd/kyc"
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

func TestDocumentDataSignal(t *testing.T) {
	anna := &kyc.Applicant{FirstName: "Anna Maria", LastName: "Eriksson", DOB: ptr("1974-08-12")}
	for _, tt := range []struct {
		name  string
		doc   *kyc.DocumentData
		a     *kyc.Applicant
		want  string
		state Status
	}{
		{"no data", nil, anna, "", NotRun},
		{"valid, no MRZ on a driving licence", &kyc.DocumentData{DocumentType: "driving_licence", DocumentNumber: "X1", ExpiryDate: "2030-01-01"}, anna, "", Pass},
		{"passport without MRZ", &kyc.DocumentData{DocumentType: "passport", DocumentNumber: "X1", ExpiryDate: "2030-01-01"}, anna, CodeMRZMissing, Warn},
		{"expired", &kyc.DocumentData{DocumentType: "driving_licence", DocumentNumber: "X1", ExpiryDate: "2026-11-21"}, anna, CodeDocumentExpired, Fail},
		{"specimen MRZ: expiry from the MRZ", &kyc.DocumentData{DocumentType: "passport", DocumentNumber: "L898902C3", ExpiryDate: "2030-01-01", MRZ: specimenTD3}, anna, CodeDocumentExpired, Fail},
		{"bad check digit", &kyc.DocumentData{DocumentType: "passport", DocumentNumber: "L898902C3", ExpiryDate: "2030-01-01",
			MRZ: strings.Replace(specimenTD3, "L898902C36", "L898902C37", 1)}, anna, CodeMRZChecksumFailed + "," + CodeDocumentExpired, Fail},
		{"not an MRZ", &kyc.DocumentData{DocumentType: "passport", DocumentNumber: "X", ExpiryDate: "2030-01-01", MRZ: "HELLO"}, anna, CodeMRZInvalid, Fail},
		{"under age", &kyc.DocumentData{DocumentType: "driving_licence", DocumentNumber: "X1", ExpiryDate: "2030-01-01"},
			&kyc.Applicant{FirstName: "Kid", LastName: "Young", DOB: ptr("2009-11-23")}, CodeUnderAge, Fail},
		{"eighteen today", &kyc.DocumentData{DocumentType: "driving_licence", DocumentNumber: "X1", ExpiryDate: "2030-01-01"},
			&kyc.Applicant{FirstName: "Kid", LastName: "Young", DOB: ptr("2008-11-22")}, "", Pass},
	} {
		s, parsed := DocumentDataSignal(tt.doc, tt.a, 18, now)
		if codes(s) != tt.want || s.Status != tt.state {
			t.Errorf("%s: %s %q, want %s %q (%s)", tt.name, s.Status, codes(s), tt.state, tt.want, s.Detail)
		}
		if tt.doc != nil && tt.doc.MRZ == specimenTD3 && (parsed == nil || parsed.Surname != "ERIKSSON" || parsed.BirthDate != "1974-08-12" || !parsed.Valid) {
			t.Errorf("%s: parsed %+v", tt.name, parsed)
		}
	}
}

func TestDataConsistency(t *testing.T) {
	mrz := &MRZData{Surname: "ERIKSSON", GivenNames: "ANNA MARIA", BirthDate: "1974-08-12", NationalityISO: "SE", DocumentNumber: "L898902C3"}
	doc := &kyc.DocumentData{DocumentNumber: "l898902c3"}
	for _, tt := range []struct {
		name string
		a    *kyc.Applicant
		want string
	}{
		{"same person", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("SE")}, ""},
		{"diacritics and order", &kyc.Applicant{FirstName: "Ánna Maria", LastName: "Ériksson", DOB: ptr("1974-08-12")}, ""},
		{"Cyrillic record", &kyc.Applicant{FirstName: "Анна", LastName: "Эрикссон", DOB: ptr("1974-08-12")}, ""},
		{"no date of birth on the record", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson"}, CodeDataPartiallyCompared},
		{"another name", &kyc.Applicant{FirstName: "Peter", LastName: "Jansson", DOB: ptr("1974-08-12")}, CodeNameMismatch},
		{"another birthday", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1975-08-12")}, CodeDOBMismatch},
		{"another country", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("NO")}, CodeNationalityMismatch},
	} {
		if s := DataConsistency(tt.a, doc, mrz); codes(s) != tt.want {
			t.Errorf("%s: %q, want %q (%v)", tt.name, codes(s), tt.want, s.Data["nameSimilarity"])
		}
	}
	if s := DataConsistency(&kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1974-08-12")}, &kyc.DocumentData{DocumentNumber: "X123"}, mrz); codes(s) != CodeDocumentNumberDiffer {
		t.Errorf("typed number differs from the MRZ: %q", codes(s))
	}
	if s := DataConsistency(&kyc.Applicant{}, nil, nil); s.Status != NotRun {
		t.Errorf("nothing to compare: %s", s.Status)
	}
}

// TestDataConsistencyHonest: the signal passes only on a real comparison
// of the name and the date of birth; with nothing compared it is not_run
// (it used to pass with score 1 when only the typed document number was
// there), and with less compared it warns. Data says what was compared.
func TestDataConsistencyHonest(t *testing.T) {
	mrz := &MRZData{Surname: "ERIKSSON", GivenNames: "ANNA MARIA", BirthDate: "1974-08-12", NationalityISO: "SE", DocumentNumber: "L898902C3"}
	full := &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1974-08-12"), Country: ptr("SE")}
	typed := &kyc.DocumentData{DocumentType: "driving_licence", IssuingCountry: "SE", DocumentNumber: "L898902C3", ExpiryDate: "2031-01-01"}
	for _, tt := range []struct {
		name     string
		a        *kyc.Applicant
		doc      *kyc.DocumentData
		mrz      *MRZData
		status   Status
		compared string
	}{
		{"typed details only, no MRZ", full, typed, nil, NotRun, ""},
		{"nothing confirmed", full, nil, nil, NotRun, ""},
		{"MRZ without names, record without dob or country", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson"}, nil,
			&MRZData{BirthDate: "1974-08-12"}, NotRun, ""},
		{"name only", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson"}, nil, mrz, Warn, "name"},
		{"name, number, no dob", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", Country: ptr("SE")}, typed, mrz, Warn, "name,nationality,documentNumber"},
		{"MRZ without a full birth date", full, typed, &MRZData{Surname: "ERIKSSON", GivenNames: "ANNA", NationalityISO: "SE", DocumentNumber: "L898902C3"}, Warn, "name,nationality,documentNumber"},
		{"name and dob", &kyc.Applicant{FirstName: "Anna", LastName: "Eriksson", DOB: ptr("1974-08-12")}, nil, mrz, Pass, "name,dateOfBirth"},
		{"everything", full, typed, mrz, Pass, "name,dateOfBirth,nationality,documentNumber"},
	} {
		s := DataConsistency(tt.a, tt.doc, tt.mrz)
		got, _ := s.Data["compared"].([]string)
		if s.Status != tt.status || strings.Join(got, ",") != tt.compared {
			t.Errorf("%s: %s compared %q (%s), want %s %q", tt.name, s.Status, got, s.Detail, tt.status, tt.compared)
		}
		if s.Status == Pass && s.Score != 1 || s.Status == NotRun && s.Score != 0 || s.Status == Warn && s.Score >= 1 {
			t.Errorf("%s: %s with score %v", tt.name, s.Status, s.Score)
		}
		if s.Status == Warn && codes(s) != CodeDataPartiallyCompared {
			t.Errorf("%s: warn with codes %q", tt.name, codes(s))
		}
		if nc, _ := s.Data["notCompared"].(map[string]string); s.Status != Pass && len(nc) == 0 && tt.status != Pass {
			t.Errorf("%s: %s without saying what was not compared", tt.name, s.Status)
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
	if s := Duplicates([]store.Duplicate{{RequestID: "kyc_1", What: "image"}, {RequestID: "kyc_2", What: "image"}, {RequestID: "kyc_3", What: "document_number"}}); codes(s) != "DUPLICATE_IMAGE,DUPLICATE_DOCUMENT" {
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
	s, parsed := DocumentDataSignal(&kyc.DocumentData{DocumentType: "passport", DocumentNumber: "L898902C3", ExpiryDate: "2030-01-01", MRZ: specimenTD3},
		&kyc.Applicant{FirstName: "Anna", LastName: "Eriksson"}, 18, now)
	if got := s.Data["mrz"].(MRZData).DocumentNumber; got != "*****02C3" || parsed.DocumentNumber != "L898902C3" {
		t.Errorf("stored %q, parsed %q", got, parsed.DocumentNumber)
	}
}
