package console_test

import (
	"net/http"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
)

// TestAMLCaseComments: the AML case page has the comment thread a KYC
// case has. A reviewer comments with a mention (the colleague is e-mailed
// a link to the AML case, not the text); a mention of nobody is refused
// with the text kept; markup stays text; an analyst reads the thread but
// gets no form and is refused the post; a viewer sees only the count;
// every comment is an aml_case.commented audit row without the text.
func TestAMLCaseComments(t *testing.T) {
	s := newReviewStack(t)
	path := s.openAMLCase()
	rev := s.mustUser("rob@acme.example", "Rob Reviewer", kyc.RoleReviewer)
	ann := s.mustUser("ann@acme.example", "Ann Analyst", kyc.RoleAnalyst)
	vic := s.mustUser("vic@acme.example", "Vic Viewer", kyc.RoleViewer)
	b, ab, vb := s.browser(), s.browser(), s.browser()
	b.login(rev)
	ab.login(ann)
	vb.login(vic)

	if p := b.get(path); !strings.Contains(p.body, `action="`+path+`/comments"`) || !strings.Contains(p.text(), "No comments yet.") {
		t.Fatalf("the reviewer's AML case page has no comment form: %s", p.text())
	}
	if r := b.post(path+"/comments", "body", "Registry DOB 1961-04-12 differs. @[ann analyst] please look."); r.status != http.StatusSeeOther ||
		!strings.Contains(r.header.Get("Location"), "notice=mentioned") {
		t.Fatalf("comment: %d %v %s", r.status, r.header, r.text())
	}
	if got := mentionEmails(t, s.st, "ann@acme.example", "Rob Reviewer mentioned you on AML case"); len(got) != 1 ||
		!strings.Contains(got[0].Body, path) || strings.Contains(got[0].Body, "1961-04-12") {
		t.Errorf("mention e-mails (one, a link to the AML case, without the comment): %+v", got)
	}
	if r := b.post(path+"/comments", "body", "Ask @[Nobody Here] too."); r.status != http.StatusBadRequest ||
		!strings.Contains(r.text(), "@[Nobody Here] names no active user") || !strings.Contains(r.body, "Ask @[Nobody Here] too.") {
		t.Errorf("mention of nobody: %d %s", r.status, r.text())
	}
	if r := b.post(path+"/comments", "body", `<script>alert(1)</script>`); r.status != http.StatusSeeOther {
		t.Fatalf("comment with markup: %d", r.status)
	}
	if p := b.get(path); strings.Contains(p.body, "<script>alert(1)") || !strings.Contains(p.body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the comment's markup is not escaped")
	}

	ap := ab.get(path)
	if !strings.Contains(ap.text(), "Registry DOB 1961-04-12 differs.") || !strings.Contains(ap.text(), "mentioned Ann Analyst") ||
		strings.Contains(ap.body, `action="`+path+`/comments"`) {
		t.Errorf("the analyst's thread (read, no form): %s", ap.text())
	}
	if r := ab.post(path+"/comments", "body", "x"); r.status != http.StatusForbidden {
		t.Errorf("the analyst comments: %d", r.status)
	}
	if p := vb.get(path); strings.Contains(p.text(), "Registry DOB") || !strings.Contains(p.text(), "2 comments.") {
		t.Errorf("the viewer sees the text, or not the count: %s", p.text())
	}

	id := path[strings.LastIndex(path, "/")+1:]
	rows, err := s.st.FindAudit(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range rows {
		if a.Action == "aml_case.commented" {
			n++
			// The text must not be in the row: "1961" alone is in one
			// random ULID of about 77,000 (measured 1.3e-5), and the
			// reason holds a comment's and a user's ULID; the full date
			// and a word cannot come from an id or a hex digest.
			if a.ActorID == nil || *a.ActorID != rev.User.ID || strings.Contains(*a.Reason, "1961-04-12") ||
				strings.Contains(*a.Reason, "Registry") || strings.Contains(*a.Reason, "script") {
				t.Errorf("comment audit: %+v %s", a, *a.Reason)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d aml_case.commented rows, want 2", n)
	}
}

// openAMLCase confirms a sandbox match through the API and returns the
// case's console path.
func (s *reviewStack) openAMLCase() string {
	s.t.Helper()
	c := s.api(s.org.SandboxKey, "POST", "/v1/aml-checks", map[string]any{"firstName": "Sandbox", "lastName": "Sanctioned"}, http.StatusCreated)
	m := c["results"].([]any)[0].(map[string]any)["matches"].([]any)[0].(map[string]any)["id"].(string)
	s.api(s.org.SandboxKey, "POST", "/v1/aml-checks/"+c["id"].(string)+"/matches/"+m+"/decision",
		map[string]any{"decision": "confirmed", "note": "Same person."}, http.StatusOK)
	cases := s.api(s.org.SandboxKey, "GET", "/v1/aml-cases", nil, http.StatusOK)["data"].([]any)
	return "/console/sandbox/aml-cases/" + cases[0].(map[string]any)["id"].(string)
}

// mentionEmails returns the queued e-mails to one address whose subject
// holds subject.
func mentionEmails(t *testing.T, st *store.Store, to, subject string) []store.Email {
	t.Helper()
	emails, err := st.FindEmails(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var out []store.Email
	for _, m := range emails {
		if m.To == to && strings.Contains(m.Subject, subject) {
			out = append(out, m)
		}
	}
	return out
}
