package portal

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg" // stored captures are JPEG or PNG
	_ "image/png"
	"slices"
	"strings"
	"time"

	"kycd/kyc"
	"kycd/mrz"
	"kycd/mrz/ocr"
)

// mrzView is what the page learns of the machine-readable zone the server
// read from a document photo: the details to show the applicant for
// confirmation, or why it could not read them and what to do.
type mrzView struct {
	// Status: read (every check digit holds), invalid (read, but the zone
	// fails its own checks), unreadable (a zone, not read with
	// confidence), not_found.
	Status string `json:"status"`
	// Hint is ocr's retake hint (blurry, glare, cut_off, too_small,
	// unclear, no_zone) and Message says it to the applicant.
	Hint           string `json:"hint,omitempty"`
	Message        string `json:"message,omitempty"`
	Surname        string `json:"surname,omitempty"`
	GivenNames     string `json:"givenNames,omitempty"`
	DocumentNumber string `json:"documentNumber,omitempty"`
	BirthDate      string `json:"birthDate,omitempty"`
	ExpiryDate     string `json:"expiryDate,omitempty"`
	Nationality    string `json:"nationality,omitempty"`
}

// hintMessages are the retake hints in the applicant's words.
var hintMessages = map[ocr.Hint]string{
	ocr.HintNoZone:   "We could not find the 2 or 3 lines of <<< on this photo. Photograph the side that has them: the photo page of a passport, usually the back of a card.",
	ocr.HintBlurry:   "The photo is too blurry to read the lines at the bottom. Hold the camera still and let it focus.",
	ocr.HintGlare:    "Light reflects on the lines at the bottom. Tilt the document away from the light.",
	ocr.HintCutOff:   "The lines at the bottom are cut off. Move back so that the whole document fits in the frame.",
	ocr.HintTooSmall: "The lines at the bottom are too small to read. Move closer so that the document fills the frame.",
	ocr.HintUnclear:  "Some characters of the lines at the bottom are unclear. Retake the photo in good, even light.",
}

// readDocument reads the MRZ of a stored document photo.
func readDocument(data []byte, now time.Time) (*ocr.Result, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return ocr.Read(img, now)
}

// viewOf is the page's view of a read.
func viewOf(r *ocr.Result) *mrzView {
	v := &mrzView{Status: string(r.Status), Hint: string(r.Hint), Message: hintMessages[r.Hint]}
	if d := r.Document; d != nil && (r.Status == ocr.StatusRead || r.Status == ocr.StatusInvalid) {
		v.Surname, v.GivenNames, v.DocumentNumber, v.BirthDate, v.ExpiryDate, v.Nationality =
			d.Surname, d.GivenNames, d.DocumentNumber, d.BirthDate, d.ExpiryDate, d.Nationality
		if r.Status == ocr.StatusInvalid {
			v.Message = "The lines at the bottom were read, but they do not pass their own checks. Check that this is your document; if it is, retake the photo."
		}
	} else if r.Status == ocr.StatusInvalid {
		// Read, but not an MRZ the server understands: to the page, as
		// unreadable.
		v.Status, v.Hint, v.Message = string(ocr.StatusUnreadable), string(ocr.HintUnclear), hintMessages[ocr.HintUnclear]
	}
	return v
}

// confirmFromRead fills d from the MRZ read off the request's document
// capture captureID: the number, the expiry and the zone itself come from
// the photo, never from the page. It returns a field error (on captureId)
// when that capture is not the request's or its zone was not read.
func (p *portal) confirmFromRead(ctx context.Context, token, captureID string, d *kyc.DocumentData) error {
	r, _, err := p.svc.PortalState(ctx, token)
	if err != nil {
		return err
	}
	caps, err := p.store.FindCaptures(ctx, r.ID, "document")
	if err != nil {
		return err
	}
	bad := func(msg string) error {
		return &kyc.Error{Code: kyc.EValidation, Message: msg, Details: []kyc.FieldError{{Field: "captureId", Message: msg}}}
	}
	if !slices.ContainsFunc(caps, func(c kyc.Capture) bool { return c.ID == captureID }) {
		return bad("is not a photo of this verification's document")
	}
	c, err := p.store.FindCaptureData(ctx, captureID)
	if err != nil {
		return err
	}
	var res *ocr.Result
	err = p.gate.Run(ctx, c.Width, c.Height, func() error {
		res, err = readDocument(c.Data, time.Now())
		return err
	})
	if err != nil {
		return imageError(err)
	}
	if res.Document == nil || (res.Status != ocr.StatusRead && res.Status != ocr.StatusInvalid) {
		return bad("The lines at the bottom of this photo could not be read. Retake the photo, or type the details.")
	}
	doc := res.Document
	if doc.ExpiryDate == "" {
		return bad("This document's lines give no expiry date. Type the details instead.")
	}
	d.DocumentNumber, d.ExpiryDate, d.MRZ = doc.DocumentNumber, doc.ExpiryDate, strings.Join(doc.Lines, "\n")
	if d.IssuingCountry == "" {
		d.IssuingCountry = mrz.Alpha2(doc.IssuingState)
	}
	return nil
}
