package screening

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// ofacRemarks is what parseOFACRemarks finds in an sdn.csv Remarks field.
type ofacRemarks struct {
	DOBs      []string // YYYY, YYYY-MM or YYYY-MM-DD
	Countries []string // alpha-2 codes from nationality, citizen, POB
	Documents []ofacDocument
	Names     []Name // a.k.a. (Weak), f.k.a. (Formerly), n.k.a. (Alias)
}

type ofacDocument struct{ Type, Number string }

// ofacDocumentTypes are the remark labels of identity documents and
// registration numbers kept as Documents, written as OFAC writes them.
// Other numbers (phone, SWIFT/BIC, aircraft serial, ISIN) identify no party
// and stay in Reason only. Longer labels come first so "Diplomatic
// Passport" wins over "Passport".
var ofacDocumentTypes = func() []string {
	types := []string{
		"Passport", "Diplomatic Passport", "National ID No.", "Cedula No.",
		"Identification Number", "Personal ID Card", "Residency Number",
		"Travel Document Number", "Birth Certificate Number", "SSN",
		"Driver's License No.", "Tax ID No.", "C.U.R.P.", "R.F.C.", "RFC",
		"D.N.I.", "NIT #", "RUC #", "RIF #", "C.U.I.", "C.U.I.T.", "C.U.I.P.",
		"I.F.E.", "Electoral Registry No.", "Credencial electoral",
		"Turkish Identification Number", "Kenyan ID No.", "Citizen's Card Number",
		"Numero de Identidad", "National Foreign ID Number", "Italian Fiscal Code",
		"LE Number", "Registration Number", "Registration ID",
		"Business Registration Number", "Company Number", "Legal Entity Number",
		"Vessel Registration Identification",
	}
	slices.SortStableFunc(types, func(a, b string) int { return len(b) - len(a) })
	return types
}()

// parseOFACRemarks extracts structured facts from OFAC's free-text remarks,
// a ";"-separated list such as "DOB 12 Jan 1960; alt. DOB circa 1962; POB
// Baghdad, Iraq; nationality Iran; Passport A1234 (Iran); a.k.a. 'ABU
// ALI'; Linked To: X.". An "alt. " before a fact means another value of
// it. Anything it does not recognise is left alone: the remarks as a whole
// are kept as the entity's Reason.
func parseOFACRemarks(s string) ofacRemarks {
	var r ofacRemarks
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if len(part) > 5 && strings.EqualFold(part[:5], "alt. ") {
			part = strings.TrimSpace(part[5:])
		}
		key, val, _ := strings.Cut(part, " ")
		val = strings.TrimSuffix(strings.TrimSpace(val), ".")
		switch key {
		case "DOB":
			r.DOBs = append(r.DOBs, ofacDOBs(val)...)
			continue
		case "POB":
			if code, ok := placeCountry(val); ok {
				r.Countries = append(r.Countries, code)
			}
			continue
		case "nationality", "citizen":
			if code, ok := countryByName(val); ok {
				r.Countries = append(r.Countries, code)
			}
			continue
		case "a.k.a.":
			r.Names = appendRemarkName(r.Names, val, Weak)
			continue
		case "f.k.a.":
			r.Names = appendRemarkName(r.Names, val, Formerly)
			continue
		case "n.k.a.":
			r.Names = appendRemarkName(r.Names, val, Alias)
			continue
		}
		if rest, ok := strings.CutPrefix(part, "Nationality of Registration "); ok {
			if code, ok := countryByName(strings.TrimSuffix(rest, ".")); ok {
				r.Countries = append(r.Countries, code)
			}
			continue
		}
		if d, ok := ofacDocumentOf(part); ok {
			r.Documents = append(r.Documents, d)
		}
	}
	return r
}

func appendRemarkName(names []Name, quoted string, t NameType) []Name {
	if name := ofacUnquote(quoted); name != "" {
		names = append(names, Name{Full: name, Type: t})
	}
	return names
}

// ofacUnquote strips the quotes OFAC puts around remark names. Names may hold
// apostrophes themselves ('ABU 'ABD'), so only the outer pair goes.
func ofacUnquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	return strings.TrimSpace(s)
}

