package cmd_test

import (
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
)

// TestOrgsReportPersonalData: kycd orgs update --report-personal-data sets
// how an organization's reports print personal data (full by default),
// refuses other values, and is audited with the value.
func TestOrgsReportPersonalData(t *testing.T) {
	db := newDB(t)
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme")
	org := strings.TrimSpace(out)
	setting := func() kyc.PersonalData {
		s, err := store.Open(t.Context(), db, store.Options{CheckpointEvery: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		set, err := s.FindOrgSettings(t.Context(), org)
		if err != nil {
			t.Fatal(err)
		}
		return set.ReportPersonalData
	}
	if got := setting(); got != kyc.PersonalDataFull {
		t.Fatalf("default %q, want full", got)
	}
	if code, out, errOut := run(t, "orgs", "update", org, "--db", db, "--report-personal-data", "masked"); code != 0 || out != org+": report personal data masked\n" {
		t.Fatalf("update: %d %q %q", code, out, errOut)
	}
	if got := setting(); got != kyc.PersonalDataMasked {
		t.Errorf("after update %q, want masked", got)
	}
	if code, _, errOut := run(t, "orgs", "update", org, "--db", db, "--report-personal-data", "some"); code != 2 || !strings.Contains(errOut, "--report-personal-data") {
		t.Errorf("--report-personal-data some: %d %q", code, errOut)
	}
	if code, out, _ := run(t, "orgs", "update", org, "--db", db, "--report-personal-data", "full"); code != 0 || !strings.Contains(out, "report personal data full") || setting() != kyc.PersonalDataFull {
		t.Errorf("back to full: %d %q", code, out)
	}
	s, err := store.Open(t.Context(), db, store.Options{CheckpointEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.FindAudit(t.Context(), org)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, r := range rows {
		if r.Action == "organization.report_personal_data_changed" && r.Reason != nil {
			reasons = append(reasons, *r.Reason)
		}
	}
	if strings.Join(reasons, ",") != "report personal data: masked,report personal data: full" {
		t.Errorf("audit rows %q", reasons)
	}
}
