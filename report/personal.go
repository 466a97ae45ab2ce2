package report

import (
	"maps"
	"strings"

	"kycd/kyc"
)

// One rule prints personal data in a report, the organization's
// reportPersonalData (kyc.PersonalData), in the PDF and in report.json
// alike. Masked reports are masked when they are built (maskPersonalData),
// so the JSON, its hash and the PDF drawn from it carry the same values.
//
// The document number kycd read from the document's image is recorded
// only masked (processingResult is stored in clear; the full number only
// as a keyed hash for the duplicate check), so not even a full report can
// print it whole: it prints the typed number beside it when the two were
// compared and match, and says why otherwise.

// maskPersonalData masks the report's identifiers: the typed document
// number keeps its last four characters, the MRZ the applicant gave is
// left out, the e-mail, phone and capture IP addresses are masked, and the document images are
// not carried (a document image shows its number and MRZ).
func (rep *KYCReport) maskPersonalData() {
	rep.PersonalData = kyc.PersonalDataMasked
	if dd := rep.DocumentData; dd != nil {
		masked := *dd
		masked.DocumentNumber, masked.MRZ = kyc.MaskNumber(dd.DocumentNumber), ""
		rep.DocumentData = &masked
	}
	if a := &rep.Applicant; a.Email != nil {
		e := kyc.MaskEmail(*a.Email)
		a.Email = &e
	}
	if a := &rep.Applicant; a.Phone != nil {
		p := kyc.MaskPhone(*a.Phone)
		a.Phone = &p
	}
	for i := range rep.Captures {
		c := &rep.Captures[i]
		if c.Kind == "document" {
			delete(rep.Thumbnails, c.ID)
		}
		// The holder's address read from a licence goes (the reading's
		// fields still say an address was taken from it).
		if _, ok := c.Reading["address"]; ok {
			m := maps.Clone(c.Reading)
			delete(m, "address")
			c.Reading = m
		}
		// The address the image came from is personal data too: its
		// network is kept, the host is not.
		if ip, ok := c.Metadata["ip"].(string); ok {
			meta := make(map[string]any, len(c.Metadata))
			for k, v := range c.Metadata {
				meta[k] = v
			}
			meta["ip"] = kyc.MaskIP(ip)
			c.Metadata = meta
		}
	}
}

// masked reports whether the report masks personal data.
func (rep *KYCReport) masked() bool { return rep.PersonalData == kyc.PersonalDataMasked }

// personalDataText says, in the report, which rule it follows.
func personalDataText(p kyc.PersonalData) string {
	if p == kyc.PersonalDataMasked {
		return "masked (the organization's setting): document numbers show their last four characters, e-mail, phone and IP addresses are masked, " +
			"the MRZ and the document images are left out"
	}
	return "full (the organization's setting): every identifier kycd holds is printed whole"
}

// withheldImage is why a masked report shows no document image.
const withheldImage = "the organization's reports mask personal data, and a document image shows its number and MRZ. Its SHA-256 identifies it."

// readNumber prints the document number kycd read from the image: the
// typed number when the two were compared and match (a full report),
// else the masked number kycd recorded, saying why it is masked.
func readNumber(rep *KYCReport, recorded string) string {
	if recorded == "" {
		return none
	}
	if !rep.masked() && rep.DocumentData != nil && rep.DocumentData.DocumentNumber != "" && numberCompared(rep) == "match" {
		return rep.DocumentData.DocumentNumber + " (the same as the number typed)"
	}
	if rep.masked() {
		return recorded
	}
	return recorded + " (kycd records only the last four characters of a number it read)"
}

// numberCompared is data_consistency's result for the document number
// ("" when it was not compared).
func numberCompared(rep *KYCReport) string {
	cmp := signalData(rep, "data_consistency")
	list, _ := cmp["comparisons"].([]any)
	for _, x := range list {
		if c, _ := x.(map[string]any); c != nil && c["field"] == "documentNumber" {
			return text(c["result"])
		}
	}
	return ""
}

// comparedValue prints a compared value: the document number as the
// report's rule prints it.
func comparedValue(rep *KYCReport, field, side, v string) string {
	if field != "documentNumber" || v == "" {
		return v
	}
	if side == "applicant" && !rep.masked() && rep.DocumentData != nil && rep.DocumentData.DocumentNumber != "" {
		return rep.DocumentData.DocumentNumber
	}
	if side == "document" {
		return strings.TrimSuffix(readNumber(rep, v), " (the same as the number typed)")
	}
	return v
}
