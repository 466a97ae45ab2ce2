package portal

import (
	"bytes"
	"errors"
	"image"
	"strings"

	"kycd/aamva"
	"kycd/kyc"
	"kycd/pdf417"
)

// barcodeCountries are the issuing countries whose licences and identity
// cards carry an AAMVA PDF417 barcode on the back (decision.DocumentKinds
// lists the same for the engine).
var barcodeCountries = map[string]bool{"US": true, "CA": true}

// wantsBarcodeRead tells whether the portal reads a licence barcode from
// a document photo at upload: the back of a driving licence or identity
// card issued in a country whose cards carry one.
func wantsBarcodeRead(c *kyc.Capture) bool {
	if c.Kind != "document" || c.Side == nil || *c.Side != "back" || c.DocumentType == nil || c.Country == nil {
		return false
	}
	t := *c.DocumentType
	return (t == "driving_licence" || t == "id_card") && barcodeCountries[*c.Country]
}

// barcodeView is what the page learns of the licence barcode the server
// read from the back of a card: the details to confirm, or a retake hint.
type barcodeView struct {
	// Status: read (an AAMVA card whose header and fields validate),
	// unreadable (a barcode, but not a card the parser vouches for),
	// not_found.
	Status string `json:"status"`
	// Hint: not_found (flatter, closer, less glare) or unclear (read, but
	// not a licence barcode that can be checked).
	Hint           string `json:"hint,omitempty"`
	Surname        string `json:"surname,omitempty"`
	GivenNames     string `json:"givenNames,omitempty"`
	DocumentNumber string `json:"documentNumber,omitempty"`
	BirthDate      string `json:"birthDate,omitempty"`
	ExpiryDate     string `json:"expiryDate,omitempty"`
}

// readLicence decodes the PDF417 barcode of a stored photo and parses it
// as an AAMVA DL/ID payload. A photo without a barcode, or whose barcode
// does not validate, is a nil card and no error: only a photo that cannot
// be decoded at all is an error.
func readLicence(data []byte) (*aamva.Card, bool, error) {
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, false, err
	}
	// Every error of Decode says no symbol could be read (none found, or
	// one beyond its error correction), as the engine takes it.
	res, err := pdf417.Decode(img)
	if err != nil {
		return nil, false, nil
	}
	card, err := aamva.Parse(res.Text)
	if errors.Is(err, aamva.ErrFormat) {
		return nil, true, nil
	}
	return card, true, err
}

// barcodeViewOf is the page's view of a read: found tells a barcode was
// decoded even when the card did not validate.
func barcodeViewOf(c *aamva.Card, found bool) *barcodeView {
	switch {
	case c != nil:
		return &barcodeView{Status: "read", Surname: c.FamilyName, GivenNames: strings.TrimSpace(c.FirstName + " " + c.MiddleName),
			DocumentNumber: c.DocumentNumber, BirthDate: c.DateOfBirth.Format("2006-01-02"), ExpiryDate: c.Expiry.Format("2006-01-02")}
	case found:
		return &barcodeView{Status: "unreadable", Hint: "unclear"}
	default:
		return &barcodeView{Status: "not_found", Hint: "not_found"}
	}
}
