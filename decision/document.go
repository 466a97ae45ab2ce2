package decision

import (
	"fmt"
	"strings"
	"time"

	"kycd/kyc"
	"kycd/mrz"
	"kycd/mrz/ocr"
)

// MRZData is what the decision uses from the MRZ read off the document.
type MRZData struct {
	Format         string `json:"format"`
	DocumentCode   string `json:"documentCode"`
	IssuingState   string `json:"issuingState"`
	Surname        string `json:"surname"`
	GivenNames     string `json:"givenNames"`
	DocumentNumber string `json:"documentNumber"`
	Nationality    string `json:"nationality"`
	NationalityISO string `json:"nationalityIso"`
	IssuingISO     string `json:"issuingStateIso"`
	BirthDate      string `json:"birthDate"`
	Sex            string `json:"sex"`
	ExpiryDate     string `json:"expiryDate"`
	Valid          bool   `json:"checkDigitsValid"`
	// Truncated: the name field is full, so the issuer may have cut the
	// name short.
	Truncated bool `json:"nameTruncated"`
}

// DocumentRead is what the engine read from one document capture: the
// MRZ (ocr.Read), or why it could not.
type DocumentRead struct {
	CaptureID string
	Result    *ocr.Result
	// Barcode is the PDF417 barcode read from the capture, for the
	// captures that may carry one (wantsBarcode); nil otherwise.
	Barcode *BarcodeRead
}

// mrzDocuments are the document types that carry an MRZ (ICAO 9303);
// driving licences mostly do not.
var mrzDocuments = map[string]bool{"passport": true, "id_card": true, "residence_permit": true}

// bestRead is the read the decision uses: a zone read with confidence
// (valid or not) before one that could not be read; nil when no capture
// showed a zone read with confidence.
func bestRead(reads []DocumentRead) *DocumentRead {
	var best *DocumentRead
	for i := range reads {
		r := &reads[i]
		if r.Result == nil || (r.Result.Status != ocr.StatusRead && r.Result.Status != ocr.StatusInvalid) {
			continue
		}
		if best == nil || (best.Result.Status == ocr.StatusInvalid && r.Result.Status == ocr.StatusRead) {
			best = r
		}
	}
	return best
}

