// Package aamvatest builds AAMVA DL/ID payloads for tests: one record in
// the layout of each standard version, with a correct header and subfile
// directory, to be rendered into barcodes or broken on purpose.
package aamvatest

import (
	"fmt"
	"strings"
)

// Person is the fictional holder the payloads describe.
type Person struct {
	Family, First, Middle string
	DocumentNumber        string
	Birth, Issue, Expiry  [3]int // year, month, day
	Sex                   int    // 1 male, 2 female, 9 not specified
	Street, City, State   string
	Postal                string
}

// Sample is the holder used by default.
var Sample = Person{
	Family: "SAMPLE", First: "MICHAEL", Middle: "JOHN", DocumentNumber: "T64235789",
	Birth: [3]int{1986, 6, 6}, Issue: [3]int{2019, 6, 6}, Expiry: [3]int{2030, 12, 10}, Sex: 1,
	Street: "2300 WEST BROAD STREET", City: "RICHMOND", State: "VA", Postal: "232690000",
}

// Canadian is a holder with an Ontario address.
var Canadian = Person{
	Family: "TREMBLAY", First: "MARIE", Middle: "CLAIRE", DocumentNumber: "T1234-56789-01234",
	Birth: [3]int{1990, 2, 28}, Issue: [3]int{2021, 3, 1}, Expiry: [3]int{2026, 2, 28}, Sex: 2,
	Street: "100 QUEEN ST W", City: "TORONTO", State: "ON", Postal: "M5H 2N2",
}

// Elements returns the DL subfile elements of p in the layout of version
// v (1–10), with dates in the order the standard sets for the country.
func Elements(v int, p Person, canada bool) [][2]string {
	date := func(d [3]int) string {
		if v == 1 || canada {
			return fmt.Sprintf("%04d%02d%02d", d[0], d[1], d[2])
		}
		return fmt.Sprintf("%02d%02d%04d", d[1], d[2], d[0])
	}
	sex := fmt.Sprint(p.Sex)
	if v == 1 {
		sex = map[int]string{1: "M", 2: "F", 9: "X"}[p.Sex]
	}
	var els [][2]string
	add := func(id, val string) { els = append(els, [2]string{id, val}) }
	add("DAQ", p.DocumentNumber)
	switch {
	case v == 1:
		add("DAA", p.Family+","+p.First+","+p.Middle)
	case v <= 3:
		add("DCS", p.Family)
		add("DCT", p.First+","+p.Middle)
	default:
		add("DCS", p.Family)
		add("DDE", "N")
		add("DAC", p.First)
		add("DDF", "N")
		add("DAD", p.Middle)
		add("DDG", "N")
	}
	add("DBD", date(p.Issue))
	add("DBB", date(p.Birth))
	add("DBA", date(p.Expiry))
	add("DBC", sex)
	add("DAY", "BRO")
	add("DAU", "069 IN")
	add("DAG", p.Street)
	add("DAI", p.City)
	add("DAJ", p.State)
	add("DAK", p.Postal+strings.Repeat(" ", max(0, 11-len(p.Postal))))
	if v >= 4 {
		country := "USA"
		if canada {
			country = "CAN"
		}
		add("DCF", "2424244747474786102204")
		add("DCG", country)
	}
	return els
}

// Payload assembles a complete payload: header, directory, the DL
// subfile and a jurisdiction subfile "Z" plus the jurisdiction letter.
func Payload(v int, iin, jurCode string, els [][2]string) string {
	var dl strings.Builder
	dl.WriteString("DL")
	for i, e := range els {
		if i > 0 {
			dl.WriteByte('\n')
		}
		dl.WriteString(e[0] + e[1])
	}
	dl.WriteByte('\r')
	z := "Z" + jurCode[:1] + "Z" + jurCode[:1] + "A01\r"
	hdr := "@\n\x1e\rANSI " + iin + fmt.Sprintf("%02d", v)
	if v >= 2 {
		hdr += "01"
	}
	hdr += "02"
	off := len(hdr) + 20
	hdr += fmt.Sprintf("DL%04d%04d", off, dl.Len())
	hdr += fmt.Sprintf("Z%s%04d%04d", jurCode[:1], off+dl.Len(), len(z))
	return hdr + dl.String() + z
}

// Record is a ready payload of version v: the US sample issued by
// Virginia, or the Canadian one issued by Ontario.
func Record(v int, canada bool) string {
	if canada {
		return Payload(v, "636012", "ON", Elements(v, Canadian, true))
	}
	return Payload(v, "636000", "VA", Elements(v, Sample, false))
}
