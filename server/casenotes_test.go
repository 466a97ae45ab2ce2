package server_test

import (
	"slices"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
)

// TestCaseNotesAPI: tags (normalized, idempotent, limited, removable),
// comments whose mentions e-mail the colleague (a link, never the text)
// and refuse a name nobody has, every change in the audit chain, and
// the tenant walls (another organization 404, the other environment 403).
func TestCaseNotesAPI(t *testing.T) {
	e := newKYCEnv(t)
	var janeID string
	if err := e.store.InTx(t.Context(), func(tx *store.Tx) error {
		u, err := tx.CreateUser(e.A.ID, "jane@acme.example", "Jane Doe", kyc.RoleReviewer)
		janeID = u.ID
		return err
	}); err != nil {
		t.Fatal(err)
	}
	c := e.create(e.A.SandboxKey, `{"applicant":{"firstName":"A","lastName":"B"}}`)
	id := c["id"].(string)
	path := "/v1/kyc-requests/" + id

	// Tags.
	for _, tt := range []struct{ body, want string }{
		{`{"tag":"  High-Value "}`, "high-value"},
		{`{"tag":"high-value"}`, "high-value"}, // again: a no-op
		{`{"tag":"ring:42"}`, "high-value ring:42"},
	} {
		r := e.call("POST", path+"/tags", e.A.SandboxKey, tt.body)
		if got := tagsOf(t, r); r.status != 200 || got != tt.want {
			t.Errorf("add %s: %d %s, want %q", tt.body, r.status, r.body, tt.want)
		}
	}
	for _, bad := range []string{`{"tag":""}`, `{"tag":"two words"}`, `{"tag":"-x"}`, `{"tag":"` + strings.Repeat("a", 41) + `"}`, `{}`, `{"tag":"ok","x":1}`} {
		if r := e.call("POST", path+"/tags", e.A.SandboxKey, bad); r.status != 400 {
			t.Errorf("add %s: %d %s, want 400", bad, r.status, r.body)
		}
	}
	if r := e.call("DELETE", path+"/tags/ring:42", e.A.SandboxKey, ""); r.status != 200 || tagsOf(t, r) != "high-value" {
		t.Errorf("remove: %d %s", r.status, r.body)
	}
	if r := e.call("DELETE", path+"/tags/ring:42", e.A.SandboxKey, ""); r.status != 404 {
		t.Errorf("remove again: %d %s", r.status, r.body)
	}
	if r := e.call("GET", path+"/tags", e.A.SandboxKey, ""); r.status != 200 || tagsOf(t, r) != "high-value" {
		t.Errorf("list: %d %s", r.status, r.body)
	}
	for i := range kyc.MaxTags - 1 {
		e.call("POST", path+"/tags", e.A.SandboxKey, `{"tag":"t`+string(rune('a'+i))+`"}`)
	}
	if r := e.call("POST", path+"/tags", e.A.SandboxKey, `{"tag":"one-too-many"}`); r.status != 400 {
		t.Errorf("tag %d: %d %s, want 400", kyc.MaxTags+1, r.status, r.body)
	}

	// The API's list filters by tag.
	for q, want := range map[string]float64{"tag=HIGH-VALUE": 1, "tag=ring:42": 0, "tag=high-value&status=link_generated": 1, "tag=high-value&status=approved": 0} {
		r := e.call("GET", "/v1/kyc-requests?"+q, e.A.SandboxKey, "")
		if n := r.json(t)["pagination"].(map[string]any)["totalItems"]; r.status != 200 || n != want {
			t.Errorf("list ?%s: %d %v, want %v", q, r.status, n, want)
		}
	}
	if r := e.call("GET", "/v1/kyc-requests?tag=two%20words", e.A.SandboxKey, ""); r.status != 400 {
		t.Errorf("list by a bad tag: %d", r.status)
	}
	if n := e.call("GET", "/v1/kyc-requests?tag=high-value", e.B.SandboxKey, "").json(t)["pagination"].(map[string]any)["totalItems"]; n != float64(0) {
		t.Errorf("another organization lists %v by the tag", n)
	}

	// Comments and mentions.
	r := e.call("POST", path+"/comments", e.A.SandboxKey, `{"body":"Passport 123 looks odd. @jane@ACME.example and @[jane doe], look?","authorName":"Sam"}`)
	cm := r.json(t)
	if r.status != 201 || cm["authorType"] != "api_key" || !strings.HasPrefix(cm["authorName"].(string), "Sam (key_") ||
		!slices.Equal(anyStrings(cm["mentions"]), []string{janeID}) {
		t.Fatalf("comment: %d %s", r.status, r.body)
	}
	emails, err := e.store.FindEmails(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var mention *store.Email
	for i := range emails {
		if emails[i].To == "jane@acme.example" {
			mention = &emails[i]
		}
	}
	if mention == nil || !strings.Contains(mention.Body, "/console/sandbox/cases/"+id) || strings.Contains(mention.Body, "Passport 123") {
		t.Errorf("mention e-mail (a link to the case, without the comment): %+v", mention)
	}
	for _, bad := range []string{`{"body":"@[Nobody Here] look"}`, `{"body":"@ghost@acme.example"}`, `{"body":"  "}`, `{}`,
		`{"body":"` + strings.Repeat("x", kyc.MaxCommentLen+1) + `"}`, `{"body":"x","authorName":""}`} {
		if r := e.call("POST", path+"/comments", e.A.SandboxKey, bad); r.status != 400 {
			t.Errorf("comment %.60s: %d %s, want 400", bad, r.status, r.body)
		}
	}
	list := e.call("GET", path+"/comments", e.A.SandboxKey, "").json(t)["data"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["id"] != cm["id"] {
		t.Errorf("thread: %v", list)
	}

	// The audit chain has every change, the comment by id and hash.
	rows, err := e.store.FindAudit(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, a := range rows {
		counts[a.Action]++
		if a.Action == "kyc.commented" && (!strings.Contains(*a.Reason, cm["id"].(string)) || !strings.Contains(*a.Reason, "sha256:") ||
			strings.Contains(*a.Reason, "Passport")) {
			t.Errorf("comment audit: %s", *a.Reason)
		}
	}
	if counts["kyc.tag_added"] != 2+kyc.MaxTags-1 || counts["kyc.tag_removed"] != 1 || counts["kyc.commented"] != 1 {
		t.Errorf("audit actions: %v", counts)
	}

	// Tenant walls.
	for _, p := range []string{"/tags", "/comments"} {
		if r := e.call("GET", path+p, e.B.SandboxKey, ""); r.status != 404 {
			t.Errorf("GET %s from another organization: %d", p, r.status)
		}
		if r := e.call("GET", "/v1/kyc-requests/"+c["publicId"].(string)+p, e.A.LiveKey, ""); r.status != 403 && r.status != 404 {
			t.Errorf("GET %s from the other environment: %d", p, r.status)
		}
	}
	if r := e.call("POST", path+"/tags", e.B.SandboxKey, `{"tag":"x"}`); r.status != 404 {
		t.Errorf("tag from another organization: %d", r.status)
	}
	if r := e.call("POST", path+"/comments", e.B.SandboxKey, `{"body":"x"}`); r.status != 404 {
		t.Errorf("comment from another organization: %d", r.status)
	}
}

// TestReasonCodesAPI: the organization's own codes beside the built-in
// ones (which cannot be removed), several codes per decision in the
// response, the report and the webhook, a code nobody added refused, and
// the single-code form still working.
func TestReasonCodesAPI(t *testing.T) {
	e := newKYCEnv(t)
	list := e.call("GET", "/v1/reason-codes", e.A.SandboxKey, "").json(t)["data"].([]any)
	if len(list) != len(kyc.BuiltInReasonCodes) {
		t.Fatalf("built-in codes: %v", list)
	}
	if r := e.call("POST", "/v1/reason-codes", e.A.SandboxKey, `{"code":"SOURCE_OF_FUNDS_UNCLEAR","label":"Source of funds unclear"}`); r.status != 201 ||
		r.json(t)["builtIn"] != false {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	for _, tt := range []struct {
		body   string
		status int
	}{
		{`{"code":"SOURCE_OF_FUNDS_UNCLEAR","label":"Again"}`, 409},
		{`{"code":"DOCUMENT_FORGED","label":"Mine"}`, 400},
		{`{"code":"lower","label":"x"}`, 400},
		{`{"code":"X","label":""}`, 400},
		{`{"code":"X"}`, 400},
	} {
		if r := e.call("POST", "/v1/reason-codes", e.A.SandboxKey, tt.body); r.status != tt.status {
			t.Errorf("create %s: %d %s, want %d", tt.body, r.status, r.body, tt.status)
		}
	}
	if r := e.call("DELETE", "/v1/reason-codes/DOCUMENT_FORGED", e.A.SandboxKey, ""); r.status != 422 {
		t.Errorf("delete a built-in code: %d %s", r.status, r.body)
	}
	// The live environment has its own list.
	if n := len(e.call("GET", "/v1/reason-codes", e.A.LiveKey, "").json(t)["data"].([]any)); n != len(kyc.BuiltInReasonCodes) {
		t.Errorf("live sees sandbox's code: %d codes", n)
	}

	c := e.create(e.A.SandboxKey, `{"applicant":{"firstName":"A","lastName":"B"},"callbackUrl":"https://93.184.216.34/hook"}`)
	id := c["id"].(string)
	e.submit(token(t, c), "passport", true)
	e.runJobs()
	path := "/v1/kyc-requests/" + id
	if r := e.call("POST", path+"/reject", e.A.SandboxKey, `{"note":"n","reasonCodes":["NOT_ADDED"]}`); r.status != 400 ||
		!strings.Contains(string(r.body), "NOT_ADDED") {
		t.Errorf("a code nobody added: %d %s", r.status, r.body)
	}
	r := e.call("POST", path+"/reject", e.A.SandboxKey, `{"note":"n","reasonCode":"DOCUMENT_FORGED","reasonCodes":["SOURCE_OF_FUNDS_UNCLEAR","DOCUMENT_FORGED"]}`)
	d := r.json(t)
	if r.status != 200 || d["reviewReasonCode"] != "DOCUMENT_FORGED" || !slices.Equal(anyStrings(d["reviewReasonCodes"]), []string{"DOCUMENT_FORGED", "SOURCE_OF_FUNDS_UNCLEAR"}) {
		t.Fatalf("decision: %d %s", r.status, r.body)
	}
	for q, want := range map[string]float64{"reasonCode=SOURCE_OF_FUNDS_UNCLEAR": 1, "reasonCode=DOCUMENT_FORGED&status=rejected": 1, "reasonCode=UNDER_AGE": 0} {
		r := e.call("GET", "/v1/kyc-requests?"+q, e.A.SandboxKey, "")
		if n := r.json(t)["pagination"].(map[string]any)["totalItems"]; r.status != 200 || n != want {
			t.Errorf("list ?%s: %d %v, want %v", q, r.status, n, want)
		}
	}
	if r := e.call("GET", "/v1/kyc-requests?reasonCode=lower", e.A.SandboxKey, ""); r.status != 400 {
		t.Errorf("list by a bad code: %d", r.status)
	}
	rep := e.call("GET", path+"/report.json", e.A.SandboxKey, "")
	if !strings.Contains(string(rep.body), `"reasonCodes":["DOCUMENT_FORGED","SOURCE_OF_FUNDS_UNCLEAR"]`) {
		t.Errorf("report.json lacks the codes: %s", rep.body)
	}
	// The PDF lists every code, one a line in the reviewer notes' table
	// (a code wider than its column breaks after an underscore).
	if txt := pdfText(t, e.call("GET", path+"/report.pdf", e.A.SandboxKey, "").body); !strings.Contains(txt, "SOURCE_OF_FUNDS_") ||
		!strings.Contains(txt, "DOCUMENT_FORGED") {
		t.Errorf("report.pdf lacks the codes:\n%s", txt)
	}
	// The webhook: the delivery of the rejected event to the request's
	// callback (its body is checked against the description by call).
	dl := e.call("GET", "/v1/webhook-deliveries?eventType=svc.kyc.request.rejected", e.A.SandboxKey, "").json(t)["data"].([]any)
	if len(dl) != 1 {
		t.Fatalf("deliveries of the rejection: %v", dl)
	}
	got := e.call("GET", "/v1/webhook-deliveries/"+dl[0].(map[string]any)["id"].(string), e.A.SandboxKey, "")
	if !strings.Contains(string(got.body), `"reviewReasonCodes":["DOCUMENT_FORGED","SOURCE_OF_FUNDS_UNCLEAR"]`) {
		t.Errorf("the rejected event lacks reviewReasonCodes: %s", got.body)
	}
	// Removing the code keeps it on the decision.
	if r := e.call("DELETE", "/v1/reason-codes/SOURCE_OF_FUNDS_UNCLEAR", e.A.SandboxKey, ""); r.status != 204 {
		t.Errorf("delete: %d %s", r.status, r.body)
	}
	if d := e.call("GET", path, e.A.SandboxKey, "").json(t); len(anyStrings(d["reviewReasonCodes"])) != 2 {
		t.Errorf("after delete: %v", d["reviewReasonCodes"])
	}
	if r := e.call("DELETE", "/v1/reason-codes/SOURCE_OF_FUNDS_UNCLEAR", e.A.SandboxKey, ""); r.status != 404 {
		t.Errorf("delete again: %d", r.status)
	}
}

func tagsOf(t *testing.T, r *response) string {
	t.Helper()
	return strings.Join(anyStrings(r.json(t)["tags"]), " ")
}

func anyStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
