package screening

import (
	"maps"
	"strings"
	"testing"
	"time"
)

func TestParseUNFixture(t *testing.T) {
	es, err := ParseUN(openFixture(t, "un/consolidated.xml"))
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, es)
	if len(es) != 3 {
		t.Fatalf("%d entities, want 3", len(es))
	}
	m := byID(t, es)
	for _, want := range []Entity{
		{ID: "1001", Schema: Person,
			Names: []Name{
				{"ABDUL RAHMAN AL- TEST", Primary}, {"عبد الرحمن", Native}, {"Abd al-Rahman", Alias},
				{"Abu Test", Weak}, {"Abdulrahman Test", Alias},
			},
			// alias DOB first, then EXACT (same date), APPROXIMATELY 1960, BETWEEN 1973 and 1974
			DOBs: []string{"1966-09-09", "1959", "1960", "1961", "1973", "1974"},
			// alias country of birth, nationality ("na" is no country), birth place, address
			Countries: []string{"IQ", "IR", "RW", "KP"},
			Programs:  []string{"Al-Qaida"}, Reference: "QDi.999",
			Documents: []string{"Passport: OB 0243318"},
			Reason:    "Reportedly deceased in 2019."},
		{ID: "1002", Schema: Person, Names: []Name{{"ERIC BADEGE", Primary}},
			DOBs: []string{"1971"}, Countries: []string{"CD"}, Documents: []string{}, Reason: ""},
		{ID: "2001", Schema: Organization,
			Names:     []Name{{"TEST TRADING COMPANY", Primary}, {"TTC", Alias}, {"Old Test Trading", Formerly}},
			Countries: []string{"HK", "TR"}, Programs: []string{"DPRK"}, Reference: "KPe.099",
			Reason: "Front company."},
	} {
		checkEntity(t, m[want.ID], want)
	}
	if m["1002"].Reason != "" {
		t.Errorf("empty COMMENTS1 gave Reason %q", m["1002"].Reason)
	}
}

func TestParseUNErrors(t *testing.T) {
	const head = `<CONSOLIDATED_LIST><INDIVIDUALS><INDIVIDUAL><DATAID>7</DATAID><FIRST_NAME>A</FIRST_NAME>`
	const tail = `</INDIVIDUAL></INDIVIDUALS></CONSOLIDATED_LIST>`
	for _, tt := range []struct{ name, in, want string }{
		{"empty", "", "un: no CONSOLIDATED_LIST element"},
		{"other xml", "<feed><entry/></feed>", "un: root element is feed, want CONSOLIDATED_LIST"},
		{"truncated", head, "un: INDIVIDUAL: XML syntax error"},
		{"no name", `<CONSOLIDATED_LIST><ENTITIES><ENTITY><DATAID>8</DATAID></ENTITY></ENTITIES></CONSOLIDATED_LIST>`,
			"un: ENTITY DATAID 8: no name"},
		{"bad date", head + `<INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>EXACT</TYPE_OF_DATE><DATE>1960-02-30</DATE></INDIVIDUAL_DATE_OF_BIRTH>` + tail,
			`un: INDIVIDUAL DATAID 7: date of birth "1960-02-30": not a date`},
		{"bad between", head + `<INDIVIDUAL_DATE_OF_BIRTH><TYPE_OF_DATE>BETWEEN</TYPE_OF_DATE><FROM_YEAR>1960</FROM_YEAR></INDIVIDUAL_DATE_OF_BIRTH>` + tail,
			"not years"},
		{"bad alias date", head + `<INDIVIDUAL_ALIAS><QUALITY>Good</QUALITY><ALIAS_NAME>B</ALIAS_NAME><DATE_OF_BIRTH>22/02/1958</DATE_OF_BIRTH></INDIVIDUAL_ALIAS>` + tail,
			`alias date of birth "22/02/1958": not a date`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseUN(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestParseUNReal reads the 2026-02-27 consolidated list: 730 INDIVIDUAL
// and 273 ENTITY elements (`grep -c '<INDIVIDUAL>'`, `grep -c '<ENTITY>'`)
// and 378 non-empty NAME_ORIGINAL_SCRIPT elements, one of which (DATAID
// 6908835, JAMAAH ANSHARUT DAULAH) repeats the primary name and so is not
// listed twice (checked with Python's ElementTree).
func TestParseUNReal(t *testing.T) {
	start := time.Now()
	es, err := ParseUN(openShared(t, "lists/un_consolidated_2026-02-27.xml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("UN consolidated 2026-02-27: %d entities in %v", len(es), time.Since(start))
	checkInvariants(t, es)
	if got, want := schemaCounts(es), map[Schema]int{Person: 730, Organization: 273}; !maps.Equal(got, want) {
		t.Fatalf("schemas %v, want %v", got, want)
	}
	native := 0
	for _, e := range es {
		for _, n := range e.Names {
			if n.Type == Native {
				native++
			}
		}
	}
	if native != 377 {
		t.Errorf("%d native names, want 377", native)
	}
	m := byID(t, es)
	for _, want := range []Entity{
		{ID: "111497", Schema: Person,
			Names: []Name{
				{"AMIN MUHAMMAD UL HAQ SAAM KHAN", Primary}, {"Al-Haq, Amin", Alias}, {"Amin, Muhammad", Alias},
				{"Dr. Amin", Weak}, {"Ul-Haq, Dr. Amin", Weak},
			},
			DOBs: []string{"1960"}, Countries: []string{"AF"}, Programs: []string{"Al-Qaida"}, Reference: "QDi.002"},
		{ID: "6908643", Schema: Person, // BETWEEN 1967 and 1969
			Names: []Name{{"KIM JONG SIK", Primary}, {"Kim Cho’ng-sik", Alias}},
			DOBs:  []string{"1967", "1968", "1969"}, Countries: []string{"KP"}, Reference: "KPi.066"},
		{ID: "6908012", Schema: Person,
			DOBs: []string{"1971-05-23"}, Countries: []string{"CD"}, Documents: []string{"Passport: OB 0243318"},
			Reference: "CDi.021"},
		{ID: "6908402", Schema: Organization,
			Names: []Name{
				{"ADF", Primary}, {"Allied Democratic Forces", Alias},
				{"Forces Démocratiques Alliées-Armée Nationale de Libération de l’Ouganda", Formerly},
				{"ADF/NALU", Formerly}, {"NALU", Formerly},
			},
			Countries: []string{"CD"}, Programs: []string{"DRC"}, Reference: "CDe.001"},
	} {
		checkEntity(t, m[want.ID], want)
	}
}
