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

	"kycd/aamva"
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
	// too_dark, tilted, unclear, no_zone); the page says it in the
	// applicant's language.
	Hint           string `json:"hint,omitempty"`
	Surname        string `json:"surname,omitempty"`
	GivenNames     string `json:"givenNames,omitempty"`
	DocumentNumber string `json:"documentNumber,omitempty"`
	BirthDate      string `json:"birthDate,omitempty"`
	ExpiryDate     string `json:"expiryDate,omitempty"`
	Nationality    string `json:"nationality,omitempty"`
}

// readDocument reads the MRZ of a stored document photo.
func readDocument(data []byte, now time.Time) (*ocr.Result, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	// The usual scale only: this read guides the applicant, within the
	// upload gate's memory (see ocr.ReadAtUsualScale).
	return ocr.ReadAtUsualScale(img, now)
}

// viewOf is the page's view of a read.
func viewOf(r *ocr.Result) *mrzView {
	v := &mrzView{Status: string(r.Status), Hint: string(r.Hint)}
	if d := r.Document; d != nil && (r.Status == ocr.StatusRead || r.Status == ocr.StatusInvalid) {
		v.Surname, v.GivenNames, v.DocumentNumber, v.BirthDate, v.ExpiryDate, v.Nationality =
			d.Surname, d.GivenNames, d.DocumentNumber, d.BirthDate, d.ExpiryDate, d.Nationality
	} else if r.Status == ocr.StatusInvalid {
		// Read, but not an MRZ the server understands: to the page, as
		// unreadable.
		v.Status, v.Hint = string(ocr.StatusUnreadable), string(ocr.HintUnclear)
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
		return bad("error.read_not_document")
	}
	c, err := p.store.FindCaptureData(ctx, captureID)
	if err != nil {
		return err
	}
	if idx := slices.IndexFunc(caps, func(k kyc.Capture) bool { return k.ID == captureID }); wantsBarcodeRead(&caps[idx]) {
		// The back of a North American card: its barcode, when it reads;
		// else its zone, as any card's.
		var card *aamva.Card
		err = p.gate.Run(ctx, c.Width, c.Height, func() error {
			card, _, err = readLicence(c.Data)
			return err
		})
		if err != nil {
			return imageError(err)
		}
		if card != nil {
			d.DocumentNumber, d.ExpiryDate, d.MRZ = card.DocumentNumber, card.Expiry.Format("2006-01-02"), ""
			return nil
		}
	}
	var res *ocr.Result
	err = p.gate.Run(ctx, c.Width, c.Height, func() error {
		res, err = readDocument(c.Data, p.store.Now())
		return err
	})
	if err != nil {
		return imageError(err)
	}
	if res.Document == nil || (res.Status != ocr.StatusRead && res.Status != ocr.StatusInvalid) {
		return bad("error.read_failed")
	}
	doc := res.Document
	if doc.ExpiryDate == "" {
		return bad("error.read_no_expiry")
	}
	d.DocumentNumber, d.ExpiryDate, d.MRZ = doc.DocumentNumber, doc.ExpiryDate, strings.Join(doc.Lines, "\n")
	if d.IssuingCountry == "" {
		d.IssuingCountry = mrz.Alpha2(doc.IssuingState)
	}
	return nil
}