// ofacDocumentOf reads "Passport U24492445 (Turkey) expires 31 May 2031"
// as {Passport, U24492445}; the number ends at the issuing country or at
// the issue/expiry note, and must contain a digit.
func ofacDocumentOf(part string) (ofacDocument, bool) {
	for _, typ := range ofacDocumentTypes {
		rest, ok := strings.CutPrefix(part, typ+" ")
		if !ok {
			continue
		}
		for _, stop := range []string{" (", " issued", " expires", " expired"} {
			rest, _, _ = strings.Cut(rest, stop)
		}
		rest = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "."))
		if !strings.ContainsAny(rest, "0123456789") {
			return ofacDocument{}, false
		}
		return ofacDocument{Type: typ, Number: rest}, true
	}
	return ofacDocument{}, false
}

// ofacDOBs normalises a remark DOB: "12 Jan 1960", "Jan 1960", "1960",
// "circa 1960", "1958 to 1962", "01 Feb 1958 to 28 Feb 1958",
// "circa 1979-1981". A range inside one month is that month, inside one
// year that year, and otherwise each year it covers (see yearSpan); circa
// widens to each year within circaYears. Text it cannot read gives none.
func ofacDOBs(v string) []string {
	v = strings.TrimSpace(v)
	isCirca := false
	if rest, ok := strings.CutPrefix(v, "circa "); ok {
		isCirca, v = true, strings.TrimSpace(rest)
	}
	from, to, isRange := strings.Cut(v, " to ")
	if !isRange {
		// "1979-1981": only between two bare years, so no date is cut.
		if a, b, ok := strings.Cut(v, "-"); ok && len(a) == 4 && len(b) == 4 {
			from, to, isRange = a, b, true
		}
	}
	a, okA := ofacDate(from)
	if !okA {
		return nil
	}
	if !isRange {
		if isCirca {
			return circa(a.year)
		}
		return []string{a.String()}
	}
	b, okB := ofacDate(to)
	if !okB {
		return nil
	}
	switch {
	case isCirca:
		return yearSpan(a.year-circaYears, b.year+circaYears)
	case a == b:
		return []string{a.String()}
	case a.year == b.year && a.month != 0 && a.month == b.month:
		return []string{ofacDay{year: a.year, month: a.month}.String()}
	}
	return yearSpan(a.year, b.year)
}

// ofacDay is a remark date with its precision: month and day are 0 when
// the remark does not give them.
type ofacDay struct{ year, month, day int }

func (d ofacDay) String() string {
	switch {
	case d.month == 0:
		return strconv.Itoa(d.year)
	case d.day == 0:
		return time.Date(d.year, time.Month(d.month), 1, 0, 0, 0, 0, time.UTC).Format("2006-01")
	}
	return time.Date(d.year, time.Month(d.month), d.day, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
}

// ofacDate parses "12 Jan 1960", "Jan 1960" or "1960" and checks the
// result is a plausible DOB.
func ofacDate(s string) (ofacDay, bool) {
	s = strings.TrimSpace(s)
	for _, f := range []struct {
		layout string
		month  bool
		day    bool
	}{{"2 Jan 2006", true, true}, {"Jan 2006", true, false}, {"2006", false, false}} {
		t, err := time.Parse(f.layout, s)
		if err != nil {
			continue
		}
		d := ofacDay{year: t.Year()}
		if f.month {
			d.month = int(t.Month())
		}
		if f.day {
			d.day = t.Day()
		}
		return d, validDOB(d.String())
	}
	return ofacDay{}, false
}

// placeCountry finds the country of an OFAC place of birth, which ends
// with it after a comma: "Baghdad, Iraq", "Goma, Congo, Democratic
// Republic of the". It tries the last part, then the last two and three
// (country names with commas), and finally the trailing words of the last
// part for places OFAC wrote without a comma ("Khartoum Sudan").
func placeCountry(place string) (string, bool) {
	parts := strings.Split(place, ",")
	for k := 1; k <= 3 && k <= len(parts); k++ {
		if code, ok := countryByName(strings.Join(parts[len(parts)-k:], ",")); ok {
			return code, true
		}
	}
	// Country names run to a few words; looking further back only costs.
	words := strings.Fields(parts[len(parts)-1])
	for i := max(1, len(words)-4); i < len(words); i++ {
		tail := strings.Join(words[i:], " ")
		if notCountryPlaces[countryKey(strings.Join(words[i-1:], " "))] {
			return "", false
		}
		if code, ok := countryByName(tail); ok {
			return code, true
		}
	}
	return "", false
}

// notCountryPlaces are places whose last word is a country name but which
// are not in that country (US states, an island).
var notCountryPlaces = map[string]bool{
	"new mexico": true,
	"new jersey": true,
	"new guinea": true,
}
