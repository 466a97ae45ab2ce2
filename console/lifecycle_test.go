package console_test

import (
	"archive/zip"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kycd/console"
	"kycd/kyc"
	"kycd/store"
	"kycd/store/storetest"
)

// lifecycleRoutes are the personal-data actions: admins only. Pinned here
// so that lowering one's permission in the route table fails a test that
// says why (TestAuthorization walks them with every role too).
var lifecycleRoutes = []string{
	"GET /console/{env}/applicants/{id}/erase",
	"POST /console/{env}/applicants/{id}/erase",
	"POST /console/{env}/applicants/{id}/legal-hold",
	"POST /console/{env}/applicants/{id}/legal-hold/lift",
	"GET /console/{env}/applicants/{id}/export.zip",
	"POST /console/settings/retention",
}

// TestLifecycleRoutesAreAdminOnly: every personal-data action needs the
// admin permission.
func TestLifecycleRoutesAreAdminOnly(t *testing.T) {
	perms := map[string]kyc.Permission{}
	for _, r := range console.Routes() {
		perms[r.Pattern] = r.Perm
	}
	for _, p := range lifecycleRoutes {
		if got, ok := perms[p]; !ok || got != kyc.PermAdmin {
			t.Errorf("%s: permission %v (present %v), want admin", p, got, ok)
		}
	}
}

// exportCount is how many applicant.exported rows the organization has.
func (e *env) exportCount(applicantID string) int {
	e.t.Helper()
	rows, err := e.st.FindAuditRows(e.t.Context(), store.AuditFilter{OrganizationID: e.org.ID, Resource: applicantID}, 500)
	if err != nil {
		e.t.Fatal(err)
	}
	n := 0
	for _, r := range rows {
		if r.Action == "applicant.exported" {
			n++
		}
	}
	return n
}

