package screening

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// entityBuilder collects one entity's fields while an importer reads its
// source, so every importer upholds the same Entity invariants: Names[0]
// is the primary name, names are unique ignoring case and spacing,
// countries are valid upper-case ISO alpha-2 codes, DOBs are well-formed
// YYYY[-MM[-DD]], and nothing is listed twice.
type entityBuilder struct {
	e    Entity
	seen map[string]bool // "n:"+folded name, "c:"+code, "d:"+dob, "p:"+program, "x:"+document
}

func newEntityBuilder(id string, schema Schema) *entityBuilder {
	return &entityBuilder{e: Entity{ID: id, Schema: schema}, seen: map[string]bool{}}
}

// once reports whether key is new for this entity, and remembers it.
func (b *entityBuilder) once(key string) bool {
	if b.seen[key] {
		return false
	}
	b.seen[key] = true
	return true
}

// addName adds a name with its spacing collapsed. Empty names and names
// already present (ignoring case) are dropped: a matcher compares names
// case-insensitively, so a case variant adds nothing but work. Only the
// first name can be primary; a second "primary" (Senzing allows several)
// becomes an alias.
func (b *entityBuilder) addName(full string, t NameType) {
	full = strings.Join(strings.Fields(full), " ")
	if full == "" || !b.once("n:"+strings.ToLower(full)) {
		return
	}
	if t == Primary && len(b.e.Names) > 0 {
		t = Alias
	}
	b.e.Names = append(b.e.Names, Name{Full: full, Type: t})
}

// addCountry adds a code that must already be a valid alpha-2 code.
func (b *entityBuilder) addCountry(code string) {
	if ValidCountryCode(code) && b.once("c:"+code) {
		b.e.Countries = append(b.e.Countries, code)
	}
}

// addCountryName adds the country a free-text name maps to; names that
// are not countries ("Region: Gaza", "undetermined") are not an error in
// a published list, so they are left out rather than failing the import.
func (b *entityBuilder) addCountryName(name string) {
	if code, ok := countryByName(name); ok {
		b.addCountry(code)
	}
}

// addDOB adds a well-formed DOB and reports whether it was well-formed.
func (b *entityBuilder) addDOB(dob string) bool {
	if !validDOB(dob) {
		return false
	}
	if b.once("d:" + dob) {
		b.e.DOBs = append(b.e.DOBs, dob)
	}
	return true
}

func (b *entityBuilder) addProgram(p string) {
	p = strings.Join(strings.Fields(p), " ")
	if p != "" && b.once("p:"+p) {
		b.e.Programs = append(b.e.Programs, p)
	}
}

// addDocument adds "type: number"; documents without a number say nothing.
func (b *entityBuilder) addDocument(typ, number string) {
	typ = strings.Join(strings.Fields(typ), " ")
	number = strings.Join(strings.Fields(number), " ")
	if number == "" {
		return
	}
	doc := number
	if typ != "" {
		doc = typ + ": " + number
	}
	if b.once("x:" + doc) {
		b.e.Documents = append(b.e.Documents, doc)
	}
}

var errNoName = errors.New("no name")

// entity returns the built entity, or errNoName when the source gave no
// name at all: an entity without a name can never be matched, so it is a
// broken record, not something to store.
func (b *entityBuilder) entity() (Entity, error) {
	if len(b.e.Names) == 0 {
		return Entity{}, errNoName
	}
	return b.e, nil
}

// DOB limits. Lists hold people born in the last two centuries; a year
// outside these bounds is a typo, not a birth date.
const (
	minDOBYear = 1800
	maxDOBYear = 2199
	// circaYears is how far an approximate year ("circa 1960", UN
	// APPROXIMATELY) reaches on each side: OFAC and the UN give no width,
	// and one year either side covers the usual rounding of an age.
	circaYears = 1
	// maxDOBSpan is the widest range of years kept, year by year. A wider
	// range ("1940 to 1990") says almost nothing about the person and
	// would flood the entity with DOBs, so it is left out rather than cut
	// to an arbitrary narrower range that might exclude the true year.
	maxDOBSpan = 20
)

// validDOB reports whether s is YYYY, YYYY-MM or YYYY-MM-DD, a real
// calendar date with a year in [minDOBYear, maxDOBYear].
func validDOB(s string) bool {
	var layout string
	switch len(s) {
	case 4:
		layout = "2006"
	case 7:
		layout = "2006-01"
	case 10:
		layout = "2006-01-02"
	default:
		return false
	}
	t, err := time.Parse(layout, s)
	return err == nil && t.Year() >= minDOBYear && t.Year() <= maxDOBYear
}

// yearSpan lists the years from..to as YYYY strings, or nothing when the
// range is inverted, wider than maxDOBSpan or outside the DOB limits.
func yearSpan(from, to int) []string {
	if to < from || to-from > maxDOBSpan || from < minDOBYear || to > maxDOBYear {
		return nil
	}
	out := make([]string, 0, to-from+1)
	for y := from; y <= to; y++ {
		out = append(out, strconv.Itoa(y))
	}
	return out
}

// circa lists the years an approximate year stands for.
func circa(year int) []string {
	return yearSpan(year-circaYears, year+circaYears)
}
