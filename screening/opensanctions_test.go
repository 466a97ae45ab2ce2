package screening

import (
	"reflect"
	"strings"
	"testing"
)

func TestTopicKinds(t *testing.T) {
	for _, tt := range []struct {
		topics []string
		want   []Kind
	}{
		{nil, nil},
		{[]string{"sanction"}, []Kind{Sanctions}},
		{[]string{"sanction.linked"}, []Kind{Sanctions}},
		{[]string{"sanction.counter"}, []Kind{Sanctions}},
		{[]string{"sanctioned"}, nil},
		{[]string{"role.pep"}, []Kind{PEP}},
		{[]string{"role.rca"}, []Kind{PEP}},
		{[]string{"role.judge", "gov.national", "fin.bank", "poi", "export.control"}, nil},
		{[]string{"crime"}, []Kind{AdverseMedia}},
		{[]string{"crime.fin"}, []Kind{AdverseMedia}},
		{[]string{"wanted"}, []Kind{AdverseMedia}},
		{[]string{"debarment"}, []Kind{AdverseMedia}},
		{[]string{"corp.disqual"}, []Kind{AdverseMedia}},
		{[]string{"reg.warn"}, []Kind{AdverseMedia}},
		{[]string{"reg.action"}, []Kind{AdverseMedia}},
		// Order follows Kinds, whatever the topic order; repeats collapse.
		{[]string{"crime", "role.pep", "sanction", "sanction.linked", " Role.PEP "}, []Kind{Sanctions, PEP, AdverseMedia}},
	} {
		if got := TopicKinds(tt.topics); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("TopicKinds(%q) = %v, want %v", tt.topics, got, tt.want)
		}
	}
}

func TestParseFTMFixture(t *testing.T) {
	want := map[Kind][]string{
		Sanctions:    {"NK-person1", "NK-company1", "NK-vessel"},
		PEP:          {"NK-person1", "NK-rca"},
		AdverseMedia: {"NK-crime", "NK-rca"},
	}
	all := map[string]Entity{}
	for _, k := range Kinds {
		es, err := ParseFTM(openFixture(t, "opensanctions/ftm.jsonl"), k)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, es)
		if got := entityIDs(es); !reflect.DeepEqual(got, want[k]) {
			t.Fatalf("%s: %q, want %q", k, got, want[k])
		}
		for _, e := range es {
			all[e.ID] = e
		}
	}
	for _, want := range []Entity{
		{ID: "NK-person1", Schema: Person,
			Names: []Name{
				{"Ivan Petrovich Testov", Primary}, {"Ivan Petrovich Oldov", Formerly}, {"ivan testov", Formerly},
				{"Vanya", Weak}, {"Vanya Testov", Alias}, {"TESTOV, Ivan Petrovich", Alias}, {"Иван Петрович Тестов", Alias},
			},
			DOBs:      []string{"1970-05", "1971-01-02"},
			Countries: []string{"RU", "UA"}, // "suhh" is no ISO code
			Documents: []string{"Passport: 7501 123456", "ID: 770123456789"},
			Programs:  []string{"sanction", "role.pep", "US-RUSHAR"},
			Reference: "https://example.gov/1",
			Reason:    "Deputy minister.\nListed in 2022."},
		{ID: "NK-company1", Schema: Organization, Names: []Name{{"Test Arms JSC", Primary}, {"TAJ", Weak}},
			Countries: []string{"RU"}, Programs: []string{"sanction.linked", "export.control"},
			Reference: "https://www.opensanctions.org/entities/NK-company1"},
		{ID: "NK-crime", Schema: Person, Names: []Name{{"Jane Q Crook", Primary}}, DOBs: []string{"1980"},
			Countries: []string{"XK"}},
		{ID: "NK-vessel", Schema: Vessel, Countries: []string{"IR"}},
		{ID: "NK-rca", Schema: Person, Names: []Name{{"Maria Testova", Primary}}, Countries: []string{}},
	} {
		checkEntity(t, all[want.ID], want)
	}
}

