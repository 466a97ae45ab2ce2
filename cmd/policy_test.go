package cmd_test

import (
	"strings"
	"testing"

	"kycd/decision"
	"kycd/internal/reviewdata"
	"kycd/jobs"
	"kycd/kyc"
	"kycd/verification"
)

// TestOrgsPolicyDryRun: kycd orgs update --policy FILE --dry-run prints
// which of the last decided requests would change outcome and saves
// nothing; a changed policy under the version in force is refused.
func TestOrgsPolicyDryRun(t *testing.T) {
	db := newDB(t)
	_, out, _ := run(t, "orgs", "create", "--db", db, "--name", "Acme")
	org := strings.TrimSpace(out)
	st := openDBWithKey(t, db)
	_, engine, err := reviewdata.Engine(t.Context(), st, t.TempDir(), "test-sanctions", []reviewdata.Listed{
		{Reference: "TS-1", Name: "Viktor Petrenko", DOB: "1961-04-12", Country: "RU", Reason: "Test listing"}}, st.Now)
	if err != nil {
		t.Fatal(err)
	}
	svc := verification.New(st, engine, "http://x/portal", nil)
	runner := jobs.New(jobs.Options{Store: st})
	svc.RegisterJobs(runner)
	var listed string
	for _, p := range []reviewdata.Person{
		{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T1"},
		{FirstName: "Anna", LastName: "Schmidt", DOB: "1990-02-03", Country: "DE", DocNumber: "T2"},
	} {
		req, err := reviewdata.Submit(t.Context(), st, svc, org, kyc.Live, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runner.RunOnce(t.Context()); err != nil {
			t.Fatal(err)
		}
		if p.LastName == "Petrenko" {
			listed = req.ID
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	strict := writeFile(t, "strict.json", `{"version":"strict-1","actions":{"SANCTIONS_MATCH":"reject"}}`)
	code, out, errOut := run(t, "orgs", "update", org, "--db", db, "--policy", strict, "--dry-run")
	if code != 0 || !strings.Contains(out, "live: 1 of the last 2 decided requests change outcome: review → reject ×1") ||
		!strings.Contains(out, listed) || !strings.Contains(errOut, "nothing was saved") {
		t.Fatalf("dry run: %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := run(t, "orgs", "update", org, "--db", db, "--policy", strict, "--dry-run", "--dry-run-env", "sandbox"); code != 0 ||
		!strings.Contains(out, "sandbox: 0 of the last 0") {
		t.Errorf("sandbox dry run: %d %s", code, out)
	}
	for _, args := range [][]string{{"--dry-run"}, {"--dry-run", "--policy", strict, "--four-eyes", "on"}} {
		if code, _, errOut := run(t, append([]string{"orgs", "update", org, "--db", db}, args...)...); code != 1 || !strings.Contains(errOut, "--dry-run") {
			t.Errorf("%v: %d %q", args, code, errOut)
		}
	}
	st = openDBWithKey(t, db)
	set, err := st.FindOrgSettings(t.Context(), org)
	st.Close()
	if err != nil || set.DecisionPolicy != nil {
		t.Fatalf("the dry run saved a policy: %s %v", set.DecisionPolicy, err)
	}

	// The version is copied into every decision: at most 64 characters.
	longVersion := writeFile(t, "long.json", `{"version":"`+strings.Repeat("v", 250<<10)+`","minimumAge":21}`)
	if code, _, errOut := run(t, "orgs", "update", org, "--db", db, "--policy", longVersion); code != 1 ||
		!strings.Contains(errOut, "version: must be 1 to 64 printable ASCII characters") || len(errOut) > 2000 {
		t.Errorf("250 KB version: %d %.300q", code, errOut)
	}
	// The version is what decisions record: a change needs a new one.
	sameVersion := writeFile(t, "same.json", `{"version":"`+decision.DefaultPolicy().Version+`","minimumAge":21}`)
	if code, _, errOut := run(t, "orgs", "update", org, "--db", db, "--policy", sameVersion); code != 1 || !strings.Contains(errOut, "a changed policy needs a new version") {
		t.Errorf("same version: %d %q", code, errOut)
	}

	// The floor: a policy that would approve a live request below it is
	// refused, with the reason, saved or dry-run (the policy:
	// every finding ignored, approval at any confidence).
	var acts []string
	for _, c := range decision.AllCodes {
		acts = append(acts, `"`+c+`":"ignore"`)
	}
	lax := writeFile(t, "lax.json", `{"version":"lax-1","approveConfidence":0,"actions":{`+strings.Join(acts, ",")+`}}`)
	for _, extra := range [][]string{nil, {"--dry-run"}} {
		code, _, errOut := run(t, append([]string{"orgs", "update", org, "--db", db, "--policy", lax}, extra...)...)
		if code != 1 || !strings.Contains(errOut, "actions.SELFIE_NOT_LIVE: cannot be ignore: in live no request is approved without a passed liveness session") {
			t.Errorf("lax policy %v: %d %q", extra, code, errOut)
		}
	}
}
