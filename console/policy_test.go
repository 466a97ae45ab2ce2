package console_test

import (
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"kycd/decision"
	"kycd/internal/reviewdata"
	"kycd/kyc"
)

var hiddenRE = regexp.MustCompile(`<input type="hidden" name="(previewed|base)" value="([^"]*)">`)

// hidden reads the save form's hidden fingerprints off a preview page.
func hidden(t *testing.T, p *page) (previewed, base string) {
	t.Helper()
	for _, m := range hiddenRE.FindAllStringSubmatch(p.body, -1) {
		if m[1] == "previewed" {
			previewed = m[2]
		} else {
			base = m[2]
		}
	}
	if previewed == "" || base == "" {
		t.Fatalf("no save form on the page: %s", p.text())
	}
	return previewed, base
}

// TestPolicyEditor: the policy editor shows every problem at its member
// and line, previews what a policy would change on the last decided
// requests before anything is saved, saves only the text it previewed
// against the policy still in force, and the next submission is decided
// with the saved policy.
func TestPolicyEditor(t *testing.T) {
	s := newReviewStack(t)
	admin := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	other := s.mustUser("bob@acme.example", "Bob Admin", kyc.RoleAdmin)
	// Decided requests: two people on the watch list, three who are not.
	var listed []string
	for _, p := range []reviewdata.Person{
		{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"},
		{FirstName: "Anna", LastName: "Schmidt", DOB: "1990-02-03", Country: "DE", DocNumber: "T22000131"},
		{FirstName: "Erika", LastName: "Mustermann", DOB: "1964-01-01", Country: "DE", DocNumber: "T22000132"},
		{FirstName: "Jonas", LastName: "Weber", DOB: "1985-07-09", Country: "DE", DocNumber: "T22000133"},
		{FirstName: "Lena", LastName: "Fischer", DOB: "1979-11-30", Country: "DE", DocNumber: "T22000134"},
	} {
		r := s.awaiting(kyc.Live, p)
		if p.LastName == "Petrenko" || p.LastName == "Mustermann" {
			listed = append(listed, r.PublicID)
		}
	}
	b := s.browser()
	b.login(admin)

	pg := b.get("/console/settings/policy")
	if pg.status != http.StatusOK || !strings.Contains(pg.body, `&#34;version&#34;: &#34;`+decision.DefaultPolicy().Version) {
		t.Fatalf("editor: %d %s", pg.status, pg.text())
	}

	// Problems, each with its member and line.
	broken := "{\n  \"version\": \"acme-2\",\n  \"minimumAge\": 150,\n  \"colour\": \"red\",\n  \"actions\": {\"PEP_MATCH\": \"shrug\", \"NOT_A_CODE\": \"reject\"}\n}"
	pg = b.post("/console/settings/policy/preview", "policy", broken, "env", "live")
	if pg.status != http.StatusBadRequest {
		t.Fatalf("broken policy: %d", pg.status)
	}
	for _, want := range []string{"4 problems in the policy", "minimumAge (line 3): must be from 0 to 100", "colour (line 4): is not a policy setting",
		"actions.NOT_A_CODE (line 5): unknown reason code", `actions.PEP_MATCH (line 5): "shrug" must be reject, review, warn or ignore`} {
		if !strings.Contains(html.UnescapeString(pg.text()), want) {
			t.Errorf("broken policy page lacks %q: %s", want, pg.text())
		}
	}
	if !strings.Contains(pg.body, "NOT_A_CODE&#34;: &#34;reject") {
		t.Error("the text sent is not kept in the editor")
	}
	pg = b.post("/console/settings/policy/preview", "policy", "{\n  \"version\": \"acme-2\",,\n}")
	if !strings.Contains(html.UnescapeString(pg.text()), "line 2, column 23: invalid character ','") ||
		!strings.Contains(html.UnescapeString(pg.text()), "problem in the policy, listed with the editor: nothing was checked or saved. Settings › Decision policy") {
		t.Errorf("syntax error: %s", pg.text())
	}
	huge := b.post("/console/settings/policy/preview", "policy", `{"version":"x","highRiskCountries":["`+strings.Repeat("IR", 200<<10)+`"]}`)
	if huge.status != http.StatusBadRequest || !strings.Contains(huge.text(), "larger than 256 KB") {
		t.Errorf("huge policy: %d %s", huge.status, huge.text())
	}
	// The version is copied into every decision: 1 to 64 printable ASCII
	// characters, a field error at its line otherwise.
	long := b.post("/console/settings/policy/preview", "policy", "{\n  \"version\": \""+strings.Repeat("v", 65)+"\"\n}")
	if long.status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(long.text()), "version (line 2): must be 1 to 64 printable ASCII characters") {
		t.Errorf("65-character version: %d %s", long.status, long.text())
	}
	// A changed policy under the version in force is refused.
	pg = b.post("/console/settings/policy/preview", "policy", `{"version":"`+decision.DefaultPolicy().Version+`","minimumAge":21}`)
	if pg.status != http.StatusBadRequest || !strings.Contains(pg.text(), "a changed policy needs a new version") {
		t.Errorf("same version: %d %s", pg.status, pg.text())
	}

	// The floor: ignoring a check live approval needs is refused, with why.
	pg = b.post("/console/settings/policy/preview", "policy", `{"version":"acme-lax","approveConfidence":0,"actions":{"FACE_MISMATCH":"ignore","SELFIE_NOT_LIVE":"warn"}}`)
	if txt := html.UnescapeString(pg.text()); pg.status != http.StatusBadRequest ||
		!strings.Contains(txt, "actions.FACE_MISMATCH (line 1): cannot be ignore: in live no request is approved without the selfie's face matched to the document portrait") ||
		!strings.Contains(txt, "actions.SELFIE_NOT_LIVE (line 1): cannot be warn") {
		t.Errorf("below the floor: %d %s", pg.status, txt)
	}

	// Sanctions matches rejected outright: the two listed people's
	// outcomes change, nobody else's.
	draft := `{"version":"acme-2","actions":{"SANCTIONS_MATCH":"reject"}}`
	pg = b.post("/console/settings/policy/preview", "policy", draft, "env", "live")
	if pg.status != http.StatusOK {
		t.Fatalf("preview: %d %s", pg.status, pg.text())
	}
	if !strings.Contains(pg.text(), "2 of the last 5 live requests") || !strings.Contains(pg.text(), "review → reject ×2.") {
		t.Errorf("dry run: %s", pg.text())
	}
	for _, id := range listed {
		if !strings.Contains(pg.body, id) {
			t.Errorf("dry run does not list %s", id)
		}
	}
	previewed, base := hidden(t, pg)

	// Saving a text the page did not preview shows its preview instead.
	pg = b.post("/console/settings/policy", "policy", `{"version":"acme-3","minimumAge":30}`, "previewed", previewed, "base", base)
	if pg.status != http.StatusOK || !strings.Contains(pg.text(), "Nothing is saved yet") {
		t.Errorf("unpreviewed save: %d %s", pg.status, pg.text())
	}
	if set, _ := s.st.FindOrgSettings(t.Context(), s.org.ID); set.DecisionPolicy != nil {
		t.Fatalf("an unpreviewed policy was saved: %s", set.DecisionPolicy)
	}

	// Someone else saves first: this preview is stale.
	ob := s.browser()
	ob.login(other)
	opg := ob.post("/console/settings/policy/preview", "policy", `{"version":"bob-1","minimumAge":19}`)
	op, obase := hidden(t, opg)
	if r := ob.post("/console/settings/policy", "policy", `{"version":"bob-1","minimumAge":19}`, "previewed", op, "base", obase); r.status != http.StatusSeeOther {
		t.Fatalf("other admin's save: %d %s", r.status, r.text())
	}
	if r := b.post("/console/settings/policy", "policy", draft, "previewed", previewed, "base", base); r.status != http.StatusConflict ||
		!strings.Contains(r.text(), "Someone changed the policy after your preview") {
		t.Fatalf("stale save: %d %s", r.status, r.text())
	}

	// Preview again against bob-1, and save.
	pg = b.post("/console/settings/policy/preview", "policy", draft, "env", "live")
	previewed, base = hidden(t, pg)
	if r := b.post("/console/settings/policy", "policy", draft, "previewed", previewed, "base", base); r.status != http.StatusSeeOther {
		t.Fatalf("save: %d %s", r.status, r.text())
	}
	set, err := s.st.FindOrgSettings(t.Context(), s.org.ID)
	if err != nil || !strings.Contains(string(set.DecisionPolicy), `"version":"acme-2"`) || !strings.Contains(string(set.DecisionPolicy), `"SANCTIONS_MATCH":"reject"`) {
		t.Fatalf("saved %s (%v)", set.DecisionPolicy, err)
	}
	if got := strings.Join(s.auditActions(admin.User.ID), ","); got != "organization.decision_policy_changed" {
		t.Errorf("audit of the admin: %s", got)
	}
	if !strings.Contains(b.get("/console/settings").text(), "The organization's own policy, version acme-2") {
		t.Error("settings page does not name the policy in force")
	}

	// The next submission of a listed person is decided with it.
	req, err := reviewdata.Submit(t.Context(), s.st, s.kyc, s.org.ID, kyc.Live,
		reviewdata.Person{FirstName: "Viktor", LastName: "Petrenko", DOB: "1961-04-12", Country: "DE", DocNumber: "T22000140"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.runner.RunOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	got, err := s.st.FindKYCRequest(t.Context(), s.org.ID, kyc.Live, req.ID)
	if err != nil || got.Status != kyc.KYCRejected || got.ProcessingResult["policyVersion"] != "acme-2" {
		t.Fatalf("next decision: %s under %v (%v)", got.Status, got.ProcessingResult["policyVersion"], err)
	}

	// Back to the built-in policy, through its own preview.
	pg = b.post("/console/settings/policy/preview", "default", "true", "env", "live")
	if !strings.Contains(pg.text(), "Go back to the built-in policy") {
		t.Fatalf("default preview: %s", pg.text())
	}
	previewed, base = hidden(t, pg)
	if r := b.post("/console/settings/policy", "default", "true", "policy", pg.formValue("policy"), "previewed", previewed, "base", base); r.status != http.StatusSeeOther {
		t.Fatalf("back to default: %d %s", r.status, r.text())
	}
	if set, _ := s.st.FindOrgSettings(t.Context(), s.org.ID); set.DecisionPolicy != nil {
		t.Errorf("still a policy of its own: %s", set.DecisionPolicy)
	}
}

// formValue is the value of a hidden input of the page.
func (p *page) formValue(name string) string {
	m := regexp.MustCompile(`<input type="hidden" name="` + regexp.QuoteMeta(name) + `" value="([^"]*)">`).FindStringSubmatch(p.body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}
