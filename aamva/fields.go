package aamva

import (
	"strings"
	"time"
)

// fill interprets the elements, refusing the card when a mandatory one is
// missing or any present one breaks its format.
func (c *Card) fill() error {
	e := c.Elements
	var err error
	if c.DocumentNumber, err = documentNumber(e["DAQ"]); err != nil {
		return err
	}
	if err := c.names(); err != nil {
		return err
	}
	c.Country = c.Issuer.Country
	if v, ok := e["DCG"]; ok {
		if v != "USA" && v != "CAN" && v != "MEX" {
			return refuse("country %q", v)
		}
		if v != c.Issuer.Country {
			return refuse("country %s but issuer %s is in %s", v, c.Issuer.Code, c.Issuer.Country)
		}
	}
	dates := []struct {
		id   string
		dst  *time.Time
		need bool
	}{{"DBB", &c.DateOfBirth, true}, {"DBA", &c.Expiry, true}, {"DBD", &c.Issued, false}}
	for _, d := range dates {
		v, ok := e[d.id]
		if !ok {
			if d.need {
				return refuse("no %s", d.id)
			}
			continue
		}
		t, quirk, err := c.date(v)
		if err != nil {
			return refuse("%s: %v", d.id, err)
		}
		if quirk != "" {
			c.Quirks = append(c.Quirks, d.id+" "+quirk)
		}
		*d.dst = t
	}
	if !c.Expiry.After(c.DateOfBirth) || (!c.Issued.IsZero() && (c.Issued.Before(c.DateOfBirth) || c.Issued.After(c.Expiry))) {
		return refuse("dates out of order (birth %s, issue %s, expiry %s)", day(c.DateOfBirth), day(c.Issued), day(c.Expiry))
	}
	if v, ok := e["DBC"]; ok {
		switch v {
		case "1", "M":
			c.Sex = "M"
		case "2", "F":
			c.Sex = "F"
		case "9", "X":
			c.Sex = "X"
		default:
			return refuse("sex %q", v)
		}
		if c.Version >= 2 && (v == "M" || v == "F") {
			c.Quirks = append(c.Quirks, "sex as a letter")
		}
	}
	c.Street, c.Street2, c.City = e["DAG"], e["DAH"], e["DAI"]
	for _, f := range []struct{ id, v string }{{"DAG", c.Street}, {"DAH", c.Street2}, {"DAI", c.City}} {
		if strings.ContainsAny(f.v, "@\x1e") {
			return refuse("%s %q", f.id, f.v)
		}
	}
	if v := e["DAJ"]; v != "" {
		if !upperAlpha(v) || len(v) < 2 || len(v) > 3 {
			return refuse("state %q", v)
		}
		c.State = v
	}
	if v := strings.TrimSpace(e["DAK"]); v != "" {
		pc, ok := postalCode(v, c.Country)
		if !ok {
			return refuse("postal code %q", v)
		}
		c.PostalCode = pc
	}
	return nil
}

func day(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format(time.DateOnly)
}

func upperAlpha(s string) bool {
	for i := range len(s) {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return s != ""
}

// documentNumber validates DAQ: letters, digits, and the spaces and
// hyphens some jurisdictions print, 1 to 25 characters.
func documentNumber(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", refuse("no document number (DAQ)")
	}
	if len(v) > 25 {
		return "", refuse("document number of %d characters", len(v))
	}
	digit := false
	for i := range len(v) {
		switch ch := v[i]; {
		case ch >= '0' && ch <= '9':
			digit = true
		case ch >= 'A' && ch <= 'Z', ch == '-', ch == ' ':
		default:
			return "", refuse("document number %q", v)
		}
	}
	if !digit {
		return "", refuse("document number %q has no digit", v)
	}
	return v, nil
}

// date reads an eight-digit date. The standard writes MMDDCCYY on US
// cards and CCYYMMDD on Canadian ones (and on all version 01 cards); the
// two cannot be confused, since a month is never 19 or 20, so a date in
// the other order is read and noted as a quirk.
func (c *Card) date(v string) (time.Time, string, error) {
	if len(v) != 8 {
		return time.Time{}, "", refuse("date %q", v)
	}
	if _, ok := digits(v); !ok {
		return time.Time{}, "", refuse("date %q", v)
	}
	ccyyFirst := v[:2] == "19" || v[:2] == "20"
	var y, m, d string
	if ccyyFirst {
		y, m, d = v[:4], v[4:6], v[6:]
	} else {
		m, d, y = v[:2], v[2:4], v[4:]
	}
	t, err := time.Parse("2006-01-02", y+"-"+m+"-"+d)
	if err != nil || t.Year() < 1900 || t.Year() > 2199 {
		return time.Time{}, "", refuse("date %q", v)
	}
	wantCCYY := c.Version == 1 || c.Country == "CAN" || c.Issuer.Country == "CAN"
	quirk := ""
	if ccyyFirst != wantCCYY {
		quirk = "date order " + map[bool]string{true: "CCYYMMDD", false: "MMDDCCYY"}[ccyyFirst]
	}
	return t, quirk, nil
}

