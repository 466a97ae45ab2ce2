package screening

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ParseCSV reads the in-house list CSV: THE format operators use to load
// vendor data or their own lists of any kind. It is UTF-8 (a leading BOM,
// as spreadsheets write, is ignored), comma-separated with RFC 4180
// quoting, and starts with a header row naming its columns, in any order
// and any case:
//
//	name       required; the primary name
//	aliases    other names, separated by ";"
//	dob        dates of birth YYYY, YYYY-MM or YYYY-MM-DD, separated by ";"
//	country    ISO 3166-1 alpha-2 codes (any case) or country names that
//	           CountryCode knows, separated by ";"
//	kind       sanctions, pep or adverse_media (any case); when present it
//	           must be empty or the kind being imported, so a row cannot
//	           land in the wrong list
//	reference  the operator's reference, also the entity ID; it must be
//	           unique in the file, and an empty one makes the ID
//	           "row-<line>"
//	reason     why the party is listed, free text
//	schema     person (the default) or organization (any case)
//
// Only name is required; other columns may be left out. For example:
//
//	name,aliases,dob,country,reference,reason
//	"DOE, John",Johnny Doe;J. Doe,1960-01-02;1961,US;gb,V-001,Fraud conviction 2019
//
// Rows whose fields are all empty are skipped (spreadsheets append them).
// Any other problem is an error naming the line and column, such as
// `line 7: dob "1960-13-01": not a date`; nothing is imported then.
func ParseCSV(r io.Reader, kind Kind) ([]Entity, error) {
	if _, err := ParseKind(string(kind)); err != nil {
		return nil, err
	}
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, errors.New("line 1: no header row")
	}
	if err != nil {
		return nil, err
	}
	cols, err := csvColumns(header)
	if err != nil {
		return nil, err
	}
	var out []Entity
	ids := map[string]int{} // entity ID → line
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err // *csv.ParseError names the line
		}
		if strings.TrimSpace(strings.Join(rec, "")) == "" {
			continue
		}
		row := csvRow{cr: cr, rec: rec, cols: cols}
		e, err := row.entity(kind)
		if err != nil {
			return nil, err
		}
		if prev, dup := ids[e.ID]; dup {
			line, _ := row.field("reference")
			return nil, fmt.Errorf("line %d: reference %q: already used on line %d", line, e.ID, prev)
		}
		ids[e.ID], _ = cr.FieldPos(0)
		out = append(out, e)
	}
}

// csvColumnNames are the columns ParseCSV knows.
var csvColumnNames = []string{"name", "aliases", "dob", "country", "kind", "reference", "reason", "schema"}

// csvColumns maps lower-case column names to their index. Unknown and
// repeated columns are errors: a misspelt "countries" column would
// otherwise be dropped without a word.
func csvColumns(header []string) (map[string]int, error) {
	cols := map[string]int{}
	for i, h := range header {
		if i == 0 {
			h = strings.TrimPrefix(h, "\ufeff")
		}
		h = strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains(csvColumnNames, h) {
			return nil, fmt.Errorf("line 1: unknown column %q (want %s)", h, strings.Join(csvColumnNames, ", "))
		}
		if _, dup := cols[h]; dup {
			return nil, fmt.Errorf("line 1: column %q appears twice", h)
		}
		cols[h] = i
	}
	if _, ok := cols["name"]; !ok {
		return nil, errors.New("line 1: no name column")
	}
	return cols, nil
}

// csvRow is one data row being read.
type csvRow struct {
	cr   *csv.Reader
	rec  []string
	cols map[string]int
}

// field returns a column's line (a quoted field may span lines) and its
// trimmed value, "" when the file has no such column.
func (r csvRow) field(col string) (int, string) {
	i, ok := r.cols[col]
	if !ok {
		i = 0
	}
	line, _ := r.cr.FieldPos(i)
	if !ok {
		return line, ""
	}
	return line, strings.TrimSpace(r.rec[i])
}

// list splits a ";"-separated column, dropping empty items.
func (r csvRow) list(col string) (int, []string) {
	line, v := r.field(col)
	var out []string
	for _, item := range strings.Split(v, ";") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return line, out
}

func (r csvRow) entity(kind Kind) (Entity, error) {
	_, ref := r.field("reference")
	id := ref
	if id == "" {
		line, _ := r.cr.FieldPos(0)
		id = fmt.Sprintf("row-%d", line)
	}
	if kline, k := r.field("kind"); k != "" && !strings.EqualFold(k, string(kind)) {
		return Entity{}, fmt.Errorf("line %d: kind %q: this import is %s", kline, k, kind)
	}
	sline, s := r.field("schema")
	var schema Schema
	switch strings.ToLower(s) {
	case "", "person":
		schema = Person
	case "organization", "organisation":
		schema = Organization
	default:
		return Entity{}, fmt.Errorf("line %d: schema %q: want person or organization", sline, s)
	}
	b := newEntityBuilder(id, schema)
	b.e.Reference = ref
	nline, name := r.field("name")
	if name == "" {
		return Entity{}, fmt.Errorf("line %d: name: empty", nline)
	}
	b.addName(name, Primary)
	_, aliases := r.list("aliases")
	for _, a := range aliases {
		b.addName(a, Alias)
	}
	dline, dobs := r.list("dob")
	for _, d := range dobs {
		if !b.addDOB(d) {
			return Entity{}, fmt.Errorf("line %d: dob %q: not a date", dline, d)
		}
	}
	cline, countries := r.list("country")
	for _, c := range countries {
		code, ok := CountryCode(c)
		if !ok {
			return Entity{}, fmt.Errorf("line %d: country %q: not an ISO code or known country name", cline, c)
		}
		b.addCountry(code)
	}
	_, b.e.Reason = r.field("reason")
	return b.entity()
}
