package decision

import (
	"fmt"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

// Signal names.
const (
	SigImageQuality     = "image_quality"
	SigFacePresence     = "face_presence"
	SigDocumentData     = "document_data"
	SigDataConsistency  = "data_consistency"
	SigAMLScreening     = "aml_screening"
	SigDuplicates       = "duplicates"
	SigCaptureIntegrity = "capture_integrity"
	SigCountryRisk      = "country_risk"
)

// newSignal starts a request-level signal that passes unless findings say
// otherwise.
func newSignal(name string) Signal {
	return Signal{Name: name, Status: Pass, Score: 1, Findings: []Finding{}, Data: map[string]any{}}
}

func notRun(name, why string) Signal {
	s := newSignal(name)
	s.Status, s.Score, s.Detail = NotRun, 0, why
	return s
}

// finish sets the status from the findings: fail when any finding is
// hard (its default action rejects), warn when there are others.
func (s *Signal) add(status Status, score float64, code, msg string) {
	s.Findings = append(s.Findings, Finding{Code: code, Message: msg})
	if status == Fail || (status == Warn && s.Status == Pass) {
		s.Status = status
	}
	if score < s.Score {
		s.Score = score
	}
}

// addUnverified adds a finding that rests on data kycd did not verify
// (basis: Typed, Record or Browser; with "" it is add). Such a finding is
// at most a warning whatever the code (a policy's reject becomes review
// in apply), and its message says what it rests on.
func (s *Signal) addUnverified(basis string, status Status, score float64, code, msg string) {
	if basis == "" {
		s.add(status, score, code, msg)
		return
	}
	s.add(Warn, score, code, msg+unverifiedNote[basis])
	s.Findings[len(s.Findings)-1].Unverified = basis
}

// AMLScreening turns the applicant's screening results into a signal: a
// hit on each list kind is a finding (the top score in Data), an error is
// SCREENING_FAILED (never a pass).
func AMLScreening(results []kyc.ListResult, sanctionsReject float64) Signal {
	s := newSignal(SigAMLScreening)
	codes := map[string]string{"sanctions": CodeSanctionsMatch, "pep": CodePEPMatch, "adverse_media": CodeAdverseMediaMatch}
	var notScreened []string
	for _, r := range results {
		switch r.Status {
		case kyc.ListNotScreened:
			// Switched off by the organization: an approval's reason
			// names it (approvalReason).
			notScreened = append(notScreened, r.CheckType)
		case kyc.ListError:
			msg := "The " + r.CheckType + " list could not be screened."
			if r.Error != nil {
				msg = *r.Error
			}
			s.add(Fail, 0, CodeScreeningFailed, msg)
		case kyc.ListHit:
			top := r.Matches[0]
			s.Data[r.CheckType+"TopScore"] = top.Score
			s.add(Fail, 1-top.Score, codes[r.CheckType], fmt.Sprintf("%s: %s (%s, score %.2f).", r.CheckType, top.MatchedName, top.Provider, top.Score))
			if r.CheckType == "sanctions" {
				setSanctionsReject(&s, top.Score, sanctionsReject)
			}
		}
	}
	s.Data["matchCount"] = countMatches(results)
	if len(notScreened) > 0 {
		s.Data["notScreened"] = notScreened
	}
	if len(s.Findings) == 0 {
		s.Detail = "No sanctions, PEP or adverse-media match."
	} else {
		s.Detail = s.Findings[0].Message
	}
	return s
}

// setSanctionsReject marks a sanctions match scoring at least the
// policy's reject score: the decision rejects it whatever the code's
// action.
func setSanctionsReject(s *Signal, top, rejectScore float64) {
	if top >= rejectScore {
		s.Data["sanctionsAboveRejectScore"] = true
	} else {
		delete(s.Data, "sanctionsAboveRejectScore")
	}
}

func countMatches(rs []kyc.ListResult) int {
	n := 0
	for _, r := range rs {
		n += r.MatchCount
	}
	return n
}

// Duplicates reports other applicants of the organization who used the
// same document, the same image, or the same details on an approved
// verification.
//
// numberSource says where the document number compared came from
// (Typed when no document was read): a duplicate of a typed number rests
// on what the applicant typed. A duplicate of details compares the
// applicant record.
func Duplicates(dups []store.Duplicate, numberSource string) Signal {
	s := newSignal(SigDuplicates)
	codes := map[string]string{"document_number": CodeDuplicateDocument, "image": CodeDuplicateImage, "applicant_details": CodeDuplicateApplicant}
	msgs := map[string]string{
		"document_number":   "The same document number was used by another applicant (request %s).",
		"image":             "The same image was submitted for another applicant (request %s).",
		"applicant_details": "Another applicant with the same name and date of birth was already approved (request %s).",
	}
	seen := map[string]bool{}
	list := make([]map[string]any, 0, len(dups))
	for _, d := range dups {
		list = append(list, map[string]any{"requestId": d.RequestID, "applicantId": d.ApplicantID, "status": d.Status, "what": d.What})
		if !seen[d.What] {
			seen[d.What] = true
			basis := ""
			switch {
			case d.What == "document_number" && numberSource == Typed:
				basis = Typed
			case d.What == "applicant_details":
				basis = Record
			}
			s.addUnverified(basis, Fail, 0, codes[d.What], fmt.Sprintf(msgs[d.What], d.RequestID))
		}
	}
	s.Data["duplicates"] = list
	if numberSource != "" {
		s.Data["documentNumberSource"] = numberSource
	}
	if len(s.Findings) == 0 {
		s.Detail = "No other applicant used this document, these images or these details."
	} else {
		s.Detail = s.Findings[0].Message
	}
	return s
}

// CaptureIntegrity looks at how the images were made: files the page says
// were chosen from the device instead of taken with the camera, editing
// software in the original metadata, one image used for two captures,
// and many requests from one address.
//
// The page's word is only believed against the applicant: "upload" is
// counted, "camera" proves nothing (a script can say it); whether the
// selfie is a live camera capture is selfie_liveness's question, decided
// from the server's own liveness session.
func CaptureIntegrity(caps []kyc.Capture, requestsFromIP, maxPerIP int) Signal {
	s := newSignal(SigCaptureIntegrity)
	uploads, bySource := 0, map[string]string{}
	for _, c := range caps {
		if clientMethod(c) == kyc.MethodUpload {
			uploads++
		}
		if sw, _ := c.Meta["software"].(string); sw != "" && editingSoftware(sw) {
			s.add(Fail, 0.2, CodeEditingSoftware, fmt.Sprintf("The %s image was saved by %s.", c.Kind, sw))
		}
		if other, ok := bySource[c.SourceSHA256]; ok {
			s.add(Fail, 0, CodeSameImageReused, fmt.Sprintf("The same image was used for the %s and the %s.", other, captureLabel(c)))
		}
		bySource[c.SourceSHA256] = captureLabel(c)
	}
	s.Data["uploads"], s.Data["captures"], s.Data["requestsFromIp24h"] = uploads, len(caps), requestsFromIP
	if uploads > 0 {
		s.addUnverified(Browser, Warn, 0.7, CodeUploadedNotCaptured, fmt.Sprintf("%d of %d images were uploaded files rather than camera captures, as the applicant's page reported.", uploads, len(caps)))
	}
	manyAttempts(&s, requestsFromIP, maxPerIP)
	if len(s.Findings) == 0 {
		s.Detail = "No image was chosen from files, no editing software, no reused image."
	} else {
		s.Detail = s.Findings[0].Message
	}
	return s
}

// manyAttempts adds MANY_ATTEMPTS_FROM_IP when more than maxPerIP
// verifications came from the address in 24 hours.
func manyAttempts(s *Signal, requestsFromIP, maxPerIP int) {
	if requestsFromIP > maxPerIP {
		s.add(Warn, 0.5, CodeManyAttemptsFromIP, fmt.Sprintf("%d verifications received images from this address in 24 hours.", requestsFromIP))
	}
}

// clientMethod is what the applicant's page said about how an image was
// made (camera or upload). A camera_challenge selfie was taken with the
// camera; older captures without the claim stored have it as Method.
func clientMethod(c kyc.Capture) string {
	if c.Method == kyc.MethodCameraChallenge {
		return "camera"
	}
	if m, ok := c.Meta["clientMethod"].(string); ok {
		return m
	}
	return c.Method
}

func captureLabel(c kyc.Capture) string {
	if c.Side != nil {
		return "document " + *c.Side
	}
	return c.Kind
}

// editingSoftware recognises image editors in EXIF Software tags; camera
// firmware and phone OS names are not editors.
func editingSoftware(sw string) bool {
	l := strings.ToLower(sw)
	for _, e := range []string{"photoshop", "gimp", "lightroom", "affinity", "pixelmator", "paint.net", "snapseed", "picsart", "canva", "facetune", "corel", "acdsee", "faceapp"} {
		if strings.Contains(l, e) {
			return true
		}
	}
	return false
}

// CountryRisk flags the applicant's country, the document's issuing
// country and nationality when the policy lists them as high-risk.
func CountryRisk(p *Policy, countries map[string]string) Signal {
	s := newSignal(SigCountryRisk)
	high := map[string]bool{}
	for _, c := range p.HighRiskCountries {
		high[c] = true
	}
	for _, role := range sortedKeys(countries) {
		c := countries[role]
		if c != "" && high[c] {
			s.addUnverified(countryBasis[role], Warn, 0.5, CodeHighRiskCountry, fmt.Sprintf("The %s (%s) is on the high-risk list.", role, c))
		}
	}
	s.Data["countries"], s.Data["listDate"] = countries, FATFDate
	if len(countries) == 0 {
		return notRun(SigCountryRisk, "No country is known for the applicant or the document.")
	}
	if len(s.Findings) == 0 {
		s.Detail = "No high-risk jurisdiction involved."
	} else {
		s.Detail = s.Findings[0].Message
	}
	return s
}

// countryBasis says what each country of country_risk rests on: the
// applicant record, the issuing country the applicant typed, or the
// nationality kycd read from the document's MRZ ("").
var countryBasis = map[string]string{applicantCountryRole: Record, typedIssuingRole: Typed, readNationalityRole: ""}

// The roles of country_risk's countries.
const (
	typedIssuingRole    = "document's issuing country"
	readNationalityRole = "nationality on the document"
)

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
