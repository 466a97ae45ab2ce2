package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestAttackResubmissionAPI attacks POST /v1/kyc-requests/{id}/resubmission
// and this session's applicant fields: the other environment's key and
// another organization's find nothing; malformed bodies are 4xx, never a
// 500 (every answer is checked against the description by the harness);
// an erased applicant's request is not sent back to them; another
// environment's or organization's applicant is not exported.
func TestAttackResubmissionAPI(t *testing.T) {
	e := newKYCEnv(t)
	live, sandbox, other := e.A.LiveKey, e.A.SandboxKey, e.B.LiveKey
	c := e.create(live, `{"applicant":{"firstName":"Ada","lastName":"Lovelace","dob":"1990-12-10","country":"GB"}}`)
	id, applicant := c["id"].(string), c["applicantId"].(string)
	e.submit(token(t, c), "passport", true)
	e.runJobs()
	status := func() string {
		t.Helper()
		return e.call("GET", "/v1/kyc-requests/"+id, live, "").json(t)["status"].(string)
	}
	if st := status(); st != "awaiting_review" {
		t.Fatalf("before: %s", st)
	}
	good := `{"step":"document_front","message":"Please take it again."}`
	// The other environment's key: 403 wrong_environment (the API's rule
	// for an id of the other environment); another organization's: 404.
	refused := func(r *response) bool {
		return r.status == http.StatusNotFound || (r.status == http.StatusForbidden && strings.Contains(string(r.body), "wrong_environment"))
	}
	for name, key := range map[string]string{"sandbox key": sandbox, "other organization": other} {
		if r := e.call("POST", "/v1/kyc-requests/"+id+"/resubmission", key, good); !refused(r) {
			t.Errorf("%s: %d %s", name, r.status, r.body)
		}
		if r := e.call("GET", "/v1/applicants/"+applicant+"/export", key, ""); !refused(r) || strings.Contains(string(r.body), "Lovelace") {
			t.Errorf("export with the %s: %d", name, r.status)
		}
	}
	for _, body := range []string{
		``, `null`, `[]`, `"selfie"`, `{"step":1,"message":"Please take it again."}`, `{"step":null,"message":null}`,
		`{"step":"selfie","message":["Please"]}`, `{"step":"selfie","message":"Please take it again.","linkTtlHours":1e400}`,
		`{"step":"selfie","message":"Please take it again.","linkTtlHours":"5"}`, `{"step":"selfie","message":"Please take it again.","linkTtlHours":9.5}`,
		`{"step":"selfie","message":"Please take it again.","linkTtlHours":-9223372036854775808}`,
		`{"step":"selfie","message":"Please take it again.","linkTtlHours":99999999999999999999}`,
		`{"step":"selfie","message":"` + strings.Repeat("x", 1001) + `"}`,
		`{"step":"selfie","message":"Please take it again.","step":"liveness"}`, `{"step":"selfie\u0000","message":"Please take it again."}`,
		`{"step":"selfie","message":"Please take it again.","extra":{"deep":[[[[[[[[[[]]]]]]]]]]}}`,
	} {
		r := e.call("POST", "/v1/kyc-requests/"+id+"/resubmission", live, body)
		if r.status < 400 || r.status >= 500 {
			t.Errorf("%.80q: %d %s", body, r.status, r.body)
		}
	}
	if st := status(); st != "awaiting_review" {
		t.Fatalf("after the refused bodies: %s", st)
	}
	for _, body := range []string{`{"relationshipEndDate":"2026-02-30"}`, `{"relationshipEndDate":"99999-01-01"}`, `{"relationshipEndDate":20260101}`,
		`{"relationshipEndDate":"2026-01-01T00:00:00Z"}`, `{"relationshipEndDate":"２０２６-01-01"}`} {
		if r := e.call("PATCH", "/v1/applicants/"+applicant, live, body); r.status < 400 || r.status >= 500 {
			t.Errorf("PATCH %s: %d %s", body, r.status, r.body)
		}
		if r := e.call("POST", "/v1/applicants", live, `{"firstName":"A","lastName":"B",`+body[1:]); r.status < 400 || r.status >= 500 {
			t.Errorf("POST %s: %d %s", body, r.status, r.body)
		}
	}

	// Erased (nothing decided: at once): the request is not sent back to
	// a person whose data is gone.
	if r := e.call("DELETE", "/v1/applicants/"+applicant, live, ""); r.status != 200 {
		t.Fatalf("erase: %d %s", r.status, r.body)
	}
	if r := e.call("POST", "/v1/kyc-requests/"+id+"/resubmission", live, good); r.status != http.StatusUnprocessableEntity ||
		!strings.Contains(string(r.body), "applicant_erased") {
		t.Errorf("resubmission for an erased applicant: %d %s", r.status, r.body)
	}
	if st := status(); st != "awaiting_review" {
		t.Errorf("after: %s", st)
	}
}
