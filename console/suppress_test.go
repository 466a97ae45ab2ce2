package console_test

import (
	"net/http"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestAlertSuppressionLift: a false positive decided in the console shows
// as suppressed on the next check of the same person, with a form to lift
// it; a viewer sees no form and is refused; lifting it with a note
// records the user and the next check is pending again.
func TestAlertSuppressionLift(t *testing.T) {
	s := newReviewStack(t)
	subject := map[string]any{"firstName": "Sandbox", "lastName": "Sanctioned", "dob": "1970-01-01", "country": "RU"}
	first := s.api(s.org.SandboxKey, "POST", "/v1/aml-checks", subject, http.StatusCreated)
	m := first["results"].([]any)[0].(map[string]any)["matches"].([]any)[0].(map[string]any)["id"].(string)
	rev := s.mustUser("rob@acme.example", "Rob Reviewer", kyc.RoleReviewer)
	b := s.browser()
	b.login(rev)
	if p := b.post("/console/sandbox/alerts/"+first["id"].(string)+"/matches/"+m, "decision", "false_positive", "note", "Not him."); p.status != http.StatusSeeOther {
		t.Fatalf("decide: %d %s", p.status, p.text())
	}
	second := s.api(s.org.SandboxKey, "POST", "/v1/aml-checks", subject, http.StatusCreated)
	sup, _ := second["results"].([]any)[0].(map[string]any)["matches"].([]any)[0].(map[string]any)["suppressed"].(map[string]any)
	if sup == nil {
		t.Fatalf("second check not suppressed: %v", second["results"])
	}
	page := "/console/sandbox/alerts/" + second["id"].(string)
	lift := page + "/suppressions/" + sup["id"].(string) + "/lift"
	p := b.get(page)
	if !strings.Contains(p.text(), "suppressed") || !strings.Contains(p.body, `action="`+lift+`"`) {
		t.Fatalf("alert page shows no suppression or no lift form: %s", p.text())
	}
	viewer := s.mustUser("vic@acme.example", "Vic Viewer", kyc.RoleViewer)
	vb := s.browser()
	vb.login(viewer)
	if p := vb.get(page); strings.Contains(p.body, `action="`+lift+`"`) {
		t.Error("a viewer is offered the lift form")
	}
	if p := vb.post(lift, "note", "x"); p.status != http.StatusForbidden {
		t.Errorf("viewer lifts: %d", p.status)
	}
	if p := b.post(lift); p.status == http.StatusSeeOther {
		t.Error("lifted without a note")
	}
	if p := b.post(lift, "note", "Passport re-checked."); p.status != http.StatusSeeOther {
		t.Fatalf("lift: %d %s", p.status, p.text())
	}
	got := s.api(s.org.SandboxKey, "GET", "/v1/aml-suppressions/"+sup["id"].(string), nil, http.StatusOK)
	if by, _ := got["liftedBy"].(map[string]any); got["active"] != false || by["actorId"] != rev.User.ID {
		t.Fatalf("after the console lift: %v", got)
	}
	third := s.api(s.org.SandboxKey, "POST", "/v1/aml-checks", subject, http.StatusCreated)
	if third["reviewStatus"] != "pending" {
		t.Errorf("after lifting: reviewStatus %v", third["reviewStatus"])
	}
}
