package screening

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ParseUN reads the UN Security Council consolidated list XML
// (CONSOLIDATED_LIST with INDIVIDUALS/INDIVIDUAL and ENTITIES/ENTITY).
// It streams: each INDIVIDUAL or ENTITY is decoded on its own, so a large
// file is never held in memory next to its entities.
//
// ID is DATAID, Reference REFERENCE_NUMBER, Programs UN_LIST_TYPE and
// Reason COMMENTS1. The primary name joins FIRST_NAME to FOURTH_NAME;
// NAME_ORIGINAL_SCRIPT is a Native name; aliases of QUALITY "Good" or
// "a.k.a." are Alias, "Low" or "Bad" Weak, "f.k.a." Formerly. DOBs come
// from INDIVIDUAL_DATE_OF_BIRTH (EXACT, APPROXIMATELY, BETWEEN) and from
// the DATE_OF_BIRTH an alias may carry; countries from NATIONALITY, the
// addresses, the place of birth and an alias's COUNTRY_OF_BIRTH; documents
// from INDIVIDUAL_DOCUMENT when it has a NUMBER.
//
// A record without a name, a malformed date or a BETWEEN without years is
// an error naming the DATAID: the XML is structured, so such a value means
// the file or its format changed, not a typo to step over.
func ParseUN(r io.Reader) ([]Entity, error) {
	dec := xml.NewDecoder(r)
	var out []Entity
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("un: %w", err)
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root == "" {
			root = start.Name.Local
			if root != "CONSOLIDATED_LIST" {
				return nil, fmt.Errorf("un: root element is %s, want CONSOLIDATED_LIST", root)
			}
			continue
		}
		var schema Schema
		switch start.Name.Local {
		case "INDIVIDUAL":
			schema = Person
		case "ENTITY":
			schema = Organization
		default:
			continue // INDIVIDUALS, ENTITIES: descend into them
		}
		var rec unRecord
		if err := dec.DecodeElement(&rec, &start); err != nil {
			return nil, fmt.Errorf("un: %s: %w", start.Name.Local, err)
		}
		e, err := rec.entity(schema)
		if err != nil {
			return nil, fmt.Errorf("un: %s DATAID %s: %w", start.Name.Local, strings.TrimSpace(rec.DataID), err)
		}
		out = append(out, e)
	}
	if root == "" {
		return nil, errors.New("un: no CONSOLIDATED_LIST element")
	}
	return out, nil
}

// unRecord is one INDIVIDUAL or ENTITY; the two share the fields they
// have in common, and the INDIVIDUAL_ and ENTITY_ variants are both listed.
type unRecord struct {
	DataID        string       `xml:"DATAID"`
	First         string       `xml:"FIRST_NAME"`
	Second        string       `xml:"SECOND_NAME"`
	Third         string       `xml:"THIRD_NAME"`
	Fourth        string       `xml:"FOURTH_NAME"`
	Original      string       `xml:"NAME_ORIGINAL_SCRIPT"`
	ListType      string       `xml:"UN_LIST_TYPE"`
	Reference     string       `xml:"REFERENCE_NUMBER"`
	Comments      string       `xml:"COMMENTS1"`
	Nationalities []string     `xml:"NATIONALITY>VALUE"`
	Aliases       []unAlias    `xml:"INDIVIDUAL_ALIAS"`
	EntityAliases []unAlias    `xml:"ENTITY_ALIAS"`
	Addresses     []unPlace    `xml:"INDIVIDUAL_ADDRESS"`
	EntityAddress []unPlace    `xml:"ENTITY_ADDRESS"`
	BirthPlaces   []unPlace    `xml:"INDIVIDUAL_PLACE_OF_BIRTH"`
	BirthDates    []unDate     `xml:"INDIVIDUAL_DATE_OF_BIRTH"`
	Documents     []unDocument `xml:"INDIVIDUAL_DOCUMENT"`
}

type unAlias struct {
	Quality        string `xml:"QUALITY"`
	Name           string `xml:"ALIAS_NAME"`
	DateOfBirth    string `xml:"DATE_OF_BIRTH"`
	CountryOfBirth string `xml:"COUNTRY_OF_BIRTH"`
}

