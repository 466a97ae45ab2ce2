package aml_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kycd/aml"
	"kycd/kyc"
	"kycd/screening"
	"kycd/store"
)

// csvList is a CSV list of n generated entities, with Viktor Petrenko
// first when listed.
func csvList(n int, listed bool) string {
	var b strings.Builder
	b.WriteString("name,reference\n")
	if listed {
		b.WriteString("Viktor Petrenko,S-0\n")
		n--
	}
	for i := range n {
		fmt.Fprintf(&b, "Person%c%c Generated%c,S-%d\n", 'a'+i%26, 'a'+i/26%26, 'a'+i/676%26, i+1)
	}
	return b.String()
}

// tryImport imports body as source/kind, returning the error.
func (e *env) tryImport(source string, kind screening.Kind, body string, allow bool) (*aml.ImportResult, error) {
	e.t.Helper()
	f := filepath.Join(e.t.TempDir(), source+".csv")
	if err := os.WriteFile(f, []byte(body), 0o600); err != nil {
		e.t.Fatal(err)
	}
	res, err := aml.Import(e.t.Context(), e.st, aml.ImportSpec{Source: source, Kind: kind, Format: "csv", Files: []string{f}, AllowShrink: allow})
	if err == nil {
		if rerr := e.svc.Refresh(e.t.Context()); rerr != nil {
			e.t.Fatal(rerr)
		}
	}
	return res, err
}

// TestImportRefusesShrinkAndKindChange is the attack of issue 23 item 2:
// a one-row CSV imported under the sanctions source with kind pep replaced
// the whole list, and a listed person's live check answered no_match. A
// new version that changes its source's kind, or loses more than 20% of
// its entities, is refused (the active version stays and still matches)
// unless confirmed with AllowShrink.
func TestImportRefusesShrinkAndKindChange(t *testing.T) {
	e := newEnv(t)
	if _, err := e.tryImport("ofac-sdn", screening.Sanctions, csvList(100, true), false); err != nil {
		t.Fatal(err)
	}
	// Another source still covers sanctions, as in the report.
	if _, err := e.tryImport("un-sc", screening.Sanctions, csvList(5, false), false); err != nil {
		t.Fatal(err)
	}
	listed := func(what string) {
		t.Helper()
		if c := e.create("Viktor", "Petrenko", false); c.Status != kyc.AMLPotentialMatch {
			t.Fatalf("%s: a listed person's live check is %s", what, c.Status)
		}
	}
	listed("before")
	attacks := []struct {
		name string
		kind screening.Kind
		body string
	}{
		{"one row, kind pep", screening.PEP, "name,reference\nSomeone Else,X-1\n"},
		{"same kind, one row", screening.Sanctions, "name,reference\nSomeone Else,X-1\n"},
		{"same kind, 79 of 100", screening.Sanctions, csvList(79, true)},
		{"kind change, same size", screening.PEP, csvList(100, true)},
	}
	for _, a := range attacks {
		_, err := e.tryImport("ofac-sdn", a.kind, a.body, false)
		var se *aml.ShrinkError
		if !errors.As(err, &se) {
			t.Fatalf("%s: %v, want a ShrinkError", a.name, err)
		}
		if se.Before != 100 || se.Source != "ofac-sdn" || !strings.Contains(err.Error(), "100") {
			t.Errorf("%s: %+v %q", a.name, se, err)
		}
		listed(a.name)
	}
	// 80 of 100 (a 20% loss) is within the default.
	if _, err := e.tryImport("ofac-sdn", screening.Sanctions, csvList(80, true), false); err != nil {
		t.Fatalf("a 20%% loss: %v", err)
	}
	// Confirmed, the shrink goes through.
	if _, err := e.tryImport("ofac-sdn", screening.Sanctions, csvList(10, true), true); err != nil {
		t.Fatalf("confirmed shrink: %v", err)
	}
	listed("after a confirmed shrink")
	// The confirmation is audited on the version (an installation row).
	res, err := e.st.FindListVersions(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	var audit []string
	for _, v := range res {
		if v.Source == "ofac-sdn" {
			entries, err := e.st.FindAudit(t.Context(), v.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range entries {
				if a.Reason != nil {
					audit = append(audit, a.Action+": "+*a.Reason)
				}
			}
		}
	}
	if !strings.Contains(strings.Join(audit, "|"), "watch_list.shrink_confirmed: confirmed: source ofac-sdn, kind sanctions → sanctions, entities 80 → 10") {
		t.Errorf("audit of the confirmed shrink: %v", audit)
	}
}

// TestLostKindFailsClosed: a confirmed kind change that leaves no list of a
// kind (pep) makes that kind lost: organizations on the default scope
// screen it still and answer error (not clear, not not_screened), each
// organization screening it gets an audit row, the service reports it; an
// organization that chose not to screen pep is not touched. A new pep
// list ends it.
func TestLostKindFailsClosed(t *testing.T) {
	e := newEnv(t)
	if _, err := e.tryImport("sanctions", screening.Sanctions, csvList(10, true), false); err != nil {
		t.Fatal(err)
	}
	if _, err := e.tryImport("peps", screening.PEP, pepCSV, false); err != nil {
		t.Fatal(err)
	}
	other := e.otherOrg("sanctions only", []string{"sanctions"})
	if c := e.create("Someone", "Clear", false); c.Results[1].Status != kyc.ListClear {
		t.Fatalf("pep before: %+v", c.Results[1])
	}
	res, err := e.tryImport("peps", screening.AdverseMedia, mediaCSV, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.LostKinds) != 1 || res.LostKinds[0] != screening.PEP {
		t.Fatalf("lost kinds: %v", res.LostKinds)
	}
	if got := e.svc.LostKinds(); len(got) != 1 || got[0] != screening.PEP {
		t.Fatalf("service's lost kinds: %v", got)
	}
	c := e.create("Someone", "Clear", false)
	if c.Results[1].Status != kyc.ListError || c.Status == kyc.AMLNoMatch {
		t.Fatalf("pep after it was lost: check %s, pep %+v", c.Status, c.Results[1])
	}
	lostRows := func(orgID string) int {
		rows, err := e.st.FindAuditRows(t.Context(), store.AuditFilter{OrganizationID: orgID, Action: "watch_list.kind_lost"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		return len(rows)
	}
	if lostRows(e.org.ID) != 1 || lostRows(other) != 0 {
		t.Errorf("audit rows: %d for the default scope, %d for sanctions only", lostRows(e.org.ID), lostRows(other))
	}
	if _, err := e.tryImport("new-peps", screening.PEP, pepCSV, false); err != nil {
		t.Fatal(err)
	}
	if got := e.svc.LostKinds(); len(got) != 0 {
		t.Errorf("lost kinds after a new pep list: %v", got)
	}
	if c := e.create("Someone", "Clear", false); c.Results[1].Status != kyc.ListClear {
		t.Errorf("pep after a new list: %+v", c.Results[1])
	}
}

// otherOrg makes a second organization screening kinds.
func (e *env) otherOrg(name string, kinds []string) string {
	e.t.Helper()
	var id string
	if err := e.st.InTx(e.t.Context(), func(tx *store.Tx) error {
		o, err := tx.CreateOrganization(name, "")
		if err != nil {
			return err
		}
		id = o.ID
		return tx.SetAMLKinds(o.ID, kinds)
	}); err != nil {
		e.t.Fatal(err)
	}
	return id
}
