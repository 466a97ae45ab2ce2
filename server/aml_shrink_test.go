package server_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"kycd/aml"
	"kycd/screening"
	"kycd/server"
)

// TestAMLListShrinkAttack replays issue 23 item 2 through the API: a
// one-row CSV imported as the sanctions source with kind pep is refused
// and a listed person's live check stays potential_match; once the kind
// change is confirmed and no sanctions list is left, live checks answer
// failed (sanctions error), never no_match, and /metrics says the kind is
// lost.
func TestAMLListShrinkAttack(t *testing.T) {
	e := newAPIEnv(t, func(o *server.Options) {})
	sc, err := screening.NewScreener()
	if err != nil {
		t.Fatal(err)
	}
	svc := aml.New(e.store, sc, nil)
	e.opts.AML = svc
	e.start()
	var list strings.Builder
	list.WriteString("name,reference\nIvan Petrovich Sidorov,S-0\n")
	for i := range 40 {
		fmt.Fprintf(&list, "Listed Person%c%c,S-%d\n", 'a'+i%26, 'a'+i/26, i+1)
	}
	importCSV(t, e, "ofac-sdn", screening.Sanctions, list.String())
	if err := svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	one := t.TempDir() + "/one.csv"
	if err := writeFile(one, "name,reference\nSomeone Else,X-1\n"); err != nil {
		t.Fatal(err)
	}
	spec := aml.ImportSpec{Source: "ofac-sdn", Kind: screening.PEP, Format: "csv", Files: []string{one}}
	var se *aml.ShrinkError
	if _, err := aml.Import(t.Context(), e.store, spec); !errors.As(err, &se) {
		t.Fatalf("one-row pep import over the sanctions source: %v", err)
	}
	if err := svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	if c := e.mustAML(e.A.LiveKey, `{"firstName":"Ivan","lastName":"Sidorov"}`); c["status"] != "potential_match" {
		t.Fatalf("listed person after the refused import: %v", c["status"])
	}
	if body := e.scrape(""); !strings.Contains(body, `kycd_screening_list_kind_lost{kind="sanctions"} 0`) {
		t.Errorf("metric before: %s", grepLines(body, "kind_lost"))
	}

	spec.AllowShrink = true
	res, err := aml.Import(t.Context(), e.store, spec)
	if err != nil || len(res.LostKinds) != 1 || res.LostKinds[0] != screening.Sanctions {
		t.Fatalf("confirmed kind change: %+v %v", res, err)
	}
	if err := svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	c := e.mustAML(e.A.LiveKey, `{"firstName":"Ivan","lastName":"Sidorov"}`)
	if rs := results(t, c); c["status"] != "failed" || rs["sanctions"]["status"] != "error" {
		t.Fatalf("listed person once sanctions are lost: %v", c)
	}
	if body := e.scrape(""); !strings.Contains(body, `kycd_screening_list_kind_lost{kind="sanctions"} 1`) {
		t.Errorf("metric after: %s", grepLines(body, "kind_lost"))
	}
}

func grepLines(body, word string) string {
	var out []string
	for l := range strings.SplitSeq(body, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
