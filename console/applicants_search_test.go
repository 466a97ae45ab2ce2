package console_test

import (
	"net/http"
	"strings"
	"testing"

	"kycd/kyc"
)

// TestApplicantSearchByRole: a viewer, who must not see contact details,
// cannot find an applicant by e-mail (that would tell whether an address
// belongs to an applicant, issue 23 item 7); by name, external reference
// or id they can. An analyst finds them by e-mail too.
func TestApplicantSearchByRole(t *testing.T) {
	e := newEnv(t)
	a := e.api(e.org.LiveKey, "POST", "/v1/applicants", map[string]any{"firstName": "Jane", "lastName": "Quiet",
		"email": "jane.quiet@example.com", "externalRef": "CUST-7781"}, http.StatusCreated)
	viewer := e.mustUser("vic@acme.example", "Vic Viewer", kyc.RoleViewer)
	analyst := e.mustUser("ann@acme.example", "Ann Analyst", kyc.RoleAnalyst)
	bv, ba := e.browser(), e.browser()
	bv.login(viewer)
	ba.login(analyst)
	found := func(b *browser, q string) bool {
		t.Helper()
		p := b.get("/console/live/applicants?q=" + q)
		if p.status != http.StatusOK {
			t.Fatalf("search %q: %d", q, p.status)
		}
		return strings.Contains(p.text(), "1 applicant found")
	}
	for _, q := range []string{"jane.quiet@example.com", "JANE.QUIET@EXAMPLE.COM"} {
		if found(bv, q) {
			t.Errorf("a viewer found an applicant by e-mail %q", q)
		}
		if !found(ba, q) {
			t.Errorf("an analyst did not find the applicant by e-mail %q", q)
		}
	}
	for _, q := range []string{"jane", "CUST-7781", a["id"].(string)} {
		if !found(bv, q) {
			t.Errorf("a viewer did not find the applicant by %q", q)
		}
	}
	if p := bv.get("/console/live/applicants"); strings.Contains(p.text(), "e-mail") {
		t.Errorf("the viewer's search form offers e-mail: %s", p.text())
	}
}