// DocumentDataSignal checks what the document says, as the server read it
// from the document images: the MRZ, every check digit verified, the
// expiry date and the minimum age (from the MRZ's date of birth, else the
// applicant's). The details the applicant typed are evidence, never the
// source: when no image's MRZ could be read, the signal says so with
// DOCUMENT_NOT_READ (a reviewer must decide), and typed details can only
// add findings (a typed expiry date in the past), never clear them. It
// returns the MRZ for the consistency signal (nil when none was read).
func DocumentDataSignal(typed *kyc.DocumentData, reads []DocumentRead, a *kyc.Applicant, minAge int, now time.Time) (Signal, *MRZData) {
	if typed == nil && len(reads) == 0 {
		return notRun(SigDocumentData, "No document was submitted."), nil
	}
	s := newSignal(SigDocumentData)
	var summary []map[string]any
	for _, r := range reads {
		m := map[string]any{"captureId": r.CaptureID, "status": "not_run"}
		if r.Result != nil {
			m["status"], m["hint"] = r.Result.Status, r.Result.Hint
		}
		if r.Barcode != nil {
			m["barcode"] = r.Barcode.Status
		}
		if reading := readingOf(r); reading != nil {
			m["reading"] = reading
		}
		summary = append(summary, m)
	}
	s.Data["reads"] = summary
	if typed != nil {
		s.Data["documentType"], s.Data["issuingCountry"] = typed.DocumentType, typed.IssuingCountry
	}
	// Where the expiry date and the date of birth come from: "" when
	// kycd read them from the document's MRZ, else what they rest on.
	dob, dobBasis := "", ""
	if a.DOB != nil {
		dob, dobBasis = *a.DOB, Record
	}
	expiry, expiryBasis := "", ""
	var parsed *MRZData
	best := bestRead(reads)
	var code *DocumentRead
	if best == nil {
		code = bestBarcode(reads)
	}
	switch {
	case code != nil:
		// A driving licence or identity card read from its PDF417
		// barcode: the AAMVA header and field formats validated.
		s.Data["source"] = "document_image"
		s.Data["captureId"] = code.CaptureID
		parsed = barcodeData(code.Barcode.Card)
		shown := *parsed
		shown.DocumentNumber = maskNumber(parsed.DocumentNumber)
		s.Data["barcode"], s.Data["document"] = barcodeSummary(code), shown
		expiry, dob = parsed.ExpiryDate, parsed.BirthDate
	case best != nil && best.Result.Document == nil:
		s.Data["source"] = "document_image"
		s.Data["captureId"] = best.CaptureID
		s.add(Fail, 0, CodeMRZInvalid, "The machine-readable zone on the document does not follow ICAO 9303: "+strings.Join(best.Result.Failing, "; "))
	case best != nil:
		d := best.Result.Document
		s.Data["source"] = "document_image"
		s.Data["captureId"] = best.CaptureID
		s.Data["readConfidence"] = round3(best.Result.MinConfidence)
		parsed = &MRZData{Format: string(d.Format), DocumentCode: d.DocumentCode, IssuingState: d.IssuingState,
			Surname: d.Surname, GivenNames: d.GivenNames, DocumentNumber: d.DocumentNumber, Nationality: d.Nationality,
			NationalityISO: mrz.Alpha2(d.Nationality), IssuingISO: mrz.Alpha2(d.IssuingState),
			BirthDate: d.BirthDate, Sex: d.Sex, ExpiryDate: d.ExpiryDate, Valid: d.Valid, Truncated: d.TruncatedName()}
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
			s.add(Fail, 0, CodeMRZChecksumFailed, "The check digits of the document's machine-readable zone do not verify: "+strings.Join(failed, ", ")+".")
		}
		expiry = d.ExpiryDate
		if expiry == "" {
			s.add(Warn, 0.5, CodeDocumentNotRead, "The document's machine-readable zone gives no expiry date (a French identity card of 1994–2021): a reviewer must check it.")
		}
		if len(d.BirthDate) == 10 {
			dob, dobBasis = d.BirthDate, ""
		}
	default:
		s.Data["source"] = "typed"
		why := "no document image shows a machine-readable zone or a licence barcode"
		var hints []string
		for _, r := range reads {
			if r.Result != nil && r.Result.Status == ocr.StatusUnreadable {
				hints = append(hints, string(r.Result.Hint))
			}
		}
		if len(hints) > 0 {
			why = "the machine-readable zone could not be read with confidence (" + strings.Join(hints, ", ") + ")"
		}
		for _, r := range reads {
			if r.Barcode != nil && r.Barcode.Status == "invalid" {
				why = "the barcode on the document was read but is not a valid AAMVA DL/ID payload"
			}
		}
		if typed != nil && !mrzDocuments[typed.DocumentType] && why == "no document image shows a machine-readable zone or a licence barcode" {
			why = "no licence barcode could be read and a " + strings.ReplaceAll(typed.DocumentType, "_", " ") + " has no machine-readable zone"
		}
		s.add(Warn, 0.3, CodeDocumentNotRead, "Document data not read from the document: "+why+". The details the applicant typed are recorded, not verified.")
		if typed != nil {
			// Typed details may only add a finding, never clear one,
			// and a finding on them never rejects (addUnverified).
			expiry, expiryBasis = typed.ExpiryDate, Typed
		}
	}
	s.Data["expiryDate"], s.Data["dateOfBirth"] = expiry, dob
	s.Data["expiryDateSource"], s.Data["dateOfBirthSource"] = sourceName(expiry, expiryBasis), sourceName(dob, dobBasis)
	if t, ok := kyc.ParseDate(expiry); ok && t.Before(now.UTC().Truncate(24*time.Hour)) {
		s.addUnverified(expiryBasis, Fail, 0, CodeDocumentExpired, fmt.Sprintf("The document expired on %s.", expiry))
	}
	if t, ok := kyc.ParseDate(dob); ok {
		age := ageOn(t, now)
		s.Data["age"] = age
		underAge(&s, age, minAge, dobBasis)
	}
	if len(s.Findings) == 0 && code != nil {
		s.Detail = "The document's barcode (AAMVA DL/ID) was read from its image; its header and fields validate and it is valid."
	} else if len(s.Findings) == 0 {
		s.Detail = "The document's machine-readable zone was read from its image; it is valid and its check digits verify."
	} else {
		s.Detail = s.Findings[0].Message
	}
	return s, parsed
}

// underAge adds UNDER_AGE when age is below the policy's minimum; basis
// is what the date of birth rests on ("" when read from the MRZ).
func underAge(s *Signal, age, minAge int, basis string) {
	if age < minAge {
		s.addUnverified(basis, Fail, 0, CodeUnderAge, fmt.Sprintf("The applicant is %d; the minimum age is %d.", age, minAge))
	}
}

// sourceName is where a date of document_data came from, for its data:
// document_image, typed or applicant_record ("" without the date).
func sourceName(value, basis string) string {
	switch {
	case value == "":
		return ""
	case basis == "":
		return "document_image"
	}
	return basis
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
