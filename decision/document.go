package decision

import (
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
	"kycd/mrz"
)

// MRZData is what the decision uses from a parsed MRZ.
type MRZData struct {
	Format         string `json:"format"`
	DocumentCode   string `json:"documentCode"`
	IssuingState   string `json:"issuingState"`
	Surname        string `json:"surname"`
	GivenNames     string `json:"givenNames"`
	DocumentNumber string `json:"documentNumber"`
	Nationality    string `json:"nationality"`
	NationalityISO string `json:"nationalityIso"`
	BirthDate      string `json:"birthDate"`
	Sex            string `json:"sex"`
	ExpiryDate     string `json:"expiryDate"`
	Valid          bool   `json:"checkDigitsValid"`
}

// mrzDocuments are the document types that carry an MRZ (ICAO 9303);
// driving licences mostly do not.
var mrzDocuments = map[string]bool{"passport": true, "id_card": true, "residence_permit": true}

// DocumentDataSignal checks the document details the applicant confirmed:
// the MRZ (parsed, every check digit verified), the expiry date, and the
// minimum age from the date of birth (the MRZ's, else the applicant's).
// It returns the parsed MRZ for the consistency signal (nil without one).
func DocumentDataSignal(doc *kyc.DocumentData, a *kyc.Applicant, minAge int, now time.Time) (Signal, *MRZData) {
	if doc == nil {
		return notRun(SigDocumentData, "The applicant did not confirm the document details."), nil
	}
	s := newSignal(SigDocumentData)
	s.Data["documentType"], s.Data["issuingCountry"] = doc.DocumentType, doc.IssuingCountry
	var parsed *MRZData
	expiry, dob := doc.ExpiryDate, ""
	if a.DOB != nil {
		dob = *a.DOB
	}
	switch {
	case strings.TrimSpace(doc.MRZ) != "":
		d, err := mrz.Parse(doc.MRZ, now)
		if err != nil {
			s.add(Fail, 0, CodeMRZInvalid, "The machine-readable zone could not be read: "+err.Error())
			break
		}
		parsed = &MRZData{Format: string(d.Format), DocumentCode: d.DocumentCode, IssuingState: d.IssuingState,
			Surname: d.Surname, GivenNames: d.GivenNames, DocumentNumber: d.DocumentNumber, Nationality: d.Nationality,
			BirthDate: d.BirthDate, Sex: d.Sex, ExpiryDate: d.ExpiryDate, Valid: d.Valid}
		parsed.NationalityISO = mrz.Alpha2(d.Nationality)
		// processingResult is stored in clear (document details are
		// encrypted at rest), so the number it records is masked.
		shown := *parsed
		shown.DocumentNumber = maskNumber(parsed.DocumentNumber)
		s.Data["mrz"] = shown
		checks := make([]map[string]any, 0, len(d.Checks))
		var failed []string
		for _, c := range d.Checks {
			checks = append(checks, map[string]any{"field": c.Field, "expected": string(c.Expected), "found": string(c.Found), "ok": c.OK})
			if !c.OK {
				failed = append(failed, c.Field)
			}
		}
		s.Data["checkDigits"] = checks
		if len(failed) > 0 {
			s.add(Fail, 0, CodeMRZChecksumFailed, "MRZ check digits do not verify: "+strings.Join(failed, ", ")+".")
		}
		if d.ExpiryDate != "" {
			expiry = d.ExpiryDate
		}
		if len(d.BirthDate) == 10 {
			dob = d.BirthDate
		}
	case mrzDocuments[doc.DocumentType]:
		s.add(Warn, 0.8, CodeMRZMissing, "No machine-readable zone was given, so the document's check digits could not be verified.")
	}
	s.Data["expiryDate"], s.Data["dateOfBirth"] = expiry, dob
	if t, ok := kyc.ParseDate(expiry); ok && t.Before(now.UTC().Truncate(24*time.Hour)) {
		s.add(Fail, 0, CodeDocumentExpired, fmt.Sprintf("The document expired on %s.", expiry))
	}
	if t, ok := kyc.ParseDate(dob); ok {
		age := ageOn(t, now)
		s.Data["age"] = age
		if age < minAge {
			s.add(Fail, 0, CodeUnderAge, fmt.Sprintf("The applicant is %d; the minimum age is %d.", age, minAge))
		}
	}
	if len(s.Findings) == 0 {
		s.Detail = "The document is valid and its check digits verify."
		if parsed == nil {
			s.Detail = "The document is valid (no MRZ to verify)."
		}
	} else {
		s.Detail = s.Findings[0].Message
	}
	return s, parsed
}

// ageOn is the age in whole years on day now of someone born on dob.
func ageOn(dob, now time.Time) int {
	y := now.Year() - dob.Year()
	if now.Month() < dob.Month() || (now.Month() == dob.Month() && now.Day() < dob.Day()) {
		y--
	}
	return y
}

// maskNumber keeps the last four characters of a document number.
func maskNumber(n string) string {
	if len(n) <= 4 {
		return strings.Repeat("*", len(n))
	}
	return strings.Repeat("*", len(n)-4) + n[len(n)-4:]
}
