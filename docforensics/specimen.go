package docforensics

import (
	"fmt"
	"strings"

	"kycd/mrz"
)

// The specimen table. Sources (public specimen data, not the shared test
// images):
//   - ICAO Doc 9303, 8th edition, parts 4-7: the example documents of the
//     fictional state Utopia (UTO), holder ERIKSSON ANNA MARIA, document
//     numbers L898902C3 (TD3), D23145890 (TD1, TD2) and L8988901C (MRV).
//     Any document of UTO is a specimen: no real state issues it.
//   - Germany, Bundesdruckerei / BMI specimen sheets: ERIKA MUSTERMANN,
//     passport C01X00T47, identity card T22000129 (2010) and L01X00T47.
//   - Spain, DNI 3.0 specimen (Policía Nacional): number 99999999R.
//   - Netherlands, Rijksoverheid specimen passport/ID card: document
//     number SPECI2014 (2014 series) and SPECI2021.
//   - The word for "specimen" printed in the name fields of national
//     specimens (PRADO, the Council of the EU's public register of
//     identity documents, shows them): SPECIMEN, MUSTER/MUSTERMANN/
//     MUSTERFRAU (de), VZOR (cs, sk), UZORAK (hr, sr, bs), WZOR (pl),
//     NAIDIS (et), PARAUGS (lv), PAVYZDYS (lt), NAYTE (fi, NÄYTE as the
//     MRZ writes it).
var (
	specimenStates  = map[string]bool{"UTO": true}
	specimenNumbers = map[string]string{
		"L898902C3": "ICAO 9303 TD3 example", "D23145890": "ICAO 9303 TD1/TD2 example", "L8988901C": "ICAO 9303 visa example",
		"C01X00T47": "German passport specimen", "T22000129": "German identity card specimen", "L01X00T47": "German identity card specimen",
		"99999999R": "Spanish DNI specimen", "SPECI2014": "Dutch specimen", "SPECI2021": "Dutch specimen",
	}
	specimenWords = map[string]bool{
		"SPECIMEN": true, "MUSTER": true, "MUSTERMANN": true, "MUSTERFRAU": true, "VZOR": true, "UZORAK": true,
		"WZOR": true, "NAIDIS": true, "PARAUGS": true, "PAVYZDYS": true, "NAYTE": true,
	}
	// specimenPersons are holder names of published specimens (surname,
	// given names) that are not also common names on their own.
	specimenPersons = map[[2]string]string{
		{"ERIKSSON", "ANNA MARIA"}: "ICAO 9303 specimen holder",
		{"MUSTERMANN", "ERIKA"}:    "German specimen holder",
	}
)

// Specimen returns a DOCUMENT_SPECIMEN finding when the MRZ is that of a
// published specimen or sample document: the ICAO test state, a
// specimen's document number or holder, or the word "specimen" in a
// national language as a name or a number. Words are whole name parts:
// a surname that merely contains one is not a specimen.
func Specimen(d *mrz.Document) []Finding {
	if d == nil {
		return nil
	}
	var out []Finding
	add := func(measure, format string, args ...any) {
		out = append(out, Finding{Code: CodeSpecimen, Measure: measure, Value: 1, Limit: 1, Message: fmt.Sprintf(format, args...)})
	}
	for _, s := range []string{d.IssuingState, d.Nationality} {
		if specimenStates[s] {
			add("state", "The document is issued by %s, the fictional state of the ICAO 9303 specimens: a published specimen, not an identity document.", s)
			break
		}
	}
	if src, ok := specimenNumbers[strings.ToUpper(d.DocumentNumber)]; ok {
		add("documentNumber", "The document number %s is that of a published specimen (%s).", d.DocumentNumber, src)
	} else if strings.HasPrefix(strings.ToUpper(d.DocumentNumber), "SPECI") {
		add("documentNumber", "The document number %s marks a specimen.", d.DocumentNumber)
	}
	if src, ok := specimenPersons[[2]string{strings.ToUpper(d.Surname), strings.ToUpper(d.GivenNames)}]; ok {
		add("holder", "The holder %s %s is a published specimen's (%s).", d.GivenNames, d.Surname, src)
	}
	for _, part := range strings.Fields(strings.ToUpper(d.Surname + " " + d.GivenNames + " " + d.OptionalData1 + " " + d.OptionalData2)) {
		if specimenWords[part] {
			add("nameWord", "The document's name fields say %s: the word for a specimen.", part)
			break
		}
	}
	return out
}
