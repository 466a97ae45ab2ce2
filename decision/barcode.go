package decision

import (
	"errors"
	"image"
	"strings"

	"kycd/aamva"
	"kycd/kyc"
	"kycd/pdf417"
)

// BarcodeRead is what the engine read from the PDF417 barcode on a
// document capture (the back of a North American driving licence or
// identity card): the AAMVA card when the barcode decoded and its header
// and fields validate, else why not.
type BarcodeRead struct {
	Card      *aamva.Card
	Status    string // read, invalid (a barcode, not an AAMVA card the parser vouches for), not_found
	ECLevel   int
	Corrected int
	Erasures  int
	Text      []byte // the decoded message, as read (nil when none)
}

// wantsBarcode tells whether a capture may carry a licence barcode: the
// back of a document, or any side of a driving licence.
func wantsBarcode(c kyc.Capture) bool {
	if c.Kind != "document" {
		return false
	}
	return (c.Side != nil && *c.Side == "back") || (c.DocumentType != nil && *c.DocumentType == "driving_licence")
}

// readBarcode reads the PDF417 barcode of img and parses it as an AAMVA
// DL/ID payload. A barcode that decodes but does not validate is
// "invalid": its data is never used.
func readBarcode(img image.Image) *BarcodeRead {
	res, err := pdf417.Decode(img)
	if err != nil {
		return &BarcodeRead{Status: "not_found"}
	}
	b := &BarcodeRead{Status: "read", ECLevel: res.ECLevel, Corrected: res.Corrected, Erasures: res.Erasures, Text: res.Text}
	card, err := aamva.Parse(res.Text)
	if err != nil {
		if !errors.Is(err, aamva.ErrFormat) {
			panic(err) // Parse returns only ErrFormat refusals
		}
		b.Status = "invalid"
		return b
	}
	b.Card = card
	return b
}

// bestBarcode is the first capture whose barcode gave a validated card.
func bestBarcode(reads []DocumentRead) *DocumentRead {
	for i := range reads {
		if b := reads[i].Barcode; b != nil && b.Card != nil {
			return &reads[i]
		}
	}
	return nil
}

// barcodeData is the card in the shape the consistency, duplicate and
// expiry checks use. A licence states no nationality; its issuer is a
// state or province, and its country is the document's issuing country.
func barcodeData(c *aamva.Card) *MRZData {
	iso := map[string]string{"USA": "US", "CAN": "CA", "MEX": "MX"}[c.Issuer.Country]
	given := strings.TrimSpace(c.FirstName + " " + c.MiddleName)
	return &MRZData{
		Format: "AAMVA", DocumentCode: c.Subfile, IssuingState: c.Issuer.Country,
		Surname: c.FamilyName, GivenNames: given, DocumentNumber: c.DocumentNumber,
		IssuingISO: iso, BirthDate: c.DateOfBirth.Format("2006-01-02"), Sex: c.Sex,
		ExpiryDate: c.Expiry.Format("2006-01-02"), Valid: true,
		Truncated: c.FamilyTruncated || c.FirstTruncated || c.MiddleTruncated,
	}
}

// addressRead is the address on the licence or card the engine took its
// data from (DocumentDataSignal's choice: a barcode only when no MRZ was
// read), nil when there is none or it states no address.
func addressRead(reads []DocumentRead) *kyc.DocumentAddress {
	if bestRead(reads) != nil {
		return nil
	}
	code := bestBarcode(reads)
	if code == nil {
		return nil
	}
	c := code.Barcode.Card
	if c.Street == "" && c.Street2 == "" && c.City == "" && c.State == "" && c.PostalCode == "" {
		return nil
	}
	return &kyc.DocumentAddress{Street: c.Street, Street2: c.Street2, City: c.City, State: c.State,
		PostalCode: c.PostalCode, Country: c.Country, Source: "pdf417_aamva", CaptureID: code.CaptureID}
}

// barcodeSummary is what the signal records of the barcode: which fields
// came from it and how it was read. processingResult is stored in clear,
// so the number is masked and the street address is not recorded (only
// the state or province and the postal code's first part).
func barcodeSummary(r *DocumentRead) map[string]any {
	c := r.Barcode.Card
	postal := c.PostalCode
	if len(postal) > 3 {
		postal = postal[:3]
	}
	return map[string]any{
		"standard": "AAMVA DL/ID", "version": c.Version, "issuer": c.Issuer.Code, "issuerName": c.Issuer.Name,
		"subfile": c.Subfile, "ecLevel": r.Barcode.ECLevel, "codewordsCorrected": r.Barcode.Corrected,
		"codewordsErased": r.Barcode.Erasures, "quirks": c.Quirks,
		"fields":  []string{"familyName", "givenNames", "documentNumber", "dateOfBirth", "expiryDate", "sex", "address"},
		"address": map[string]string{"state": c.State, "postalCodePrefix": postal, "country": c.Country},
	}
}
