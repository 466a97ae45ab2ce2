package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestAMLBatch: POST /v1/aml-checks/batch answers 202 with a queued batch;
// invalid subjects become failed rows with their errors while the others
// are screened by the job into checks the rows link; the batch completes
// with one svc.aml_batch.completed (its body checked against the
// description by the receiver); the same Idempotency-Key answers the same
// batch; another organization or environment cannot read it. Errors for
// the whole body answer in the envelope.
func TestAMLBatch(t *testing.T) {
	d := newDecisionEnv(t)
	d.opts.AML.RegisterJobs(d.runner)
	body := `{"subjects":[
		{"firstName":"Sandbox","lastName":"Sanctioned","externalRef":"c-1"},
		{"firstName":"Ana","lastName":"Lima","dob":"1990-01-02","country":"BR"},
		{"firstName":"","lastName":"Nobody","dob":"2990-01-01"},
		{"firstName":"Ok","lastName":"Name","extra":1},
		"not an object"
	]}`
	r := d.call("POST", "/v1/aml-checks/batch", d.A.SandboxKey, body, "Idempotency-Key", "batch-1")
	if r.status != http.StatusAccepted {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	b := r.json(t)
	id := b["id"].(string)
	if b["status"] != "queued" || b["total"] != 5.0 || b["failed"] != 3.0 || b["pending"] != 2.0 {
		t.Fatalf("created: %s", r.body)
	}
	again := d.call("POST", "/v1/aml-checks/batch", d.A.SandboxKey, body, "Idempotency-Key", "batch-1")
	if again.header.Get("Idempotent-Replayed") != "true" || again.json(t)["id"] != id {
		t.Fatalf("replay: %v %s", again.header, again.body)
	}
	d.runJobs()
	got := d.call("GET", "/v1/aml-batches/"+id, d.A.SandboxKey, "").json(t)
	if got["status"] != "completed" || got["screened"] != 2.0 || got["pending"] != 0.0 || got["potentialMatches"] != 1.0 || got["completedAt"] == nil {
		t.Fatalf("after the job: %v", got)
	}
	rows := d.call("GET", "/v1/aml-batches/"+id+"/rows", d.A.SandboxKey, "").json(t)["data"].([]any)
	if len(rows) != 5 {
		t.Fatalf("%d rows", len(rows))
	}
	first := rows[0].(map[string]any)
	res, _ := first["result"].(map[string]any)
	if first["status"] != "screened" || first["checkId"] == nil || res["status"] != "potential_match" ||
		first["subject"].(map[string]any)["externalRef"] != "c-1" {
		t.Fatalf("row 0: %v", first)
	}
	if c := d.call("GET", "/v1/aml-checks/"+first["checkId"].(string), d.A.SandboxKey, ""); c.status != 200 {
		t.Fatalf("row 0's check: %d", c.status)
	}
	fields := func(row any) string {
		var f []string
		for _, e := range row.(map[string]any)["errors"].([]any) {
			f = append(f, e.(map[string]any)["field"].(string))
		}
		return strings.Join(f, ",")
	}
	for i, want := range []string{"", "", "dob,firstName", "extra", "subject"} {
		if got := fields(rows[i]); got != want {
			t.Errorf("row %d errors %q, want %q", i, got, want)
		}
	}
	failed := d.call("GET", "/v1/aml-batches/"+id+"/rows?status=failed", d.A.SandboxKey, "").json(t)
	if n := failed["pagination"].(map[string]any)["totalItems"]; n != 3.0 {
		t.Errorf("failed rows: %v", n)
	}
	d.mu.Lock()
	events := d.events[id]
	checkEvents := d.events[first["checkId"].(string)]
	d.mu.Unlock()
	if len(events) != 1 || events[0] != string(kyc.EventAMLBatchCompleted) {
		t.Errorf("batch events: %v", events)
	}
	if strings.Join(checkEvents, ",") != string(kyc.EventAMLMatchFound) {
		t.Errorf("a batch check's events: %v (match_found only)", checkEvents)
	}

	for _, tt := range []struct {
		name, method, path, key, body string
		status                        int
		code                          string
	}{
		{"other organization", "GET", "/v1/aml-batches/" + id, d.B.SandboxKey, "", 404, "NOT_FOUND"},
		{"other environment", "GET", "/v1/aml-batches/" + id + "/rows", d.A.LiveKey, "", 403, "wrong_environment"},
		{"not an id", "GET", "/v1/aml-batches/amb_%00", d.A.SandboxKey, "", 404, "NOT_FOUND"},
		{"bad row status", "GET", "/v1/aml-batches/" + id + "/rows?status=done", d.A.SandboxKey, "", 400, "VALIDATION_ERROR"},
		{"empty array", "POST", "/v1/aml-checks/batch", d.A.SandboxKey, `[]`, 400, "VALIDATION_ERROR"},
		{"no subjects", "POST", "/v1/aml-checks/batch", d.A.SandboxKey, `{"monitoring":true}`, 400, "VALIDATION_ERROR"},
		{"subjects not an array", "POST", "/v1/aml-checks/batch", d.A.SandboxKey, `{"subjects":{}}`, 400, "VALIDATION_ERROR"},
		{"not JSON", "POST", "/v1/aml-checks/batch", d.A.SandboxKey, `[{`, 400, "VALIDATION_ERROR"},
		{"wrong environment in body", "POST", "/v1/aml-checks/batch", d.A.SandboxKey, `{"environment":"live","subjects":[{"firstName":"A","lastName":"B"}]}`, 403, "wrong_environment"},
		{"too many", "POST", "/v1/aml-checks/batch", d.A.SandboxKey, "[" + strings.TrimSuffix(strings.Repeat(`{"firstName":"A","lastName":"B"},`, kyc.MaxBatchSubjects+1), ",") + "]", 400, "VALIDATION_ERROR"},
		{"no key", "POST", "/v1/aml-checks/batch", "", `[{"firstName":"A","lastName":"B"}]`, 401, "MISSING_API_KEY"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := d.call(tt.method, tt.path, tt.key, tt.body)
			if r.status != tt.status || r.errCode(t) != tt.code {
				t.Fatalf("%d %s, want %d %s: %.300s", r.status, r.errCode(t), tt.status, tt.code, r.body)
			}
		})
	}
	// The export: every row, formula-looking cells defused.
	exp := d.call("GET", "/v1/aml-batches/"+id+"/rows.csv", d.A.SandboxKey, "")
	lines := strings.Split(strings.TrimSpace(string(exp.body)), "\n")
	if exp.status != 200 || len(lines) != 6 || !strings.HasPrefix(lines[1], "0,screened,Sandbox,Sanctioned,,,c-1,aml_") ||
		!strings.Contains(lines[1], ",potential_match,high,1,pending,") {
		t.Fatalf("export: %d %s", exp.status, exp.body)
	}
	// A CSV upload: the same rows, validated the same way.
	csvBody := "firstName,lastName,dob,country,externalRef\nSandbox,Sanctioned,,,=1+2\nAna,Lima,2990-01-01,,\n"
	cr := d.call("POST", "/v1/aml-checks/batch", d.A.SandboxKey, csvBody, "Content-Type", "text/csv")
	if cr.status != http.StatusAccepted || cr.json(t)["total"] != 2.0 || cr.json(t)["failed"] != 1.0 {
		t.Fatalf("CSV: %d %s", cr.status, cr.body)
	}
	d.runJobs()
	if exp := d.call("GET", "/v1/aml-batches/"+cr.json(t)["id"].(string)+"/rows.csv", d.A.SandboxKey, ""); !strings.Contains(string(exp.body), ",'=1+2,") {
		t.Errorf("formula not defused in the export: %s", exp.body)
	}
	if r := d.call("POST", "/v1/aml-checks/batch", d.A.SandboxKey, "name\nX\n", "Content-Type", "text/csv"); r.status != 400 {
		t.Errorf("CSV with an unknown column: %d", r.status)
	}
	// A plain array is accepted too, and 10,000 subjects fit the body limit.
	big := "[" + strings.TrimSuffix(strings.Repeat(fmt.Sprintf(`{"firstName":"Someone","lastName":"Longername-Example","dob":"1980-01-01","country":"GB","externalRef":"%s"},`, strings.Repeat("r", 30)), kyc.MaxBatchSubjects), ",") + "]"
	if r := d.call("POST", "/v1/aml-checks/batch", d.A.SandboxKey, big); r.status != http.StatusAccepted || r.json(t)["total"] != float64(kyc.MaxBatchSubjects) {
		t.Fatalf("10,000 subjects: %d %.300s", r.status, r.body)
	}
}
