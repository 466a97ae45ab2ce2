package screening

import (
	"testing"

	"kycd/kyc"
)

// TestProviderNamedOnce: two lists of one provider (OFAC's SDN and
// consolidated lists) name it once in a result's provider label; it read
// "OFAC, UN Security Council Consolidated List, OFAC".
func TestProviderNamedOnce(t *testing.T) {
	ents := []Entity{{ID: "1", Schema: Person, Names: []Name{{Full: "Ivan Petrov"}}}}
	list := func(id, source, provider string) *List {
		return &List{Version: kyc.ListVersionRef{ID: id, Source: source, Provider: provider}, Kind: Sanctions, Index: BuildIndex(ents)}
	}
	s, err := NewScreener()
	if err != nil {
		t.Fatal(err)
	}
	s.Swap([]*List{list("lsv_1", "ofac-sdn", "OFAC"), list("lsv_2", "un", "UN Security Council Consolidated List"),
		list("lsv_3", "ofac-consolidated", "OFAC")}, "t")
	res := s.ScreenKinds(kyc.Live, Query{Name: "Someone Else"}, 0.82, []Kind{Sanctions})
	if len(res) == 0 || res[0].Provider != "OFAC, UN Security Council Consolidated List" {
		t.Fatalf("provider label %q, want each provider once", res[0].Provider)
	}
	if len(res[0].Lists) != 3 {
		t.Errorf("lists %d, want every version screened (3)", len(res[0].Lists))
	}
}

// TestSearchableNamesIsIndexCount: the names an import reports
// (Entity.SearchableNames) are the names the index holds, the figure the
// service logs on loading. The OFAC SDN file of 2024-05-03 has a remark
// cut short after "a.k.a. '@": the import said 18,631 names, the log
// 18,630.
func TestSearchableNamesIsIndexCount(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{{"'@", false}, {"", false}, {" - ", false}, {"Ivan", true}, {"Иван", true}, {"محمد", true}, {"@AL3XL7", true}, {"007", true}} {
		if got := Searchable(tt.name); got != tt.want {
			t.Errorf("Searchable(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	synthetic := []Entity{{ID: "1", Names: []Name{{Full: "KONDRATIEV, Ivan"}, {Full: "'@"}, {Full: "Kondratyev Ivan"}}}}
	sdn, err := ParseOFAC(openShared(t, "lists/ofac_sdn_2024-05-03.csv"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for label, ents := range map[string][]Entity{"synthetic": synthetic, "ofac_sdn_2024-05-03": sdn} {
		all, searchable := 0, 0
		for i := range ents {
			all += len(ents[i].Names)
			searchable += ents[i].SearchableNames()
		}
		if got := BuildIndex(ents).NameCount(); got != searchable {
			t.Errorf("%s: import counts %d names, the index %d", label, searchable, got)
		}
		if searchable != all-1 {
			t.Errorf("%s: %d of %d names searchable, want all but the fragment '@", label, searchable, all)
		}
	}
}
