package screening

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func openFixture(t testing.TB, rel string) *os.File {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// byID indexes entities and fails on a repeated ID.
func byID(t testing.TB, es []Entity) map[string]Entity {
	t.Helper()
	m := map[string]Entity{}
	for _, e := range es {
		if _, dup := m[e.ID]; dup {
			t.Fatalf("ID %s twice", e.ID)
		}
		m[e.ID] = e
	}
	return m
}

// checkEntity compares the fields a test cares about; nil want fields are
// not checked.
func checkEntity(t testing.TB, got, want Entity) {
	t.Helper()
	if got.ID != want.ID {
		t.Errorf("ID = %q, want %q", got.ID, want.ID)
	}
	if want.Schema != "" && got.Schema != want.Schema {
		t.Errorf("%s: Schema = %q, want %q", want.ID, got.Schema, want.Schema)
	}
	for _, f := range []struct {
		name      string
		got, want any
		check     bool
	}{
		{"Names", got.Names, want.Names, want.Names != nil},
		{"DOBs", got.DOBs, want.DOBs, want.DOBs != nil},
		{"Countries", got.Countries, want.Countries, want.Countries != nil},
		{"Programs", got.Programs, want.Programs, want.Programs != nil},
		{"Documents", got.Documents, want.Documents, want.Documents != nil},
		{"Reference", got.Reference, want.Reference, want.Reference != ""},
		{"Reason", got.Reason, want.Reason, want.Reason != ""},
	} {
		if f.check && !sameValue(f.got, f.want) {
			t.Errorf("%s: %s = %#v\nwant %#v", want.ID, f.name, f.got, f.want)
		}
	}
}

// sameValue is reflect.DeepEqual except that a nil and an empty slice
// are the same: a want of []string{} means "none".
func sameValue(got, want any) bool {
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	if g.Kind() == reflect.Slice && w.Kind() == reflect.Slice && g.Len() == 0 && w.Len() == 0 {
		return true
	}
	return reflect.DeepEqual(got, want)
}

// checkInvariants checks what every importer promises about every entity.
func checkInvariants(t testing.TB, es []Entity) {
	t.Helper()
	for _, e := range es {
		if e.ID == "" || len(e.Names) == 0 || e.Names[0].Type != Primary {
			t.Fatalf("entity %q: no ID or no primary name first: %+v", e.ID, e.Names)
		}
		seen := map[string]bool{}
		for i, n := range e.Names {
			key := strings.ToLower(n.Full)
			if n.Full == "" || n.Full != strings.Join(strings.Fields(n.Full), " ") || seen[key] {
				t.Fatalf("entity %s: bad or repeated name %q", e.ID, n.Full)
			}
			if i > 0 && n.Type == Primary {
				t.Fatalf("entity %s: second primary name %q", e.ID, n.Full)
			}
			seen[key] = true
		}
		for _, c := range e.Countries {
			if !ValidCountryCode(c) {
				t.Fatalf("entity %s: country %q", e.ID, c)
			}
		}
		for _, d := range e.DOBs {
			if !validDOB(d) {
				t.Fatalf("entity %s: DOB %q", e.ID, d)
			}
		}
	}
}

func TestParseOFACFixture(t *testing.T) {
	es, err := ParseOFAC(openFixture(t, "ofac/sdn.csv"), openFixture(t, "ofac/alt.csv"), openFixture(t, "ofac/add.csv"))
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, es)
	if len(es) != 6 {
		t.Fatalf("%d entities, want 6", len(es))
	}
	m := byID(t, es)
	for _, want := range []Entity{
		{ID: "36", Schema: Organization,
			Names:     []Name{{"AEROCARIBBEAN AIRLINES", Primary}, {"AERO-CARIBBEAN", Alias}},
			Countries: []string{"CU"}, Programs: []string{"CUBA"}, Reference: "OFAC ent_num 36"},
		{ID: "2686", Schema: Person,
			// "ABU HADI" is both a weak aka in alt.csv and a remark a.k.a.: listed once.
			Names:     []Name{{"NASRALLAH, Hasan", Primary}, {"NASRALLAH, Hasan Abd-al-Karim", Alias}, {"ABU HADI", Weak}},
			DOBs:      []string{"1960-08-31", "1953-08-31"},
			Countries: []string{"LB"}, Programs: []string{"SDGT", "SYRIA"},
			Documents: []string{"Passport: 042833"},
			Reason:    "DOB 31 Aug 1960; alt. DOB 31 Aug 1953; POB Al Basuriyah, Lebanon; Gender Male; Passport 042833 (Lebanon); a.k.a. 'ABU HADI'; Linked To: HIZBALLAH."},
		{ID: "12057", Schema: Person,
			Names: []Name{
				{"NAQDI, Mohammad Reza", Primary}, {"NAGHDI, Mohammad Reza", Alias},
				{"SHAMS, Mohammad Reza", Formerly}, {"NAQDI, Muhammad", Weak}, {"SHAMS, 'Ali", Formerly},
			},
			DOBs:      []string{"1951", "1952", "1953", "1959", "1960", "1961", "1961-04"},
			Countries: []string{"CD", "KP", "IR"},
			Programs:  []string{"SDGT", "IRGC", "CAATSA - RUSSIA"},
			Documents: []string{"National ID No.: 123-45"}},
		{ID: "4234", Schema: Vessel, Names: []Name{{"HERMANN", Primary}}, Countries: []string{"CU"},
			Documents: []string{"Vessel Registration Identification: IMO 7406784"}},
		{ID: "25538", Schema: Aircraft, Countries: []string{}, Programs: []string{"IRAN"}},
		{ID: "9639", Schema: Person, DOBs: []string{"1962"}, Countries: []string{"PS"}},
	} {
		checkEntity(t, m[want.ID], want)
	}
}