// postalCode validates DAK: a US ZIP of 5 digits or ZIP+4 (the standard
// pads to 11 characters, with zeros or spaces), or a Canadian postal code.
func postalCode(v, country string) (string, bool) {
	v = strings.ReplaceAll(v, "-", "")
	if country == "CAN" {
		p := strings.ReplaceAll(v, " ", "")
		if len(p) != 6 {
			return "", false
		}
		for i := range 6 {
			if (i%2 == 0) != (p[i] >= 'A' && p[i] <= 'Z') || (i%2 == 1) != (p[i] >= '0' && p[i] <= '9') {
				return "", false
			}
		}
		return p[:3] + " " + p[3:], true
	}
	v = strings.TrimSpace(v)
	if _, ok := digits(v); !ok || (len(v) != 5 && len(v) != 9) {
		return "", false
	}
	if len(v) == 9 && v[5:] != "0000" {
		return v[:5] + "-" + v[5:], true
	}
	return v[:5], true
}

// names fills the name fields from whichever elements the version uses.
func (c *Card) names() error {
	e := c.Elements
	c.FamilyName, c.FirstName, c.MiddleName, c.Suffix = e["DCS"], e["DAC"], e["DAD"], e["DCU"]
	if c.FamilyName == "" {
		c.FamilyName = e["DAB"]
	}
	if c.FirstName == "" && c.MiddleName == "" {
		if v, ok := e["DCT"]; ok {
			// Versions 02–03: given names, first and middle, separated by
			// a comma (or a space in some jurisdictions).
			c.FirstName, c.MiddleName = splitFirst(v)
		}
	}
	if v, ok := e["DAA"]; ok && c.FamilyName == "" {
		// Version 01 full name: family, first, middle, separated by
		// commas ("PUBLIC,JOHN,Q").
		parts := strings.Split(v, ",")
		if len(parts) < 2 {
			return refuse("full name %q", v)
		}
		c.FamilyName = strings.TrimSpace(parts[0])
		c.FirstName = strings.TrimSpace(parts[1])
		if len(parts) > 2 {
			c.MiddleName = strings.TrimSpace(strings.Join(parts[2:], " "))
		}
		if len(parts) > 3 {
			c.Quirks = append(c.Quirks, "full name of more than three parts")
		}
	}
	for _, n := range []struct{ id, v string }{{"family", c.FamilyName}, {"first", c.FirstName}, {"middle", c.MiddleName}, {"suffix", c.Suffix}} {
		if !nameChars(n.v) {
			return refuse("%s name %q", n.id, n.v)
		}
	}
	if c.FamilyName == "" || c.FamilyName == "NONE" {
		return refuse("no family name")
	}
	for _, t := range []struct {
		id  string
		dst *bool
	}{{"DDE", &c.FamilyTruncated}, {"DDF", &c.FirstTruncated}, {"DDG", &c.MiddleTruncated}} {
		switch v := e[t.id]; v {
		case "T":
			*t.dst = true
		case "", "N", "U":
		default:
			return refuse("truncation %s %q", t.id, v)
		}
	}
	return nil
}

func splitFirst(v string) (string, string) {
	sep := ","
	if !strings.Contains(v, ",") {
		sep = " "
	}
	first, rest, _ := strings.Cut(v, sep)
	return strings.TrimSpace(first), strings.TrimSpace(strings.ReplaceAll(rest, ",", " "))
}

// nameChars allows what AAMVA names hold: letters (upper case in the
// standard, mixed in some jurisdictions), spaces, hyphens, apostrophes,
// periods and commas.
func nameChars(s string) bool {
	for i := range len(s) {
		switch ch := s[i]; {
		case ch >= 'A' && ch <= 'Z', ch >= 'a' && ch <= 'z', ch == ' ', ch == '-', ch == '\'', ch == '.', ch == ',':
		default:
			return false
		}
	}
	return true
}
