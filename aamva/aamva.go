// Package aamva parses the data on the PDF417 barcode of North American
// driving licences and identity cards: the AAMVA DL/ID Card Design
// Standard, versions 01 (DL/ID-2000) to 10 (2020). It validates as it
// parses — the header, the subfile directory and the formats of the
// mandatory elements are the only check digits a licence carries — and
// refuses a payload that does not validate rather than guess.
package aamva

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrFormat wraps every refusal: what was read is not an AAMVA card, or
// not one this parser can vouch for.
var ErrFormat = errors.New("aamva: not a valid DL/ID payload")

// Card is what a DL/ID subfile says, with the header it came under.
type Card struct {
	Version             int    // AAMVA standard version, 1–10
	JurisdictionVersion int    // 0 for version 01, which has none
	IIN                 string // issuer identification number
	Issuer              Issuer // the jurisdiction the IIN names
	Subfile             string // "DL" (driving licence) or "ID" (identity card)

	DocumentNumber string // DAQ, the customer ID / licence number
	FamilyName     string // DCS (DAB, or the first part of DAA, in version 01)
	FirstName      string // DAC (DCT's first part in versions 02–03)
	MiddleName     string // DAD (DCT's rest in versions 02–03)
	Suffix         string // DCU
	// Truncation indicators DDE, DDF, DDG (version 04 on): the name on
	// the card was cut to fit.
	FamilyTruncated, FirstTruncated, MiddleTruncated bool

	DateOfBirth time.Time // DBB
	Expiry      time.Time // DBA
	Issued      time.Time // DBD; zero when absent
	Sex         string    // DBC as "M", "F" or "X" (not specified); "" when absent

	Street     string // DAG
	Street2    string // DAH
	City       string // DAI
	State      string // DAJ
	PostalCode string // DAK, as printed ("23269", "23269-0000", "K1A 0B1")
	Country    string // DCG, or the issuer's country when absent (versions 01–03)

	// Elements holds every element of the DL/ID subfile as read, trailing
	// padding removed, for the record of what the barcode said.
	Elements map[string]string
	// Quirks lists the departures from the standard that were tolerated.
	Quirks []string
}

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
}

// Parse reads an AAMVA DL/ID payload as decoded from the barcode. It
// accepts the quirks jurisdictions are known to ship (wrong subfile
// offsets or lengths, CR or CRLF instead of LF between elements, a
// missing record separator) and refuses anything whose header or
// mandatory fields do not validate.
func Parse(data []byte) (*Card, error) {
	h, err := parseHeader(data)
	if err != nil {
		return nil, err
	}
	body, typ, err := h.findSubfile(data)
	if err != nil {
		return nil, err
	}
	c := &Card{Version: h.version, JurisdictionVersion: h.jurVersion, IIN: h.iin, Issuer: h.issuer, Quirks: h.quirks}
	c.Subfile = typ
	els, quirks, err := splitElements(body)
	if err != nil {
		return nil, err
	}
	c.Quirks = append(c.Quirks, quirks...)
	c.Elements = els
	if err := c.fill(); err != nil {
		return nil, err
	}
	return c, nil
}

// splitElements splits a subfile's body (after its two-letter type) into
// elements: a three-letter ID, then the value up to the separator.
func splitElements(body string) (map[string]string, []string, error) {
	var quirks []string
	if strings.Contains(body, "\r\n") {
		quirks = append(quirks, "CRLF element separators")
	} else if !strings.Contains(body, "\n") && strings.Count(body, "\r") > 1 {
		quirks = append(quirks, "CR element separators")
	}
	els := map[string]string{}
	for _, f := range strings.FieldsFunc(body, func(r rune) bool { return r == '\n' || r == '\r' || r == 0x1e }) {
		if strings.TrimSpace(f) == "" {
			continue
		}
		if len(f) < 3 || !isElementID(f[:3]) {
			return nil, nil, refuse("element %q", clip(f))
		}
		id, v := f[:3], strings.TrimRight(f[3:], " ")
		for i := range len(v) {
			if v[i] < 0x20 || v[i] > 0x7e {
				return nil, nil, refuse("element %s holds byte 0x%02x", id, v[i])
			}
		}
		if _, dup := els[id]; dup {
			return nil, nil, refuse("element %s twice", id)
		}
		els[id] = v
	}
	return els, quirks, nil
}

// isElementID tells whether s is a DL/ID element ID: "D" and two capitals.
func isElementID(s string) bool {
	return len(s) == 3 && s[0] == 'D' && s[1] >= 'A' && s[1] <= 'Z' && s[2] >= 'A' && s[2] <= 'Z'
}

func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}
