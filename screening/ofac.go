package screening

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ParseOFAC reads OFAC's legacy CSV trio: sdn.csv (primary records), and
// optionally alt.csv (aliases) and add.csv (addresses); alt and add may be
// nil. The consolidated non-SDN files (cons_prim, cons_alt, cons_add) have
// the same format. The files have no header and write "-0-" for empty.
//
// sdn.csv columns: ent_num, SDN_Name, SDN_Type, Program, Title, Call_Sign,
// Vess_type, Tonnage, GRT, Vess_flag, Vess_owner, Remarks. alt.csv:
// ent_num, alt_num, alt_type, alt_name, remarks. add.csv: ent_num,
// add_num, address, city/state/postal, country, remarks.
//
// DOBs, nationalities, birth places, documents and the "a.k.a." names are
// read from the remarks (see parseOFACRemarks). OFAC keeps its low-quality
// ("weak") aliases only in the remarks of the legacy files, so remark
// aliases become Weak names, added after alt.csv's so a name present in
// both keeps alt.csv's stronger type.
//
// The three files must come from the same publication: alt or add rows
// whose ent_num is not in sdn are an *OFACMismatchError, because mixing
// days would silently drop aliases or addresses. Errors name the file and
// line.
func ParseOFAC(sdn, alt, add io.Reader) ([]Entity, error) {
	var (
		order   []*entityBuilder
		byNum   = map[string]*entityBuilder{}
		pending = map[*entityBuilder][]Name{} // remark names, added last
	)
	err := readOFACFile("sdn", sdn, 12, func(_ int, f []string) error {
		num := f[0]
		if _, err := strconv.Atoi(num); err != nil {
			return fmt.Errorf("ent_num %q is not a number", num)
		}
		if byNum[num] != nil {
			return fmt.Errorf("ent_num %s listed twice", num)
		}
		b := newEntityBuilder(num, ofacSchema(f[2]))
		b.e.Reference = "OFAC ent_num " + num
		b.addName(f[1], Primary)
		if len(b.e.Names) == 0 {
			return fmt.Errorf("ent_num %s: %w", num, errNoName)
		}
		for _, p := range ofacPrograms(f[3]) {
			b.addProgram(p)
		}
		if f[9] != "" {
			b.addCountryName(f[9]) // Vess_flag
		}
		rem := parseOFACRemarks(f[11])
		for _, d := range rem.DOBs {
			b.addDOB(d)
		}
		for _, c := range rem.Countries {
			b.addCountry(c)
		}
		for _, d := range rem.Documents {
			b.addDocument(d.Type, d.Number)
		}
		pending[b] = rem.Names
		b.e.Reason = f[11]
		byNum[num] = b
		order = append(order, b)
		return nil
	})
	if err != nil {
		return nil, err
	}
	maxNum := 0
	for num := range byNum {
		if n, _ := strconv.Atoi(num); n > maxNum {
			maxNum = n
		}
	}
	// Rows naming an entity the primary file lacks are counted, not
	// failed on at once, so the error can say how far apart the files are.
	var mismatch *OFACMismatchError
	owner := func(file string, line int, f []string) *entityBuilder {
		if b := byNum[f[0]]; b != nil {
			return b
		}
		if mismatch == nil {
			mismatch = &OFACMismatchError{File: file, FirstLine: line, FirstEntNum: f[0]}
		}
		if mismatch.File == file {
			mismatch.Rows++
			if n, err := strconv.Atoi(f[0]); err == nil && n > maxNum {
				mismatch.Newer++
			}
		}
		return nil
	}
	if alt != nil {
		err := readOFACFile("alt", alt, 5, func(line int, f []string) error {
			b := owner("alt", line, f)
			if b == nil {
				return nil
			}
			t, err := ofacAltType(f[2], f[4])
			if err != nil {
				return err
			}
			b.addName(f[3], t)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if add != nil && mismatch == nil {
		err := readOFACFile("add", add, 6, func(line int, f []string) error {
			b := owner("add", line, f)
			if b == nil {
				return nil
			}
			if f[4] != "" {
				b.addCountryName(f[4])
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if mismatch != nil {
		return nil, mismatch
	}
	out := make([]Entity, 0, len(order))
	for _, b := range order {
		for _, n := range pending[b] {
			b.addName(n.Full, n.Type)
		}
		e, err := b.entity()
		if err != nil {
			return nil, fmt.Errorf("sdn: ent_num %s: %w", b.e.ID, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// readOFACFile calls fn for each row of one legacy CSV file, with "-0-"
// fields emptied and every field trimmed. OFAC ends its files with a
// Ctrl-Z (DOS end-of-file) line, which is skipped like blank lines.
func readOFACFile(name string, r io.Reader, fields int, fn func(line int, f []string) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // checked below, so the Ctrl-Z line is not an error
	cr.ReuseRecord = true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("ofac %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.Trim(rec[0], " \t\r\x1a") == "" {
			continue
		}
		if len(rec) != fields {
			return fmt.Errorf("ofac %s: line %d: %d fields, want %d", name, line, len(rec), fields)
		}
		for i, v := range rec {
			v = strings.TrimSpace(v)
			if v == "-0-" {
				v = ""
			}
			rec[i] = v
		}
		if err := fn(line, rec); err != nil {
			return fmt.Errorf("ofac %s: line %d: %w", name, line, err)
		}
	}
}

// ofacSchema maps SDN_Type; OFAC leaves it empty ("-0-") for entities.
func ofacSchema(t string) Schema {
	switch strings.ToLower(t) {
	case "individual":
		return Person
	case "vessel":
		return Vessel
	case "aircraft":
		return Aircraft
	}
	return Organization
}

// ofacPrograms splits the Program column. OFAC writes several programmes
// as "[SDGT] [IRGC]" but the legacy CSV strips the outer brackets, giving
// "SDGT] [IRGC"; some codes contain spaces ("CAATSA - RUSSIA").
func ofacPrograms(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == '[' || r == ']' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ofacAltType maps alt_type ("aka", "fka", "nka", "weak aka") and the alias
// remarks, where OFAC may also say "weak".
func ofacAltType(t, remarks string) (NameType, error) {
	t = strings.ToLower(strings.Join(strings.Fields(t), " "))
	weak := strings.Contains(strings.ToLower(remarks), "weak")
	switch t {
	case "aka", "a.k.a.", "nka", "n.k.a.":
		// "now known as" is a newer name; the sdn name stays primary.
		if weak {
			return Weak, nil
		}
		return Alias, nil
	case "weak aka", "weak a.k.a.":
		return Weak, nil
	case "fka", "f.k.a.":
		return Formerly, nil
	}
	return "", fmt.Errorf("unknown alt_type %q", t)
}

// OFACMismatchError is an alias (alt) or address (add) file from another
// publication than the primary file: some of its rows name entities the
// primary file does not have.
type OFACMismatchError struct {
	File        string // "alt" or "add"
	Rows        int    // rows naming an entity the primary file lacks
	Newer       int    // of those, rows whose ent_num is above every primary ent_num
	FirstLine   int
	FirstEntNum string
}

func (e *OFACMismatchError) Error() string {
	which := "alias file (alt.csv)"
	if e.File == "add" {
		which = "address file (add.csv)"
	}
	age := "older than the primary file: it still lists entities since removed"
	if e.Newer*2 > e.Rows {
		age = "newer than the primary file: it lists entities added since"
	}
	return fmt.Sprintf("ofac %s: line %d: ent_num %q is not in sdn, nor are the entities of %d more rows: "+
		"the %s comes from another publication, probably %s. "+
		"OFAC publishes sdn.csv, alt.csv and add.csv (or cons_prim.csv, cons_alt.csv and cons_add.csv) together: "+
		"import the files of one publication, downloaded at the same time from %s "+
		"(or let kycd fetch a matching set: kycd lists update --source ofac-sdn,ofac-consolidated)",
		e.File, e.FirstLine, e.FirstEntNum, e.Rows-1, which, age, ofacDownloads)
}

// ofacDownloads is where OFAC publishes the legacy files.
const ofacDownloads = "https://www.treasury.gov/ofac/downloads/ (consolidated/ for the non-SDN files)"
