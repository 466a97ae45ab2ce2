package server_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// TestRelationshipEndDate: relationshipEndDate is set by POST and PATCH,
// cleared with "", refused when not a real date (400 naming the field),
// settable alone on an archived applicant; an erasure of a decided live
// applicant is deferred to five years after the later of the decision and
// that date. Responses are checked against the OpenAPI description.
func TestRelationshipEndDate(t *testing.T) {
	e := newAPIEnv(t)
	a := e.mustCreate(e.A.LiveKey, `{"firstName":"Grace","lastName":"Hopper","relationshipEndDate":"2027-03-31"}`)
	id := a["id"].(string)
	if a["relationshipEndDate"] != "2027-03-31" {
		t.Fatalf("created: %v", a)
	}
	for _, bad := range []string{`"2027-02-30"`, `"31/03/2027"`, `"2027-03-31T00:00:00Z"`, `"2200-01-01"`, `5`} {
		r := e.call("PATCH", "/v1/applicants/"+id, e.A.LiveKey, `{"relationshipEndDate":`+bad+`}`)
		if r.status != 400 || !strings.Contains(string(r.body), "relationshipEndDate") {
			t.Errorf("PATCH %s: %d %s", bad, r.status, r.body)
		}
	}
	if r := e.call("PATCH", "/v1/applicants/"+id, e.A.LiveKey, `{"relationshipEndDate":""}`); r.status != 200 || r.json(t)["relationshipEndDate"] != nil {
		t.Errorf("clear: %d %s", r.status, r.body)
	}
	if r := e.call("POST", "/v1/applicants/"+id+"/archive", e.A.LiveKey, ""); r.status != 200 {
		t.Fatalf("archive: %d %s", r.status, r.body)
	}
	if r := e.call("PATCH", "/v1/applicants/"+id, e.A.LiveKey, `{"firstName":"G"}`); r.status != 422 {
		t.Errorf("change an archived applicant's name: %d %s", r.status, r.body)
	}
	r := e.call("PATCH", "/v1/applicants/"+id, e.A.LiveKey, `{"relationshipEndDate":"2028-06-30"}`)
	if r.status != 200 || r.json(t)["relationshipEndDate"] != "2028-06-30" {
		t.Fatalf("end date on an archived applicant: %d %s", r.status, r.body)
	}
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		now := tx.Now()
		r := &kyc.KYCRequest{OrganizationID: e.A.ID, Environment: kyc.Live, ApplicantID: id, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: now}
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		r.Status, r.Decision, r.DecidedAt = kyc.KYCApproved, kyc.DecisionApproved, &now
		return tx.SaveKYCRequest(r)
	}); err != nil {
		t.Fatal(err)
	}
	r = e.call("DELETE", "/v1/applicants/"+id, e.A.LiveKey, "")
	if r.status != http.StatusAccepted {
		t.Fatalf("erase: %d %s", r.status, r.body)
	}
	// The decision is now (2026); the relationship ends 2028-06-30, later.
	if got := r.json(t); got["erasureScheduledAt"] != "2033-06-30T00:00:00.000Z" || !strings.Contains(got["retention"].(string), "relationship end") {
		t.Errorf("deferred: %s", r.body)
	}
	// Another organization cannot read or set it.
	if r := e.call("PATCH", "/v1/applicants/"+id, e.B.LiveKey, `{"relationshipEndDate":"2020-01-01"}`); r.status != 404 {
		t.Errorf("PATCH by another organization: %d", r.status)
	}
}

// TestExportOfErasedApplicant: an erased applicant's export is refused
// with 422 applicant_erased (the envelope names the receipt), and nothing
// is recorded as exported.
func TestExportOfErasedApplicant(t *testing.T) {
	e := newAPIEnv(t)
	id := e.mustCreate(e.A.SandboxKey, ada)["id"].(string)
	if r := e.call("DELETE", "/v1/applicants/"+id, e.A.SandboxKey, ""); r.status != 200 {
		t.Fatalf("erase: %d %s", r.status, r.body)
	}
	r := e.call("GET", "/v1/applicants/"+id+"/export", e.A.SandboxKey, "")
	if r.status != 422 || r.header.Get("Content-Type") == "application/zip" {
		t.Fatalf("export of an erased applicant: %d %s", r.status, r.body)
	}
	if env := r.json(t)["error"].(map[string]any); env["reason"] != "applicant_erased" || !strings.Contains(env["message"].(string), "/erasure") {
		t.Errorf("envelope: %s", r.body)
	}
	audit, err := e.store.FindAudit(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range audit {
		if a.Action == "applicant.exported" {
			t.Errorf("a refused export was audited as exported")
		}
	}
}

// TestErasedAMLCheckAPI: an AML check erased by the retention run reads as
// its tombstone (erasedAt set, subject and results empty, history rows
// erased), valid against the description, and refuses monitoring and
// re-screening with 422 aml_check_erased.
func TestErasedAMLCheckAPI(t *testing.T) {
	e := newAPIEnv(t)
	c := e.mustAML(e.A.SandboxKey, `{"firstName":"Ada","lastName":"Lovelace","monitoring":false}`)
	id := c["id"].(string)
	if _, has := c["erasedAt"]; !has || c["erasedAt"] != nil {
		t.Fatalf("new check's erasedAt: %v", c)
	}
	e.clock.Advance(31 * 24 * time.Hour)
	aged, err := e.store.FindAgedAMLChecks(t.Context(), e.clock.Now(), 10)
	if err != nil || len(aged) != 1 || aged[0].CheckID != id {
		t.Fatalf("aged: %+v %v", aged, err)
	}
	if ok, err := e.store.EraseAMLCheck(t.Context(), aged[0]); !ok || err != nil {
		t.Fatalf("erase: %v %v", ok, err)
	}
	got := e.call("GET", "/v1/aml-checks/"+id, e.A.SandboxKey, "").json(t)
	h := got["monitoringHistory"].([]any)[0].(map[string]any)
	if got["erasedAt"] == nil || got["firstName"] != "" || len(got["results"].([]any)) != 0 || h["erasedAt"] == nil {
		t.Errorf("tombstone: %v", got)
	}
	for _, tt := range []struct{ method, path, body string }{
		{"PATCH", "/v1/aml-checks/" + id, `{"monitoring":true}`},
		{"POST", "/v1/aml-checks/" + id + "/rescreen", ``},
	} {
		r := e.call(tt.method, tt.path, e.A.SandboxKey, tt.body)
		if r.status != 422 || r.json(t)["error"].(map[string]any)["reason"] != "aml_check_erased" {
			t.Errorf("%s %s: %d %s", tt.method, tt.path, r.status, r.body)
		}
	}
}
