package portal

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

// maxDocumentBody bounds the document form. Its longest valid content is a
// 200-byte MRZ and a 30-character number; 16 KB leaves room for JSON
// escapes and a pasted MRZ with odd whitespace, and no more.
const maxDocumentBody = 16 << 10

// documentFields are the fields of the document form, as the page sends
// them and as kyc.DocumentData.Validate names them.
var documentFields = []string{"documentType", "issuingCountry", "documentNumber", "expiryDate", "mrz", "captureId"}

// documentResponse is the 200 answer to the document form: what was
// stored, without echoing the MRZ.
type documentResponse struct {
	DocumentType   string `json:"documentType"`
	IssuingCountry string `json:"issuingCountry"`
	DocumentNumber string `json:"documentNumber"`
	ExpiryDate     string `json:"expiryDate"`
	HasMRZ         bool   `json:"hasMrz"`
	// FromDocument: the number, expiry and MRZ were read from the
	// document photo by the server, not typed.
	FromDocument bool `json:"fromDocument"`
}

// handleDocumentSet handles "POST /portal/{token}/document": the document
// details the applicant confirms, as a JSON object of strings with the
// fields documentType, issuingCountry, documentNumber, expiryDate
// (YYYY-MM-DD) and the optional mrz (lines separated by line breaks). A
// later post replaces the earlier details. With captureId (a document
// photo of this verification), the applicant confirms what the server
// read from that photo: number, expiry and MRZ are taken from it, and a
// photo whose zone could not be read is a VALIDATION_ERROR on captureId.
//
// It answers 200 with the stored details; 400 VALIDATION_ERROR whose
// details name every invalid field; 413 for a body over 16 KB; 415 when
// the body is not application/json; 404 for an unknown link and 410 for
// one that cannot be used any more, as the other endpoints do.
func (p *portal) handleDocumentSet(w http.ResponseWriter, r *http.Request) error {
	// A dead link answers as such whatever the body says, so that the page
	// reloads into the link's state page instead of showing field errors.
	token, err := p.usableToken(r)
	if err != nil {
		return err
	}
	d, captureID, err := readDocumentForm(w, r)
	if err != nil {
		return err
	}
	if captureID != "" {
		// The applicant confirms what the server read from a photo: the
		// details come from that photo, whatever the page sent beside.
		if err := p.confirmFromRead(r.Context(), token, captureID, d); err != nil {
			return err
		}
	}
	// SetDocumentData validates too; checking first gives the applicant
	// the portal's own rule with the others, in words for them.
	if details := validateDocument(d); len(details) > 0 {
		return &kyc.Error{Code: kyc.EValidation, Details: details, Message: "error.details_invalid"}
	}
	err = p.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := p.svc.SetDocumentData(tx, token, d)
		return err
	})
	if err != nil {
		return err
	}
	p.writeJSON(w, r, http.StatusOK, documentResponse{DocumentType: d.DocumentType, IssuingCountry: d.IssuingCountry,
		DocumentNumber: d.DocumentNumber, ExpiryDate: d.ExpiryDate, HasMRZ: d.MRZ != "", FromDocument: captureID != ""})
	return nil
}

// readDocumentForm reads and tidies the document form. A body that is not
// a JSON object of known string fields is the page's mistake, reported
// with every offending field at once; the values themselves are left to
// validateDocument.
//
// Requiring application/json also means a plain HTML form on another site
// cannot send this request at all, even to a browser too old for
// CrossOriginProtection to recognise the cross-site post.
func readDocumentForm(w http.ResponseWriter, r *http.Request) (*kyc.DocumentData, string, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, "", &statusError{status: http.StatusUnsupportedMediaType, err: invalidDocumentForm(
			kyc.FieldError{Field: "body", Message: "must be application/json"})}
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxDocumentBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, "", &statusError{status: http.StatusRequestEntityTooLarge, err: &kyc.Error{Code: kyc.EValidation, Err: err,
				Message: "error.details_too_long",
				Details: []kyc.FieldError{{Field: "body", Message: "must be at most 16 KB"}}}}
		}
		return nil, "", &kyc.Error{Code: kyc.EValidation, Message: "error.details_incomplete",
			Details: []kyc.FieldError{{Field: "body", Message: "is not a complete JSON object"}}, Err: err}
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || raw == nil {
		return nil, "", invalidDocumentForm(kyc.FieldError{Field: "body", Message: "must be a JSON object"})
	}
	values := map[string]string{}
	var details []kyc.FieldError
	for name, v := range raw {
		var s string
		switch {
		case !slices.Contains(documentFields, name):
			details = append(details, kyc.FieldError{Field: name, Message: "is not a field of this form"})
		case json.Unmarshal(v, &s) != nil:
			details = append(details, kyc.FieldError{Field: name, Message: "must be a string"})
		default:
			values[name] = s
		}
	}
	if len(details) > 0 {
		// The map gave them in random order; the answer should not be.
		slices.SortFunc(details, func(a, b kyc.FieldError) int { return strings.Compare(a.Field, b.Field) })
		return nil, "", invalidDocumentForm(details...)
	}
	d := &kyc.DocumentData{
		DocumentType:   strings.TrimSpace(values["documentType"]),
		IssuingCountry: strings.TrimSpace(values["issuingCountry"]),
		DocumentNumber: strings.TrimSpace(values["documentNumber"]),
		ExpiryDate:     strings.TrimSpace(values["expiryDate"]),
		MRZ:            tidyMRZ(values["mrz"]),
	}
	return d, strings.TrimSpace(values["captureId"]), nil
}

// validateDocument is kyc.DocumentData.Validate plus the portal's rule
// that a document without an MRZ (a driving licence) comes without one:
// the page hides the field for it, and the engine would read anything
// sent as an ICAO MRZ and fail the document when it is not one. Each
// detail's message is a catalog key (localize translates it): a whole
// sentence for the applicant, shown under the field as it is.
func validateDocument(d *kyc.DocumentData) []kyc.FieldError {
	var details []kyc.FieldError
	for _, f := range d.Validate() {
		key := map[string]string{"documentType": "field.document_type", "issuingCountry": "field.issuing_country",
			"documentNumber": "field.document_number", "expiryDate": "field.expiry_date", "mrz": "field.mrz_characters"}[f.Field]
		if f.Field == "mrz" && len(d.MRZ) > 200 {
			key = "field.mrz_too_long" // the one other rule Validate has for it
		}
		if key != "" {
			f.Message = key
		}
		details = append(details, f)
	}
	i := slices.IndexFunc(documentTypes, func(t documentType) bool { return t.Value == d.DocumentType })
	if d.MRZ != "" && i >= 0 && !documentTypes[i].HasMRZ && !slices.ContainsFunc(details, func(f kyc.FieldError) bool { return f.Field == "mrz" }) {
		details = append(details, kyc.FieldError{Field: "mrz", Message: "field.mrz_none"})
	}
	return details
}

// tidyMRZ keeps the MRZ as typed (mrz.Parse is lenient about case and
// stray spaces) but with "\n" line breaks, whatever the browser or the
// clipboard used, no blank lines and no spaces around lines: a pasted
// TD3 then fits the 200 bytes kyc.DocumentData allows.
func tidyMRZ(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var lines []string
	for line := range strings.SplitSeq(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines, "\n")
}

// invalidDocumentForm is the VALIDATION_ERROR for a document form the page
// built wrongly: only a broken or stale page sends one.
func invalidDocumentForm(details ...kyc.FieldError) *kyc.Error {
	return &kyc.Error{Code: kyc.EValidation, Details: details, Message: "error.details_broken"}
}