func TestParseFTMErrors(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"not json", "{\"id\":\"a\"}\n\n{oops\n", "ftm: line 3: invalid character"},
		{"bad date", `{"id":"x","caption":"X","schema":"Person","properties":{"topics":["sanction"],"birthDate":["1970-13"]}}`,
			`ftm: line 1: entity x: birthDate "1970-13": not a date`},
		{"no name", `{"id":"x","schema":"Person","properties":{"topics":["sanction"]}}`, "ftm: line 1: entity x: no name"},
		{"property not a list", `{"id":"x","caption":"X","schema":"Person","properties":{"name":"X"}}`, "ftm: line 1: json: cannot unmarshal"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseFTM(strings.NewReader(tt.in), Sanctions)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestParseFTMReal reads the OpenSanctions FtM sample: 91 lines, of which
// 17 are parties (6 Person, 11 Company); by their topics 14 are sanctioned,
// 9 have adverse topics (debarment, corp.disqual) and none is a PEP
// (counted with Python's json module).
func TestParseFTMReal(t *testing.T) {
	for k, want := range map[Kind]int{Sanctions: 14, PEP: 0, AdverseMedia: 9} {
		es, err := ParseFTM(openShared(t, "lists/opensanctions_ftm_sample.jsonl"), k)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("FtM sample, %s: %d entities", k, len(es))
		checkInvariants(t, es)
		if len(es) != want {
			t.Errorf("%s: %d entities, want %d", k, len(es), want)
		}
		if k != Sanctions {
			continue
		}
		e := byID(t, es)["NK-2Tbri3s6GgNtAwsSXh4qpL"]
		checkEntity(t, e, Entity{ID: "NK-2Tbri3s6GgNtAwsSXh4qpL", Schema: Person,
			DOBs: []string{"1988-01-07"}, Countries: []string{"RU"}, Documents: []string{"ID: 183116181362"},
			Programs:  []string{"debarment", "corp.disqual", "sanction", "UA-SA1644", "US-RUSHAR", "GB-RUS"},
			Reference: "https://find-and-update.company-information.service.gov.uk/disqualified-officers/natural/ujZQM0vwzknOOVjrqsL98DDfzCk"})
		if len(e.Names) < 3 || e.Names[0] != (Name{"Maria Aleksandrovna Osetrova", Primary}) ||
			e.Names[1] != (Name{"Maria Aleksandrovna Zakharova", Formerly}) {
			t.Errorf("Osetrova names: %+v", e.Names)
		}
	}
}

func TestParseSenzingFixture(t *testing.T) {
	want := map[Kind][]string{
		Sanctions:    {"NK-org1"},
		PEP:          {"NK-pep1", "NK-org1", "NK-pep2"},
		AdverseMedia: nil,
	}
	all := map[string]Entity{}
	for _, k := range Kinds {
		es, err := ParseSenzing(openFixture(t, "opensanctions/senzing.jsonl"), k)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, es)
		if got := entityIDs(es); !reflect.DeepEqual(got, want[k]) {
			t.Fatalf("%s: %q, want %q", k, got, want[k])
		}
		for _, e := range es {
			all[e.ID] = e
		}
	}
	for _, want := range []Entity{
		{ID: "NK-pep1", Schema: Person,
			Names:     []Name{{"Jennifer L. McTest", Primary}, {"Jen McTest", Alias}, {"Jennifer Lee McTest", Alias}},
			DOBs:      []string{"1972-03-04"},
			Countries: []string{"US", "CA", "GB"},
			Documents: []string{"Passport: X1234567"},
			Programs:  []string{"role.pep"}, Reference: "https://www.opensanctions.org/entities/NK-pep1"},
		{ID: "NK-org1", Schema: Organization, Names: []Name{{"Test Holdings Ltd", Primary}},
			Countries: []string{"CY"}, Programs: []string{"sanction", "role.rca"}},
		{ID: "NK-pep2", Names: []Name{{"Bob Second", Primary}, {"Robert Second", Alias}}, DOBs: []string{"1950"}},
	} {
		checkEntity(t, all[want.ID], want)
	}
}

func TestParseSenzingErrors(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"not json", "[1,2]\n", "senzing: line 1: json: cannot unmarshal array"},
		{"bad date", `{"RECORD_ID":"r","NAMES":[{"NAME_FULL":"A"}],"RISKS":[{"TOPIC":"role.pep"}],"DATES":[{"DATE_OF_BIRTH":"3/4/1972"}]}`,
			`senzing: line 1: record r: DATE_OF_BIRTH "3/4/1972": not a date`},
		{"no name", `{"RECORD_ID":"r","RISKS":[{"TOPIC":"role.pep"}]}`, "senzing: line 1: record r: no name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSenzing(strings.NewReader(tt.in), PEP)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestParseSenzingReal reads the US Congress PEP export: 1319 lines, 1317
// with a role.pep risk (`grep -c '"TOPIC":"role.pep"'`); the other two are
// the positions they hold.
func TestParseSenzingReal(t *testing.T) {
	for k, want := range map[Kind]int{Sanctions: 0, PEP: 1317, AdverseMedia: 0} {
		es, err := ParseSenzing(openShared(t, "lists/opensanctions_us_congress_peps_senzing.jsonl"), k)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("Senzing US Congress PEPs, %s: %d entities", k, len(es))
		checkInvariants(t, es)
		if len(es) != want {
			t.Errorf("%s: %d entities, want %d", k, len(es), want)
		}
		if k != PEP {
			continue
		}
		m := byID(t, es)
		checkEntity(t, m["Q111285444"], Entity{ID: "Q111285444", Schema: Person,
			Names: []Name{{"Katie Boyd Britt", Primary}, {"Katie Britt", Alias}},
			DOBs:  []string{"1982"}, Countries: []string{"US"}, Programs: []string{"role.pep"},
			Reference: "https://www.opensanctions.org/entities/Q111285444"})
		checkEntity(t, m["NK-AQ4HymsADSK2D63MkyTqfC"], Entity{ID: "NK-AQ4HymsADSK2D63MkyTqfC",
			Names: []Name{{"Jennifer L. McClellan", Primary}}, DOBs: []string{"1972"}, Countries: []string{"US"}})
	}
}

func entityIDs(es []Entity) []string {
	var ids []string
	for _, e := range es {
		ids = append(ids, e.ID)
	}
	return ids
}
