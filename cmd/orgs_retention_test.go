package cmd_test

import (
	"strings"
	"testing"

	"kycd/store"
)

// TestOrgsRetention: kycd orgs update --retention-… sets an organization's
// retention periods, 'default' goes back to the default, bad values are
// refused before anything changes.
func TestOrgsRetention(t *testing.T) {
	db := newDB(t)
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme")
	org := strings.TrimSpace(out)
	code, out, errOut := run(t, "orgs", "update", org, "--db", db, "--retention-sandbox-days", "60", "--retention-decided-years", "7", "--retention-aml-years", "8")
	if code != 0 || out != org+": retention: decided 7 years after the later of the last decision and the relationship end, inactive 90 days, sandbox 60 days, AML checks 8 years\n" {
		t.Fatalf("update: %d %q %q", code, out, errOut)
	}
	code, out, errOut = run(t, "orgs", "update", org, "--db", db, "--retention-decided-years", "default", "--retention-aml-years", "default")
	if code != 0 || !strings.Contains(out, "decided 5 years") || !strings.Contains(out, "sandbox 60 days") || !strings.Contains(out, "AML checks 5 years") {
		t.Fatalf("back to default: %d %q %q", code, out, errOut)
	}
	for _, bad := range [][]string{{"--retention-sandbox-days", "0"}, {"--retention-inactive-days", "ninety"}, {"--retention-decided-years", "51"}, {"--retention-aml-years", "0"}, {"--retention-aml-years", "51"}} {
		if code, _, errOut := run(t, append([]string{"orgs", "update", org, "--db", db}, bad...)...); code == 0 || !strings.Contains(errOut, bad[0][2:]) && !strings.Contains(errOut, "retention") {
			t.Errorf("%v: %d %q", bad, code, errOut)
		}
	}
	s, err := store.Open(t.Context(), db, store.Options{CheckpointEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := s.RetentionOf(t.Context(), org)
	if err != nil || p.DecidedYears != 5 || p.SandboxDays != 60 || p.InactiveDays != 90 || p.AMLYears != 5 {
		t.Errorf("stored policy %+v, %v", p, err)
	}
}