type unPlace struct {
	Country string `xml:"COUNTRY"`
}

type unDate struct {
	Type     string `xml:"TYPE_OF_DATE"`
	Date     string `xml:"DATE"`
	Year     string `xml:"YEAR"`
	FromYear string `xml:"FROM_YEAR"`
	ToYear   string `xml:"TO_YEAR"`
}

type unDocument struct {
	Type   string `xml:"TYPE_OF_DOCUMENT"`
	Number string `xml:"NUMBER"`
}

func (rec *unRecord) entity(schema Schema) (Entity, error) {
	b := newEntityBuilder(strings.TrimSpace(rec.DataID), schema)
	b.addName(strings.Join([]string{rec.First, rec.Second, rec.Third, rec.Fourth}, " "), Primary)
	b.addName(rec.Original, Native)
	for _, a := range slices.Concat(rec.Aliases, rec.EntityAliases) {
		b.addName(a.Name, unQuality(a.Quality))
		if d := strings.TrimSpace(a.DateOfBirth); d != "" && !b.addDOB(d) {
			return Entity{}, fmt.Errorf("alias date of birth %q: not a date", d)
		}
		if a.CountryOfBirth != "" {
			b.addCountryName(a.CountryOfBirth)
		}
	}
	for _, d := range rec.BirthDates {
		dobs, err := d.dobs()
		if err != nil {
			return Entity{}, err
		}
		for _, dob := range dobs {
			b.addDOB(dob)
		}
	}
	for _, n := range rec.Nationalities {
		b.addCountryName(n)
	}
	for _, places := range [][]unPlace{rec.BirthPlaces, rec.Addresses, rec.EntityAddress} {
		for _, p := range places {
			if p.Country != "" {
				b.addCountryName(p.Country)
			}
		}
	}
	for _, d := range rec.Documents {
		b.addDocument(d.Type, d.Number)
	}
	b.addProgram(rec.ListType)
	b.e.Reference = strings.TrimSpace(rec.Reference)
	b.e.Reason = strings.Join(strings.Fields(rec.Comments), " ")
	return b.entity()
}

// unQuality maps an alias QUALITY. The schema says Good or Low; the file
// also uses "a.k.a.", "f.k.a." and an empty quality, which are treated as
// the plain alias they describe.
func unQuality(q string) NameType {
	switch strings.ToLower(strings.TrimSpace(q)) {
	case "low", "bad":
		return Weak
	case "f.k.a.", "fka":
		return Formerly
	}
	return Alias
}

// dobs reads one INDIVIDUAL_DATE_OF_BIRTH. An empty element (the UN writes
// <TYPE_OF_DATE/> alone when the date is unknown) gives none.
func (d unDate) dobs() ([]string, error) {
	date, year := strings.TrimSpace(d.Date), strings.TrimSpace(d.Year)
	switch strings.ToUpper(strings.TrimSpace(d.Type)) {
	case "BETWEEN":
		from, err1 := strconv.Atoi(strings.TrimSpace(d.FromYear))
		to, err2 := strconv.Atoi(strings.TrimSpace(d.ToYear))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("date of birth BETWEEN %q and %q: not years", d.FromYear, d.ToYear)
		}
		return yearSpan(from, to), nil
	case "APPROXIMATELY":
		v := year
		if v == "" && len(date) >= 4 {
			v = date[:4]
		}
		if v == "" {
			return nil, nil
		}
		y, err := strconv.Atoi(v)
		if err != nil || !validDOB(v) {
			return nil, fmt.Errorf("date of birth APPROXIMATELY %q: not a year", v)
		}
		return circa(y), nil
	}
	// EXACT, or no type with a value.
	var out []string
	for _, v := range []string{date, year} {
		if v == "" {
			continue
		}
		if !validDOB(v) {
			return nil, fmt.Errorf("date of birth %q: not a date", v)
		}
		out = append(out, v)
	}
	return out, nil
}
