package screening

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ParseFTM reads OpenSanctions FollowTheMoney entities as JSON lines
// ({"id", "caption", "schema", "properties": {...}, "datasets", ...}) and
// keeps the parties (Person, Organization, Company, LegalEntity,
// PublicBody, Vessel, Airplane) whose topics give them the kind wanted
// (see TopicKinds). Addresses, sanctions, ownerships and other link
// entities are skipped.
//
// Names: the caption (or the first name property) is primary;
// previousName gives Formerly names, weakAlias and abbreviation Weak, alias
// and name Alias, in that order of precedence when a name is repeated.
// firstName/lastName are not combined: OpenSanctions already
// writes the full names into name, and crossing the parts of several
// spellings and scripts ("Мария" × "ZAKHAROVA") would invent names the
// source never gave. They are used only when an entity has no name at all.
//
// DOBs come from birthDate, countries from nationality, citizenship,
// country, birthCountry and jurisdiction (values that are not ISO codes,
// such as "suhh" for the Soviet Union, are left out), documents from
// idNumber and passportNumber, Programs from topics and programId,
// Reference from the first sourceUrl (else the OpenSanctions page) and
// Reason from notes. Errors name the line.
func ParseFTM(r io.Reader, kind Kind) ([]Entity, error) {
	var out []Entity
	err := StreamFTM(r, kind, func(e *Entity) error {
		out = append(out, *e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// StreamFTM is ParseFTM calling fn with each entity kept, one at a time,
// so a file of any size is read in bounded memory (an OpenSanctions
// "default" export is several gigabytes). fn must not keep e.
func StreamFTM(r io.Reader, kind Kind, fn func(e *Entity) error) error {
	if _, err := ParseKind(string(kind)); err != nil {
		return err
	}
	err := readJSONLines(r, func(line int, data []byte) error {
		var fe ftmEntity
		if err := json.Unmarshal(data, &fe); err != nil {
			return err
		}
		schema, ok := ftmSchemas[fe.Schema]
		if !ok || !slices.Contains(TopicKinds(fe.Properties["topics"]), kind) {
			return nil
		}
		e, err := fe.entity(schema)
		if err != nil {
			return fmt.Errorf("entity %s: %w", fe.ID, err)
		}
		return fn(&e)
	})
	if err != nil {
		return fmt.Errorf("ftm: %w", err)
	}
	return nil
}

// TopicKinds returns the list kinds an OpenSanctions topic list puts a
// party in, in Kinds order:
//
//	sanction, sanction.*  (sanction.linked, sanction.counter)  → Sanctions
//	role.pep, role.rca                                         → PEP
//	crime, crime.*, wanted, debarment, corp.disqual,
//	reg.warn, reg.action                                       → AdverseMedia
//
// Other topics classify rather than accuse and give no kind: fin.* marks
// banks, funds and advisers (financial crime is crime.fin), gov.* public
// bodies, poi a person of interest, export.control an export-control
// listing.
func TopicKinds(topics []string) []Kind {
	var has [3]bool
	for _, t := range topics {
		t = strings.ToLower(strings.TrimSpace(t))
		switch {
		case t == "sanction" || strings.HasPrefix(t, "sanction."):
			has[0] = true
		case t == "role.pep" || t == "role.rca":
			has[1] = true
		case t == "crime" || strings.HasPrefix(t, "crime.") || t == "wanted" || t == "debarment" ||
			t == "corp.disqual" || t == "reg.warn" || t == "reg.action":
			has[2] = true
		}
	}
	var out []Kind
	for i, k := range []Kind{Sanctions, PEP, AdverseMedia} {
		if has[i] {
			out = append(out, k)
		}
	}
	return out
}

// ftmSchemas are the party schemas kept, by FtM schema name.
var ftmSchemas = map[string]Schema{
	"Person":       Person,
	"Organization": Organization,
	"Company":      Organization,
	"LegalEntity":  Organization,
	"PublicBody":   Organization,
	"Vessel":       Vessel,
	"Airplane":     Aircraft,
}

type ftmEntity struct {
	ID         string              `json:"id"`
	Caption    string              `json:"caption"`
	Schema     string              `json:"schema"`
	Properties map[string][]string `json:"properties"`
}

func (fe *ftmEntity) entity(schema Schema) (Entity, error) {
	p := fe.Properties
	b := newEntityBuilder(fe.ID, schema)
	primary := fe.Caption
	if strings.TrimSpace(primary) == "" {
		primary = firstValue(p["name"])
	}
	if strings.TrimSpace(primary) == "" {
		primary = strings.Join([]string{firstValue(p["firstName"]), firstValue(p["middleName"]), firstValue(p["lastName"])}, " ")
	}
	b.addName(primary, Primary)
	// OpenSanctions repeats previous and weak names in name; the first
	// property to give a name decides its type, so the specific ones go
	// first.
	for _, prop := range []struct {
		name string
		t    NameType
	}{{"previousName", Formerly}, {"weakAlias", Weak}, {"abbreviation", Weak}, {"alias", Alias}, {"name", Alias}} {
		for _, n := range p[prop.name] {
			b.addName(n, prop.t)
		}
	}
	for _, d := range p["birthDate"] {
		dob, ok := isoDate(d)
		if !ok {
			return Entity{}, fmt.Errorf("birthDate %q: not a date", d)
		}
		b.addDOB(dob)
	}
	for _, prop := range []string{"nationality", "citizenship", "country", "birthCountry", "jurisdiction"} {
		for _, c := range p[prop] {
			if code, ok := CountryCode(c); ok {
				b.addCountry(code)
			}
		}
	}
	for _, n := range p["passportNumber"] {
		b.addDocument("Passport", n)
	}
	for _, n := range p["idNumber"] {
		b.addDocument("ID", n)
	}
	for _, prop := range []string{"topics", "programId"} {
		for _, v := range p[prop] {
			b.addProgram(v)
		}
	}
	b.e.Reference = firstValue(p["sourceUrl"])
	if b.e.Reference == "" {
		b.e.Reference = "https://www.opensanctions.org/entities/" + fe.ID
	}
	var notes []string
	for _, n := range p["notes"] {
		if n = strings.Join(strings.Fields(n), " "); n != "" {
			notes = append(notes, n)
		}
	}
	b.e.Reason = strings.Join(notes, "\n")
	return b.entity()
}

func firstValue(vs []string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// isoDate reads an FtM date: "1988-01-07", "1988-01" or "1988", or a
// timestamp whose date part is one of those.
func isoDate(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) > 10 && (s[10] == 'T' || s[10] == ' ') {
		s = s[:10]
	}
	return s, validDOB(s)
}

// readJSONLines calls fn with each non-blank line and its number. Lines
// are read whole, however long: one FtM entity can hold thousands of
// names, more than a bufio.Scanner's default limit.
func readJSONLines(r io.Reader, fn func(line int, data []byte) error) error {
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		data, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if line == 1 {
			data = bytes.TrimPrefix(data, []byte("\ufeff"))
		}
		if len(bytes.TrimSpace(data)) > 0 {
			if ferr := fn(line, data); ferr != nil {
				return fmt.Errorf("line %d: %w", line, ferr)
			}
		}
		if err != nil {
			return nil
		}
	}
}
