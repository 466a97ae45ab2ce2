package server_test

import (
	"testing"

	"kycd/aml"
	"kycd/screening"
	"kycd/server"
	"kycd/store"
)

// TestAMLKindsInScope: a live installation with sanctions and PEP lists
// but no adverse-media list used to answer failed to every clean name; by
// default the organization now screens the kinds that have a list, the
// other is not_screened, and the check is no_match. An organization that
// chooses adverse media keeps fail-closed for it; one that leaves PEP out
// gets not_screened for PEP even for a listed PEP.
func TestAMLKindsInScope(t *testing.T) {
	e := newAPIEnv(t, func(o *server.Options) {})
	sc, err := screening.NewScreener()
	if err != nil {
		t.Fatal(err)
	}
	svc := aml.New(e.store, sc, nil)
	e.opts.AML = svc
	e.start()
	importCSV(t, e, "in-house-sanctions", screening.Sanctions, "name,reference\nIvan Petrovich Sidorov,S-1\n")
	importCSV(t, e, "in-house-pep", screening.PEP, "name,reference\nMaria Gonzalez Lopez,P-1\n")
	if err := svc.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}

	c := e.mustAML(e.A.LiveKey, `{"firstName":"Ada","lastName":"Lovelace"}`)
	rs := results(t, c)
	if c["status"] != "no_match" || rs["sanctions"]["status"] != "clear" || rs["pep"]["status"] != "clear" ||
		rs["adverse_media"]["status"] != "not_screened" || rs["adverse_media"]["error"] != nil || rs["adverse_media"]["provider"] != "none" {
		t.Fatalf("default scope, clean name: %v", c)
	}

	setKinds := func(kinds []string) {
		t.Helper()
		if err := e.store.InTx(t.Context(), func(tx *store.Tx) error { return tx.SetAMLKinds(e.A.ID, kinds) }); err != nil {
			t.Fatal(err)
		}
	}
	setKinds([]string{"sanctions", "pep", "adverse_media"})
	c = e.mustAML(e.A.LiveKey, `{"firstName":"Ada","lastName":"Lovelace"}`)
	if rs := results(t, c); c["status"] != "failed" || rs["adverse_media"]["status"] != "error" {
		t.Fatalf("adverse media chosen without a list: %v", c)
	}

	setKinds([]string{"sanctions"})
	c = e.mustAML(e.A.LiveKey, `{"firstName":"Maria","lastName":"Gonzalez Lopez"}`)
	if rs := results(t, c); c["status"] != "no_match" || rs["pep"]["status"] != "not_screened" || rs["pep"]["matchCount"] != 0.0 {
		t.Fatalf("PEP left out, listed PEP: %v", c)
	}
	c = e.mustAML(e.A.LiveKey, `{"firstName":"Ivan","lastName":"Sidorov"}`)
	if c["status"] != "potential_match" {
		t.Fatalf("sanctions stay in scope: %v", c["status"])
	}
	// Sandbox follows the organization's choice too.
	c = e.mustAML(e.A.SandboxKey, `{"firstName":"Sandbox","lastName":"Politician"}`)
	if rs := results(t, c); c["status"] != "no_match" || rs["pep"]["status"] != "not_screened" {
		t.Fatalf("sandbox, PEP left out: %v", c)
	}
}
