package console_test

import (
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
)

// TestAuditChangesAndAccess (issue 23 item 13): the API's changes show on
// the audit page with the key; reads of personal data (a case opened, a
// report downloaded through the API) are access rows the category filter
// separates from changes; the installation's own rows show to an
// installation admin and are marked as left out for everyone else, so
// the numbering never skips silently.
func TestAuditChangesAndAccess(t *testing.T) {
	e := newEnv(t)
	admin := e.mustUser("admin@acme.example", "Ada Admin", kyc.RoleAdmin)
	inst := e.mustInstallationAdmin("inst@acme.example", "Ivan Installation")
	app := e.api(e.org.SandboxKey, "POST", "/v1/applicants", map[string]any{"firstName": "Grace", "lastName": "Hopper"}, 201)
	// An installation-wide row between the organization's rows.
	if err := e.st.InTx(t.Context(), func(tx *store.Tx) error {
		return tx.AppendAudit(store.AuditEntry{ResourceType: "job", ResourceID: "lists.update", Action: "watch_list.update_requested"})
	}); err != nil {
		t.Fatal(err)
	}
	req := e.api(e.org.SandboxKey, "POST", "/v1/kyc-requests", map[string]any{"applicantId": app["id"]}, 201)
	reqID := req["id"].(string)
	e.api(e.org.SandboxKey, "GET", "/v1/kyc-requests/"+reqID+"/report.json", nil, 200)

	b := e.browser()
	b.login(admin)
	if pg := b.get("/console/sandbox/cases/" + reqID); pg.status != 200 {
		t.Fatalf("case: %d", pg.status)
	}
	if pg := b.get("/console/sandbox/applicants/" + app["id"].(string)); pg.status != 200 {
		t.Fatalf("applicant: %d", pg.status)
	}

	all := b.get("/console/audit").text()
	for _, want := range []string{"applicant.created", "key_" + e.org.SandboxID, "svc.kyc.request.created", "access.report_json",
		"access.case_viewed", "access.applicant_viewed", "Ada Admin", "1 entry of the installation not shown"} {
		if !strings.Contains(all, want) {
			t.Errorf("audit page lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "watch_list.update_requested") {
		t.Errorf("an organization admin sees the installation's row")
	}
	access := b.get("/console/audit?category=access").text()
	if !strings.Contains(access, "access.case_viewed") || !strings.Contains(access, "access.report_json") || strings.Contains(access, "applicant.created") {
		t.Errorf("category=access:\n%s", access)
	}
	changes := b.get("/console/audit?category=change").text()
	if strings.Contains(changes, "access.") || !strings.Contains(changes, "applicant.created") {
		t.Errorf("category=change:\n%s", changes)
	}
	if pg := b.get("/console/audit?category=reads"); pg.status != 400 {
		t.Errorf("bad category: %d", pg.status)
	}

	ib := e.browser()
	ib.login(inst)
	instPage := ib.get("/console/audit").text()
	if !strings.Contains(instPage, "watch_list.update_requested") || strings.Contains(instPage, "of the installation not shown") {
		t.Errorf("installation admin's page:\n%s", instPage)
	}
	if v, err := e.st.VerifyAudit(t.Context(), nil); err != nil || !v.OK() {
		t.Fatalf("chain: %+v %v", v, err)
	}
}