func TestParseOFACNilAltAdd(t *testing.T) {
	es, err := ParseOFAC(openFixture(t, "ofac/sdn.csv"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := byID(t, es)
	// Without alt.csv the remark a.k.a. is the only alias.
	checkEntity(t, m["2686"], Entity{ID: "2686", Names: []Name{{"NASRALLAH, Hasan", Primary}, {"ABU HADI", Weak}}})
	checkEntity(t, m["9639"], Entity{ID: "9639", Countries: []string{}})
}

func TestParseOFACErrors(t *testing.T) {
	const sdn = "1,\"A\",\"individual\",\"SDGT\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- \n"
	for _, tt := range []struct {
		name, sdn, alt, add, want string
	}{
		{"orphan alias", sdn, "2,1,\"aka\",\"B\",-0- \n", "", `ofac alt: line 1: ent_num "2" is not in sdn, nor are the entities of 0 more rows: the alias file (alt.csv) comes from another publication, probably newer`},
		{"orphan address", sdn, "", "1,1,-0- ,-0- ,\"Cuba\",-0- \n9,2,-0- ,-0- ,\"Cuba\",-0- \n", `ofac add: line 2: ent_num "9" is not in sdn`},
		{"orphan old address", "5" + sdn[1:], "", "1,1,-0- ,-0- ,\"Cuba\",-0- \n", `address file (add.csv) comes from another publication, probably older`},
		{"repeated ent_num", sdn + sdn, "", "", "ofac sdn: line 2: ent_num 1 listed twice"},
		{"bad ent_num", "x" + sdn[1:], "", "", `ofac sdn: line 1: ent_num "x" is not a number`},
		{"short row", "1,\"A\",-0- \n", "", "", "ofac sdn: line 1: 3 fields, want 12"},
		{"no name", strings.Replace(sdn, `"A"`, "-0- ", 1), "", "", "ofac sdn: line 1: ent_num 1: no name"},
		{"unknown alt type", sdn, "1,1,\"aka?\",\"B\",-0- \n", "", `ofac alt: line 1: unknown alt_type "aka?"`},
		{"bad quoting", "1,\"A,-0-\n", "", "", "ofac sdn:"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var alt, add io.Reader
			if tt.alt != "" {
				alt = strings.NewReader(tt.alt)
			}
			if tt.add != "" {
				add = strings.NewReader(tt.add)
			}
			_, err := ParseOFAC(strings.NewReader(tt.sdn), alt, add)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestParseOFACMixedPublications: an SDN file of 2021 with the alias file
// of 2025 (the real files) is refused with an error that says which files
// belong together and how to get a matching set.
func TestParseOFACMixedPublications(t *testing.T) {
	_, err := ParseOFAC(openShared(t, "lists/ofac_sdn_2021-07.csv"), openShared(t, "lists/ofac_alt_2025-12.csv"), nil)
	var me *OFACMismatchError
	if !errors.As(err, &me) || me.File != "alt" || me.Rows < 100 || me.Newer*2 <= me.Rows {
		t.Fatalf("err = %#v, want an alt mismatch with mostly newer rows", err)
	}
	for _, want := range []string{"another publication", "newer than the primary file", "sdn.csv, alt.csv and add.csv", "kycd lists update --source ofac-sdn"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestParseOFACEmpty(t *testing.T) {
	for _, in := range []string{"", "\x1a", "\r\n\x1a"} {
		es, err := ParseOFAC(strings.NewReader(in), strings.NewReader(in), strings.NewReader(in))
		if err != nil || len(es) != 0 {
			t.Fatalf("ParseOFAC(%q) = %d entities, %v; want none, nil", in, len(es), err)
		}
	}
}

func TestOFACPrograms(t *testing.T) {
	for in, want := range map[string][]string{
		"SDGT":                                {"SDGT"},
		"SDGT] [IFSR":                         {"SDGT", "IFSR"},
		"[SDGT] [IRGC]":                       {"SDGT", "IRGC"},
		"NPWMD] [CAATSA - RUSSIA":             {"NPWMD", "CAATSA - RUSSIA"},
		"":                                    nil,
		"] [":                                 nil,
		"SOUTH SUDAN":                         {"SOUTH SUDAN"},
		" UKRAINE-EO13662]  [RUSSIA-EO14024 ": {"UKRAINE-EO13662", "RUSSIA-EO14024"},
	} {
		if got := ofacPrograms(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ofacPrograms(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParseOFACReal2021 reads the consistent 2021-07 trio. The counts were
// taken with `grep -c ”` (8977 lines = 8976 rows + the Ctrl-Z line) and
// by counting SDN_Type with Python's csv module.
func TestParseOFACReal2021(t *testing.T) {
	start := time.Now()
	es, err := ParseOFAC(openShared(t, "lists/ofac_sdn_2021-07.csv"),
		openShared(t, "lists/ofac_alt_2021-07.csv"), openShared(t, "lists/ofac_add_2021-07.csv"))
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, es)
	t.Logf("OFAC SDN 2021-07 trio: %d entities in %v, %v", len(es), time.Since(start), schemaCounts(es))
	if want := map[Schema]int{Person: 4620, Organization: 3673, Vessel: 406, Aircraft: 277}; !reflect.DeepEqual(schemaCounts(es), want) {
		t.Fatalf("schemas %v, want %v", schemaCounts(es), want)
	}
	m := byID(t, es)
	for _, want := range []Entity{
		{ID: "306", Schema: Organization,
			Names:     []Name{{"BANCO NACIONAL DE CUBA", Primary}, {"NATIONAL BANK OF CUBA", Alias}, {"BNC", Weak}},
			Countries: []string{"CH", "ES", "JP", "PA"}, Programs: []string{"CUBA"}},
		{ID: "12057", Schema: Person,
			Names: []Name{
				{"NAQDI, Mohammad Reza", Primary}, {"NAGHDI, Mohammad Reza", Alias}, {"SHAMS, Mohammad Reza", Alias},
				{"NAQDI, Muhammad", Alias}, {"NAQDI, Mohammad-Reza", Alias}, {"NAGHDI, Mohammedreza", Alias},
				{"NAQDI, Gholamreza", Alias}, {"NAQDI, Gholam-reza", Alias},
			},
			// DOB 1951 to 1953; alt. DOB 1960 to 1962; alt. DOB Apr 1961; alt. DOB 1953
			DOBs: []string{"1951", "1952", "1953", "1960", "1961", "1962", "1961-04"},
			// POB Najaf, Iraq; alt. POB Tehran, Iran; nationality Iran; add.csv Iran
			Countries: []string{"IQ", "IR"},
			Programs:  []string{"SDGT", "NPWMD", "IRGC", "IFSR", "IRAN-HR", "IRAN-EO13876"}},
		{ID: "11648", Schema: Person,
			Names: []Name{
				{"KIM, Tong-Myo'ng", Primary}, {"KIM, CHIN-SO'K", Alias}, {"KIM, TONG MYONG", Alias},
				{"KIM, HYOK CHOL", Alias}, {"KIM, JIN SOK", Weak},
			},
			DOBs: []string{"1964", "1962-08-28"}, Countries: []string{"KP"},
			Documents: []string{"Passport: 290320764"}},
		{ID: "2676", Schema: Person, DOBs: []string{"1951-06-19"}, Countries: []string{"EG"},
			Documents: []string{"Passport: 1084010", "Passport: 19820215"}},
		{ID: "7782", DOBs: []string{"1950", "1951", "1952"}, Countries: []string{"BA"}}, // DOB circa 1951; POB Foca, Bosnia-Herzegovina
		{ID: "4234", Schema: Vessel, Names: []Name{{"HERMANN", Primary}}, Countries: []string{"CU"}},
	} {
		checkEntity(t, m[want.ID], want)
	}
}

// TestParseOFACRealConsolidated reads the 2025-12 non-SDN trio: 442 rows
// (79 individual, 363 "-0-"), counted with Python's csv module.
func TestParseOFACRealConsolidated(t *testing.T) {
	start := time.Now()
	es, err := ParseOFAC(openShared(t, "lists/ofac_cons_prim_2025-12.csv"),
		openShared(t, "lists/ofac_cons_alt_2025-12.csv"), openShared(t, "lists/ofac_cons_add_2025-12.csv"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("OFAC consolidated 2025-12 trio: %d entities in %v", len(es), time.Since(start))
	checkInvariants(t, es)
	if want := map[Schema]int{Person: 79, Organization: 363}; !reflect.DeepEqual(schemaCounts(es), want) {
		t.Fatalf("schemas %v, want %v", schemaCounts(es), want)
	}
	checkEntity(t, byID(t, es)["9639"], Entity{ID: "9639", Schema: Person,
		Names: []Name{{"HANIYA, Ismail Abdul Salah", Primary}, {"HANIYA, Ismail", Alias}, {"HANIYYA, Ismaeel", Alias}},
		DOBs:  []string{"1962"}, Programs: []string{"NS-PLC"}, Reason: "DOB 1962; POB Shati."})
}

// TestParseOFACRealDaily reads the two consecutive 2024-05 SDN files alone
// (no alt/add of the same days exist): 14973 and 14965 rows by Python's
// csv module, and the 2025-12 alt.csv must not be accepted with them.
func TestParseOFACRealDaily(t *testing.T) {
	for file, want := range map[string]map[Schema]int{
		"ofac_sdn_2024-05-02.csv": {Person: 6854, Organization: 6885, Vessel: 851, Aircraft: 383},
		"ofac_sdn_2024-05-03.csv": {Person: 6854, Organization: 6884, Vessel: 851, Aircraft: 376},
	} {
		start := time.Now()
		es, err := ParseOFAC(openShared(t, "lists/"+file), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d entities in %v", file, len(es), time.Since(start))
		checkInvariants(t, es)
		if got := schemaCounts(es); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: schemas %v, want %v", file, got, want)
		}
	}
	_, err := ParseOFAC(openShared(t, "lists/ofac_sdn_2024-05-03.csv"), openShared(t, "lists/ofac_alt_2025-12.csv"), nil)
	if err == nil || !strings.Contains(err.Error(), "not in sdn") {
		t.Fatalf("mixed publications: err = %v, want an ent_num not in sdn", err)
	}
}

func schemaCounts(es []Entity) map[Schema]int {
	m := map[Schema]int{}
	for _, e := range es {
		m[e.Schema]++
	}
	return m
}
