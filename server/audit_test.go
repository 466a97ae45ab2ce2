package server_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"kycd/kyc"
	"kycd/store"
)

// TestAPIChangesAudited: every change an API key makes leaves an audit row
// naming the key, written with the change (issue 23 item 13: applicants,
// KYC requests, AML checks, decisions and webhook changes by API key left
// none in sandbox, and applicants and AML checks none at all).
func TestAPIChangesAudited(t *testing.T) {
	e := newAPIEnv(t, allowPrivateWebhooks)
	rc := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	t.Cleanup(rc.Close)
	key := e.A.SandboxKey
	actor := "key_" + e.A.SandboxID
	mustID := func(method, path, body string, want int) string {
		t.Helper()
		r := e.call(method, path, key, body)
		if r.status != want {
			t.Fatalf("%s %s: %d %s", method, path, r.status, r.body)
		}
		id, _ := r.json(t)["id"].(string)
		return id
	}
	app := mustID("POST", "/v1/applicants", `{"firstName":"Ada","lastName":"Lovelace"}`, 201)
	mustID("PATCH", "/v1/applicants/"+app, `{"email":"ada@example.com"}`, 200)
	mustID("POST", "/v1/applicants/"+app+"/archive", "", 200)
	mustID("POST", "/v1/applicants/"+app+"/unarchive", "", 200)
	kycID := mustID("POST", "/v1/kyc-requests", `{"applicantId":"`+app+`"}`, 201)
	mustID("POST", "/v1/kyc-requests/"+kycID+"/cancel", `{"reason":"test"}`, 200)
	aml := mustID("POST", "/v1/aml-checks", `{"firstName":"Ada","lastName":"Lovelace"}`, 201)
	mustID("PATCH", "/v1/aml-checks/"+aml, `{"monitoring":true}`, 200)
	ep := mustID("POST", "/v1/webhook-endpoints", `{"url":"`+rc.URL+`"}`, 201)
	mustID("PATCH", "/v1/webhook-endpoints/"+ep, `{"description":"ours"}`, 200)
	test := e.call("POST", "/v1/webhook-endpoints/"+ep+"/test", key, "")
	if test.status != 202 {
		t.Fatalf("test event: %d %s", test.status, test.body)
	}

	for _, want := range []struct{ resource, action string }{
		{app, "applicant.created"}, {app, "applicant.updated"}, {app, "applicant.archived"}, {app, "applicant.unarchived"},
		{kycID, "svc.kyc.request.created"}, {kycID, "svc.kyc.request.cancelled"},
		{aml, "aml_check.created"}, {aml, "aml_check.monitoring_on"},
		{ep, "webhook_endpoint.created"}, {ep, "webhook_endpoint.updated"}, {ep, "webhook_endpoint.test_sent"},
	} {
		rows, err := e.store.FindAudit(t.Context(), want.resource)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range rows {
			if r.Action == want.action {
				found = true
				if r.ActorType != kyc.ActorAPIKey || r.ActorID == nil || *r.ActorID != actor || r.OrganizationID != e.A.ID ||
					r.Environment != kyc.Sandbox {
					t.Errorf("%s %s: actor %s %v, org %s env %s", want.resource, want.action, r.ActorType, r.ActorID, r.OrganizationID, r.Environment)
				}
			}
		}
		if !found {
			t.Errorf("%s: no %s row (rows: %v)", want.resource, want.action, actions(rows))
		}
	}
	// The applicant's update names the fields, never the values.
	rows, _ := e.store.FindAudit(t.Context(), app)
	for _, r := range rows {
		if r.Action == "applicant.updated" && (r.Reason == nil || *r.Reason != "fields: email") {
			t.Errorf("update reason %v", r.Reason)
		}
	}
	// Reads of personal data are access rows, recorded before the answer.
	for _, path := range []string{"/documents", "/selfies", "/report.json", "/report.pdf"} {
		if r := e.call("GET", "/v1/kyc-requests/"+kycID+path, key, ""); r.status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
	}
	if r := e.call("GET", "/v1/aml-checks/"+aml+"/report.pdf", key, ""); r.status != 200 {
		t.Fatalf("AML report: %d", r.status)
	}
	for _, want := range []struct{ resource, action string }{
		{kycID, store.AccessDocumentURLs}, {kycID, store.AccessSelfieURLs}, {kycID, store.AccessReportJSON}, {kycID, store.AccessReportPDF},
		{aml, store.AccessReportPDF},
	} {
		rows, err := e.store.FindAudit(t.Context(), want.resource)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rows {
			if r.Action == want.action && r.ActorID != nil && *r.ActorID == actor && store.AuditCategory(r.Action) == store.AuditAccess {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d %s rows by the key, want 1 (rows: %v)", want.resource, n, want.action, actions(rows))
		}
	}
	if v, err := e.store.VerifyAudit(t.Context(), nil); err != nil || !v.OK() {
		t.Fatalf("audit chain: %+v %v", v, err)
	}
}

func actions(rows []store.AuditEntry) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Action
	}
	return out
}