// TestLifecycleAttacks: a reviewer, an analyst and a viewer can neither
// erase, hold nor export (403, and nothing changes or is exported, even
// with a well-formed confirmation); another organization's admin gets 404
// for every action on our applicant; our admin cannot act on the applicant
// through the other environment's pages.
func TestLifecycleAttacks(t *testing.T) {
	e := newEnv(t)
	a := e.api(e.org.SandboxKey, "POST", "/v1/applicants", map[string]any{"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com"}, 201)
	id, pub := a["id"].(string), a["publicId"].(string)
	base := "/console/sandbox/applicants/" + id
	unchanged := func(who string) {
		t.Helper()
		got, err := e.st.FindApplicant(t.Context(), e.org.ID, kyc.Sandbox, id)
		if err != nil || got.ErasedAt != nil || got.ErasureScheduledAt != nil || got.LegalHoldReason != nil || got.FirstName != "Ada" {
			t.Fatalf("after %s: %+v %v", who, got, err)
		}
		if n := e.exportCount(id); n != 0 {
			t.Fatalf("after %s: %d exports audited", who, n)
		}
	}
	for _, role := range []kyc.Role{kyc.RoleReviewer, kyc.RoleAnalyst, kyc.RoleViewer} {
		b := e.browser()
		b.login(e.mustUser(string(role)+"@acme.example", "A "+string(role), role))
		for _, pg := range []*page{
			b.get(base + "/erase"),
			b.post(base+"/erase", "confirm", pub, "reason", "asked"),
			b.post(base+"/legal-hold", "reason", "litigation"),
			b.post(base+"/legal-hold/lift", "reason", "done"),
			b.get(base + "/export.zip"),
			b.post("/console/settings/retention", "decidedYears", "1"),
		} {
			if pg.status != http.StatusForbidden || pg.header.Get("Content-Type") == "application/zip" {
				t.Errorf("%s: %d %s", role, pg.status, pg.header.Get("Content-Type"))
			}
		}
		if pg := b.get(base); pg.status != 200 || strings.Contains(pg.body, "/erase") || strings.Contains(pg.body, "export.zip") ||
			strings.Contains(pg.body, "legal-hold") {
			t.Errorf("%s sees the admin actions on the applicant page: %d", role, pg.status)
		}
		unchanged(string(role))
	}

	// Another organization's admin: 404 for everything.
	mine := e.org
	e.org = storetest.MustOrg(t, e.st, "other", nil)
	other := e.mustUser("admin@other.example", "Otto Other", kyc.RoleAdmin)
	e.org = mine
	ob := e.browser()
	ob.login(other)
	for _, pg := range []*page{
		ob.get(base + "/erase"),
		ob.post(base+"/erase", "confirm", pub),
		ob.post(base+"/legal-hold", "reason", "x"),
		ob.get(base + "/export.zip"),
	} {
		if pg.status != http.StatusNotFound || strings.Contains(pg.body, "Lovelace") {
			t.Errorf("other organization's admin: %d", pg.status)
		}
	}
	unchanged("another organization's admin")

	// Our admin, through the live pages: refused (the record is in the
	// other environment), nothing done.
	admin := e.mustUser("admin@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := e.browser()
	b.login(admin)
	live := "/console/live/applicants/" + id
	for _, pg := range []*page{
		b.get(live + "/erase"),
		b.post(live+"/erase", "confirm", pub),
		b.post(live+"/legal-hold", "reason", "x"),
		b.get(live + "/export.zip"),
	} {
		if (pg.status != http.StatusForbidden && pg.status != http.StatusNotFound) || strings.Contains(pg.body, "Lovelace") {
			t.Errorf("through the other environment: %d %s", pg.status, pg.text())
		}
	}
	unchanged("the other environment's pages")
	// A wrong confirmation erases nothing and says what to type.
	pg := b.post(base+"/erase", "confirm", "app_wrong")
	if pg.status != http.StatusBadRequest || !strings.Contains(pg.text(), "id, "+pub+", to confirm") {
		t.Errorf("wrong confirmation: %d %s", pg.status, pg.text())
	}
	unchanged("a wrong confirmation")
}

// TestLifecycleByAdmin: an admin downloads the export (the same archive as
// the API's, audited with the admin), sets a legal hold with a reason
// (the erasure is then refused), lifts it, erases on the confirmation page
// and sees the receipt; the erased applicant's export is refused cleanly.
// A decided live applicant's erasure is recorded and the page shows from
// when it runs.
func TestLifecycleByAdmin(t *testing.T) {
	e := newEnv(t)
	a := e.api(e.org.SandboxKey, "POST", "/v1/applicants", map[string]any{"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com"}, 201)
	id, pub := a["id"].(string), a["publicId"].(string)
	base := "/console/sandbox/applicants/" + id
	admin := e.mustUser("admin@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := e.browser()
	b.login(admin)

	if pg := b.get(base); pg.status != 200 || !strings.Contains(pg.body, base+"/export.zip") || !strings.Contains(pg.body, base+"/erase") {
		t.Fatalf("applicant page: %d", pg.status)
	}
	pg := b.get(base + "/export.zip")
	if pg.status != 200 || pg.header.Get("Content-Type") != "application/zip" || !strings.Contains(pg.header.Get("Content-Disposition"), pub+"-export-") {
		t.Fatalf("export: %d %v", pg.status, pg.header)
	}
	zr, err := zip.NewReader(strings.NewReader(pg.body), int64(len(pg.body)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(zr.File, func(f *zip.File) bool { return f.Name == "export.json" }) {
		t.Errorf("archive without export.json")
	}
	rows, err := e.st.FindAuditRows(t.Context(), store.AuditFilter{OrganizationID: e.org.ID, Resource: id, Actor: admin.User.ID}, 50)
	if err != nil || !slices.ContainsFunc(rows, func(r store.AuditRow) bool { return r.Action == "applicant.exported" }) {
		t.Errorf("export not audited with the admin: %v %+v", err, rows)
	}

	// Legal hold: a reason is required; then erasure is refused.
	if pg := b.post(base+"/legal-hold", "reason", "  "); pg.status != http.StatusBadRequest || !strings.Contains(pg.text(), "is required") {
		t.Errorf("hold without reason: %d %s", pg.status, pg.text())
	}
	if pg := b.post(base+"/legal-hold", "reason", "Regulator inquiry 2026-17"); pg.status != http.StatusSeeOther {
		t.Fatalf("hold: %d %s", pg.status, pg.text())
	}
	if pg := b.get(base + "?notice=hold-set"); !strings.Contains(pg.text(), "Regulator inquiry 2026-17") || !strings.Contains(pg.body, "legal-hold/lift") {
		t.Errorf("held page: %s", pg.text())
	}
	if pg := b.get(base + "/erase"); pg.status != 200 || !strings.Contains(pg.text(), "under legal hold") {
		t.Errorf("erase page under hold: %d %s", pg.status, pg.text())
	}
	if pg := b.post(base+"/erase", "confirm", pub); pg.status != http.StatusConflict || !strings.Contains(pg.text(), "legal hold") {
		t.Errorf("erase under hold: %d %s", pg.status, pg.text())
	}
	if pg := b.post(base+"/legal-hold/lift", "reason", "Inquiry closed"); pg.status != http.StatusSeeOther {
		t.Fatalf("lift: %d %s", pg.status, pg.text())
	}

	// Erase: the confirmation page says it runs now; the receipt shows.
	if pg := b.get(base + "/erase"); pg.status != 200 || !strings.Contains(pg.text(), "Retention allows it") {
		t.Errorf("erase page: %d %s", pg.status, pg.text())
	}
	if pg := b.post(base+"/erase", "confirm", " "+strings.ToUpper(pub)+" ", "reason", "Art. 17 request #12"); pg.status != http.StatusSeeOther ||
		!strings.Contains(pg.header.Get("Location"), "notice=erased") {
		t.Fatalf("erase: %d %s", pg.status, pg.text())
	}
	pg = b.get(base + "?notice=erased")
	rec, err := e.st.FindErasure(t.Context(), e.org.ID, kyc.Sandbox, id)
	if err != nil || rec.ActorID == nil || *rec.ActorID != admin.User.ID || rec.Reason == nil || *rec.Reason != "Art. 17 request #12" {
		t.Fatalf("receipt: %+v %v", rec, err)
	}
	if !strings.Contains(pg.text(), "Erasure receipt") || !strings.Contains(pg.body, rec.ID) || strings.Contains(pg.text(), "Lovelace") ||
		strings.Contains(pg.body, "export.zip") {
		t.Errorf("erased page: %s", pg.text())
	}
	if pg := b.get(base + "/export.zip"); pg.status != http.StatusUnprocessableEntity || pg.header.Get("Content-Type") == "application/zip" ||
		!strings.Contains(pg.text(), "was erased") {
		t.Errorf("export of an erased applicant: %d %s", pg.status, pg.text())
	}

	// Live, decided: the erasure is recorded and the page says from when.
	g := e.api(e.org.LiveKey, "POST", "/v1/applicants", map[string]any{"firstName": "Grace", "lastName": "Hopper", "relationshipEndDate": "2027-06-30"}, 201)
	gid, gpub := g["id"].(string), g["publicId"].(string)
	if err := e.st.InTx(t.Context(), func(tx *store.Tx) error {
		now := tx.Now()
		r := &kyc.KYCRequest{OrganizationID: e.org.ID, Environment: kyc.Live, ApplicantID: gid, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: now}
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		r.Status, r.Decision, r.DecidedAt = kyc.KYCApproved, kyc.DecisionApproved, &now
		return tx.SaveKYCRequest(r)
	}); err != nil {
		t.Fatal(err)
	}
	lbase := "/console/live/applicants/" + gid
	if pg := b.get(lbase + "/erase"); !strings.Contains(pg.text(), "Retention keeps this data until 2032-06-30 00:00 UTC") ||
		!strings.Contains(pg.text(), "relationship end (2027-06-30)") {
		t.Errorf("live erase page: %s", pg.text())
	}
	if pg := b.post(lbase+"/erase", "confirm", gpub); pg.status != http.StatusSeeOther || !strings.Contains(pg.header.Get("Location"), "notice=erasure-scheduled") {
		t.Fatalf("live erase: %d %s", pg.status, pg.text())
	}
	if pg := b.get(lbase + "?notice=erasure-scheduled"); !strings.Contains(pg.text(), "Erasure scheduled") ||
		!strings.Contains(pg.text(), "2032-06-30 00:00 UTC") || !strings.Contains(pg.text(), "Grace") {
		t.Errorf("scheduled page: %s", pg.text())
	}
}

// TestSettingsRetention: an admin sets the retention periods (the same four
// as kycd orgs update); empty goes back to the default; out-of-range values
// are refused naming the field, keep what was typed and change nothing; a
// change is audited with the admin.
func TestSettingsRetention(t *testing.T) {
	e := newEnv(t)
	admin := e.mustUser("admin@acme.example", "Ada Admin", kyc.RoleAdmin)
	b := e.browser()
	b.login(admin)
	pg := b.get("/console/settings")
	for _, f := range []string{"decidedYears", "inactiveDays", "sandboxDays", "amlYears"} {
		if inputValue(pg, f) == "" {
			t.Errorf("settings page lacks %s", f)
		}
	}
	pg = b.post("/console/settings/retention", "decidedYears", "7", "inactiveDays", "", "sandboxDays", "14", "amlYears", "10")
	if pg.status != http.StatusSeeOther || !strings.Contains(pg.header.Get("Location"), "retention-saved") {
		t.Fatalf("save: %d %s", pg.status, pg.text())
	}
	p, err := e.st.RetentionOf(t.Context(), e.org.ID)
	if err != nil || p != (kyc.RetentionPolicy{DecidedYears: 7, InactiveDays: 90, SandboxDays: 14, AMLYears: 10}) {
		t.Fatalf("policy %+v %v", p, err)
	}
	pg = b.post("/console/settings/retention", "decidedYears", "51", "inactiveDays", "0", "sandboxDays", "x", "amlYears", "3")
	if pg.status != http.StatusBadRequest || inputValue(pg, "decidedYears") != "51" || inputValue(pg, "amlYears") != "3" {
		t.Errorf("refused form: %d %s", pg.status, pg.text())
	}
	for _, f := range []string{"decidedYears", "inactiveDays", "sandboxDays"} {
		if !strings.Contains(pg.body, `id="ret-`+f+`-err"`) {
			t.Errorf("no error for %s", f)
		}
	}
	if p2, _ := e.st.RetentionOf(t.Context(), e.org.ID); p2 != p {
		t.Errorf("a refused form changed the policy: %+v", p2)
	}
	if pg := b.get("/console/settings"); inputValue(pg, "sandboxDays") != "14" || inputValue(pg, "amlYears") != "10" {
		t.Errorf("saved values not shown")
	}
	if got := e.auditActions(admin.User.ID); !slices.Contains(got, "organization.retention_changed") {
		t.Errorf("audit: %v", got)
	}
	// Saving the same values writes nothing more.
	before := len(e.auditActions(admin.User.ID))
	b.post("/console/settings/retention", "decidedYears", "7", "inactiveDays", "90", "sandboxDays", "14", "amlYears", "10")
	if after := len(e.auditActions(admin.User.ID)); after != before {
		t.Errorf("an unchanged form was audited: %d → %d", before, after)
	}
}

// inputValue is the value of the page's input named name.
func inputValue(p *page, name string) string {
	m := regexp.MustCompile(`<input [^>]*name="` + regexp.QuoteMeta(name) + `"[^>]*value="([^"]*)"`).FindStringSubmatch(p.body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}
