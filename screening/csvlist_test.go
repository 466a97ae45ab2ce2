package screening

import (
	"strings"
	"testing"
)

func TestParseCSVFixture(t *testing.T) {
	es, err := ParseCSV(openFixture(t, "csv/vendor.csv"), Sanctions)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, es)
	if len(es) != 4 {
		t.Fatalf("%d entities, want 4 (the all-empty row is skipped)", len(es))
	}
	for i, want := range []Entity{
		{ID: "V-001", Schema: Person,
			Names:     []Name{{"DOE, John", Primary}, {"Johnny Doe", Alias}, {"J. Doe", Alias}},
			DOBs:      []string{"1960-01-02", "1961"},
			Countries: []string{"US", "GB"}, // US, gb and United Kingdom
			Reference: "V-001", Reason: "Fraud conviction 2019"},
		{ID: "V-002", Schema: Organization,
			Names: []Name{{"ACME Trading LLC", Primary}, {"ACME", Alias}},
			DOBs:  []string{}, Countries: []string{"KP"},
			Reference: "V-002", Reason: "Front company,\nsee file 12"},
		// No reference: the ID is the row's line (line 6; the quoted
		// reason above spans lines 3 and 4).
		{ID: "row-6", Schema: Person, Names: []Name{{"María José Pérez", Primary}},
			DOBs: []string{"1975-06"}, Countries: []string{"ES"}},
		{ID: "V-004", Schema: Person, Names: []Name{{"Ivan Testov", Primary}}, Countries: []string{}},
	} {
		checkEntity(t, es[i], want)
	}
	if es[2].Reference != "" {
		t.Errorf("row-6 Reference = %q, want empty", es[2].Reference)
	}
}

func TestParseCSVErrors(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"empty file", "", "line 1: no header row"},
		{"unknown column", "name,countries\nA,US\n", `line 1: unknown column "countries"`},
		{"repeated column", "name,dob,Name\nA,,B\n", `line 1: column "name" appears twice`},
		{"no name column", "aliases,dob\nA,1960\n", "line 1: no name column"},
		{"empty name", "name,dob\n  ,1960\n", "line 2: name: empty"},
		{"bad month", "name,dob\nA,1960\nB,1960-13-01\n", `line 3: dob "1960-13-01": not a date`},
		{"bad day", "name,dob\nA,1960-02-30\n", `line 2: dob "1960-02-30": not a date`},
		{"not a date", "name,dob\nA,01/02/1960\n", `line 2: dob "01/02/1960": not a date`},
		{"date after multi-line field", "name,reason,dob\nA,\"x\ny\",1960-13-01\n", `line 3: dob "1960-13-01": not a date`},
		{"unknown country", "name,country\nA,US;Atlantis\n", `line 2: country "Atlantis": not an ISO code or known country name`},
		{"bad code", "name,country\nA,ZZ\n", `line 2: country "ZZ"`},
		{"wrong kind", "name,kind\nA,pep\n", `line 2: kind "pep": this import is sanctions`},
		{"unknown kind", "name,kind\nA,terrorists\n", `line 2: kind "terrorists"`},
		{"repeated reference", "name,reference\nA,R1\nB,R2\nC,R1\n", `line 4: reference "R1": already used on line 2`},
		{"reference like a row id", "name,reference\nA,row-3\nB,\n", `line 3: reference "row-3": already used on line 2`},
		{"bad schema", "name,schema\nA,vessel\n", `line 2: schema "vessel": want person or organization`},
		{"short row", "name,dob\nA\n", "record on line 2: wrong number of fields"},
		{"bad quote", "name\n\"A\n", `extraneous or missing " in quoted-field`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			es, err := ParseCSV(strings.NewReader(tt.in), Sanctions)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v (%d entities), want it to contain %q", err, len(es), tt.want)
			}
		})
	}
	if _, err := ParseCSV(strings.NewReader("name\nA\n"), Kind("watch")); err == nil {
		t.Fatal("ParseCSV accepted kind \"watch\"")
	}
}

func TestParseCSVHeaderOnly(t *testing.T) {
	es, err := ParseCSV(strings.NewReader("NAME , Reference\r\n"), PEP)
	if err != nil || len(es) != 0 {
		t.Fatalf("header only: %d entities, %v", len(es), err)
	}
}

// FuzzParseCSV checks that ParseCSV never panics and that whatever it
// accepts upholds the Entity invariants, with unique IDs.
func FuzzParseCSV(f *testing.F) {
	for _, s := range []string{
		"name,aliases,dob,country,kind,reference,reason,schema\nA,B;C,1960;1961-02;1962-03-04,US;gb;Iran,sanctions,R1,why,person\n",
		"\ufeffName,Country\n\"DOE, John\",\"Korea, North\"\n,\n",
		"name,reference\nA,row-3\nB,\n",
		"name,dob\nA,1960-13-01\n",
		"name\n\"A\nB\"\n",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		es, err := ParseCSV(strings.NewReader(s), Sanctions)
		if err != nil {
			return
		}
		checkInvariants(t, es)
		ids := map[string]bool{}
		for _, e := range es {
			if ids[e.ID] {
				t.Fatalf("ID %q twice", e.ID)
			}
			ids[e.ID] = true
			if e.Schema != Person && e.Schema != Organization {
				t.Fatalf("schema %q", e.Schema)
			}
		}
	})
}
