package server_test

import (
	"slices"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestAMLCaseCommentsAPI: an AML case has the comment thread a KYC
// request has: a mention e-mails the colleague a link to the AML case
// (never the text), a mention of nobody is refused, the comment is in the
// audit chain as aml_case.commented by id and hash, closed cases take
// comments too, and the tenant walls hold (another organization 404, the
// other environment 403). Responses match the description.
func TestAMLCaseCommentsAPI(t *testing.T) {
	d := newDecisionEnv(t)
	key := d.A.SandboxKey
	c := d.mustAML(key, `{"firstName":"Sandbox","lastName":"Everything"}`)
	ids := matchIDs(t, c)
	if r := d.call("POST", "/v1/aml-checks/"+c["id"].(string)+"/matches/"+ids[0]+"/decision", key,
		`{"decision":"confirmed","note":"Same person: passport and date of birth agree."}`); r.status != 200 {
		t.Fatalf("confirm: %d %s", r.status, r.body)
	}
	id := d.call("GET", "/v1/aml-cases?status=open", key, "").json(t)["data"].([]any)[0].(map[string]any)["id"].(string)
	path := "/v1/aml-cases/" + id + "/comments"
	reviewer := d.user(kyc.RoleReviewer)

	if r := d.call("GET", path, key, ""); r.status != 200 || len(r.json(t)["data"].([]any)) != 0 {
		t.Fatalf("empty thread: %d %s", r.status, r.body)
	}
	r := d.call("POST", path, key, `{"body":"Registry extract DOB 1961-04-12 differs. @[test REVIEWER] please check.","authorName":"Sam"}`)
	cm := r.json(t)
	if r.status != 201 || cm["authorType"] != "api_key" || !strings.HasPrefix(cm["authorName"].(string), "Sam (key_") ||
		!slices.Equal(anyStrings(cm["mentions"]), []string{reviewer}) {
		t.Fatalf("comment: %d %s", r.status, r.body)
	}
	emails, err := d.store.FindEmails(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	sent := 0
	for _, m := range emails {
		if m.To == "reviewer@alpha.example" {
			sent++
			if !strings.Contains(m.Subject, "AML case "+id) || !strings.Contains(m.Body, "/console/sandbox/aml-cases/"+id) || strings.Contains(m.Body, "1961-04-12") {
				t.Errorf("mention e-mail (a link to the AML case, without the comment): %s / %s", m.Subject, m.Body)
			}
		}
	}
	if sent != 1 {
		t.Errorf("%d mention e-mails, want 1", sent)
	}
	for _, bad := range []string{`{"body":"@[Nobody Here] look"}`, `{"body":"  "}`, `{}`, `{"body":"x","authorName":""}`,
		`{"body":"` + strings.Repeat("x", kyc.MaxCommentLen+1) + `"}`} {
		if r := d.call("POST", path, key, bad); r.status != 400 {
			t.Errorf("comment %.60s: %d %s, want 400", bad, r.status, r.body)
		}
	}
	// A closed case is still discussed.
	if r := d.call("PATCH", "/v1/aml-cases/"+id, key, `{"status":"closed","outcome":"relationship_refused","note":"Refused."}`); r.status != 200 {
		t.Fatalf("close: %d %s", r.status, r.body)
	}
	if r := d.call("POST", path, key, `{"body":"Closed; the customer was told."}`); r.status != 201 {
		t.Errorf("comment on a closed case: %d %s", r.status, r.body)
	}
	list := d.call("GET", path, key, "").json(t)["data"].([]any)
	if len(list) != 2 || list[0].(map[string]any)["id"] != cm["id"] {
		t.Errorf("thread: %v", list)
	}

	rows, err := d.store.FindAudit(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range rows {
		if a.Action == "aml_case.commented" {
			n++
			// The text must not be in the row. Checked by its date in full
			// and a word: "1961" alone is in one random ULID of about
			// 77,000 (measured 1.3e-5), and the reason holds a comment's
			// and a user's ULID.
			if a.ResourceType != "aml_case" || !strings.Contains(*a.Reason, "sha256:") || strings.Contains(*a.Reason, "1961-04-12") ||
				strings.Contains(*a.Reason, "Registry") {
				t.Errorf("comment audit: %+v %s", a, *a.Reason)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d aml_case.commented audit rows, want 2", n)
	}

	// Tenant walls: another organization, the other environment, and a
	// KYC request's id is no AML case.
	for _, m := range []string{"GET", "POST"} {
		if r := d.call(m, path, d.B.SandboxKey, `{"body":"x"}`); r.status != 404 {
			t.Errorf("%s from another organization: %d", m, r.status)
		}
		if r := d.call(m, path, d.A.LiveKey, `{"body":"x"}`); r.status != 403 && r.status != 404 {
			t.Errorf("%s from the other environment: %d", m, r.status)
		}
	}
	if got := d.call("GET", path, key, "").json(t)["data"].([]any); len(got) != 2 {
		t.Errorf("after the refused writes: %d comments, want 2", len(got))
	}
}
