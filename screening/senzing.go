package screening

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// ParseSenzing reads the Senzing-style JSON lines OpenSanctions exports
// (DATA_SOURCE, RECORD_ID, RECORD_TYPE, NAMES, RISKS, DATES, COUNTRIES,
// ADDRESSES, IDENTIFIERS, URL) and keeps the records whose RISKS topics
// give them the kind wanted (see TopicKinds). Records without risks, such
// as the positions a PEP export also carries, belong to no kind.
//
// The first PRIMARY name is primary and the others aliases; a name is
// NAME_FULL, else NAME_ORG, else NAME_FIRST NAME_MIDDLE NAME_LAST. DOBs
// come from DATE_OF_BIRTH, countries from every COUNTRIES value and
// ADDR_COUNTRY, documents from the passport, national id, SSN, driving
// licence and tax id attributes. OTHER_ID and TRUSTED_ID are database keys
// (Wikidata, OpenSanctions) rather than identity documents and are left
// out. Reference is URL; Programs are the topics. Errors name the line.
func ParseSenzing(r io.Reader, kind Kind) ([]Entity, error) {
	var out []Entity
	err := StreamSenzing(r, kind, func(e *Entity) error {
		out = append(out, *e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// StreamSenzing is ParseSenzing calling fn with each record kept, one at a
// time, so a file of any size is read in bounded memory. fn must not keep
// e.
func StreamSenzing(r io.Reader, kind Kind, fn func(e *Entity) error) error {
	if _, err := ParseKind(string(kind)); err != nil {
		return err
	}
	err := readJSONLines(r, func(line int, data []byte) error {
		var rec senzingRecord
		if err := json.Unmarshal(data, &rec); err != nil {
			return err
		}
		var topics []string
		for _, risk := range rec.Risks {
			topics = append(topics, risk.Topic)
		}
		if !slices.Contains(TopicKinds(topics), kind) {
			return nil
		}
		e, err := rec.entity(topics)
		if err != nil {
			return fmt.Errorf("record %s: %w", rec.ID, err)
		}
		return fn(&e)
	})
	if err != nil {
		return fmt.Errorf("senzing: %w", err)
	}
	return nil
}

type senzingRecord struct {
	ID    string `json:"RECORD_ID"`
	Type  string `json:"RECORD_TYPE"`
	Names []struct {
		Type   string `json:"NAME_TYPE"`
		Full   string `json:"NAME_FULL"`
		Org    string `json:"NAME_ORG"`
		First  string `json:"NAME_FIRST"`
		Middle string `json:"NAME_MIDDLE"`
		Last   string `json:"NAME_LAST"`
	} `json:"NAMES"`
	Risks []struct {
		Topic string `json:"TOPIC"`
	} `json:"RISKS"`
	Dates []struct {
		Birth string `json:"DATE_OF_BIRTH"`
	} `json:"DATES"`
	Countries []map[string]string `json:"COUNTRIES"`
	Addresses []struct {
		Country string `json:"ADDR_COUNTRY"`
	} `json:"ADDRESSES"`
	Identifiers []map[string]string `json:"IDENTIFIERS"`
	URL         string              `json:"URL"`
}

// senzingDocuments are the identifier attributes kept, with the document
// type they become.
var senzingDocuments = []struct{ attr, typ string }{
	{"PASSPORT_NUMBER", "Passport"},
	{"NATIONAL_ID_NUMBER", "National ID"},
	{"SSN_NUMBER", "SSN"},
	{"DRIVERS_LICENSE_NUMBER", "Driver's license"},
	{"TAX_ID_NUMBER", "Tax ID"},
}

func (rec *senzingRecord) entity(topics []string) (Entity, error) {
	b := newEntityBuilder(rec.ID, senzingSchema(rec.Type))
	// Primary names first, whatever their position in NAMES.
	for _, primary := range []bool{true, false} {
		for _, n := range rec.Names {
			if strings.EqualFold(n.Type, "PRIMARY") != primary {
				continue
			}
			full := n.Full
			if strings.TrimSpace(full) == "" {
				full = n.Org
			}
			if strings.TrimSpace(full) == "" {
				full = strings.Join([]string{n.First, n.Middle, n.Last}, " ")
			}
			t := Alias
			if primary {
				t = Primary
			}
			b.addName(full, t)
		}
	}
	for _, d := range rec.Dates {
		if d.Birth == "" {
			continue
		}
		dob, ok := isoDate(d.Birth)
		if !ok {
			return Entity{}, fmt.Errorf("DATE_OF_BIRTH %q: not a date", d.Birth)
		}
		b.addDOB(dob)
	}
	for _, c := range rec.Countries {
		for _, k := range slices.Sorted(maps.Keys(c)) { // map order is random; keep output stable
			if code, ok := CountryCode(c[k]); ok {
				b.addCountry(code)
			}
		}
	}
	for _, a := range rec.Addresses {
		if code, ok := CountryCode(a.Country); ok {
			b.addCountry(code)
		}
	}
	for _, id := range rec.Identifiers {
		for _, d := range senzingDocuments {
			b.addDocument(d.typ, id[d.attr])
		}
	}
	for _, t := range topics {
		b.addProgram(t)
	}
	b.e.Reference = strings.TrimSpace(rec.URL)
	return b.entity()
}

func senzingSchema(t string) Schema {
	switch strings.ToUpper(strings.TrimSpace(t)) {
	case "PERSON":
		return Person
	case "ORGANIZATION":
		return Organization
	case "VESSEL":
		return Vessel
	case "AIRCRAFT":
		return Aircraft
	}
	return Unknown
}
