package console_test

import (
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
)

// TestBrowserLifecycle is an admin in Chromium working an applicant's
// personal data: a legal hold set with a reason (the confirmation page
// then says nothing is erased), lifted, the erasure confirmed and its
// receipt shown; a decided live applicant's erasure deferred to the date
// retention allows; the retention settings with a refused value. Every
// page is checked at 1280 and 390 px (no CSP violation, no serious or
// critical axe-core violation, no horizontal scrolling) and kept as a
// screenshot.
func TestBrowserLifecycle(t *testing.T) {
	e := newEnv(t)
	admin := e.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	mk := func(key string, body map[string]any) (string, string) {
		a := e.api(key, "POST", "/v1/applicants", body, 201)
		return a["id"].(string), a["publicId"].(string)
	}
	sid, spub := mk(e.org.SandboxKey, map[string]any{"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com", "externalRef": "customer-42"})
	lid, _ := mk(e.org.LiveKey, map[string]any{"firstName": "Grace", "lastName": "Hopper", "relationshipEndDate": "2027-06-30"})
	if err := e.st.InTx(t.Context(), func(tx *store.Tx) error {
		now := tx.Now()
		r := &kyc.KYCRequest{OrganizationID: e.org.ID, Environment: kyc.Live, ApplicantID: lid, Status: kyc.KYCLinkGenerated,
			Decision: kyc.DecisionPending, WorkflowType: kyc.WorkflowStandard, PortalExpiresAt: now}
		if err := tx.CreateKYCRequest(r, []byte(store.NewSecret(16))); err != nil {
			return err
		}
		r.Status, r.Decision, r.DecidedAt = kyc.KYCApproved, kyc.DecisionApproved, &now
		return tx.SaveKYCRequest(r)
	}); err != nil {
		t.Fatal(err)
	}
	base := e.srv.URL
	sPath, lPath := "/console/sandbox/applicants/"+sid, "/console/live/applicants/"+lid
	b := newTab(t, 1280)
	b.signIn(base, admin)

	b.open(base, sPath)
	b.check("applicant-admin")
	b.typeInto("#hold-reason", "Regulator inquiry 2026-17")
	b.click(`form[action$="/legal-hold"] button[type=submit]`)
	if body := b.body(); !strings.Contains(body, "The legal hold is set") || !strings.Contains(body, "Regulator inquiry 2026-17") {
		t.Fatalf("hold: %s", body)
	}
	b.check("applicant-held")
	b.open(base, sPath+"/erase")
	if !strings.Contains(b.body(), "under legal hold") {
		t.Errorf("erase page under hold: %s", b.body())
	}
	b.check("erase-held")
	b.open(base, sPath)
	b.typeInto("#hold-reason", "Inquiry closed")
	b.click(`form[action$="/legal-hold/lift"] button[type=submit]`)
	if !strings.Contains(b.body(), "The legal hold is lifted") {
		t.Fatalf("lift: %s", b.body())
	}

	b.click(`a[href$="/erase"]`)
	if !b.at(sPath + "/erase") {
		t.Fatalf("the erase link went to %s", eval[string](b, `location.pathname`))
	}
	b.check("erase-now")
	b.typeInto("#erase-confirm", "app_wrong")
	b.click(`form[action$="/erase"] button[type=submit]`)
	if !strings.Contains(b.body(), "to confirm") {
		t.Fatalf("wrong confirmation: %s", b.body())
	}
	b.check("erase-wrong-confirmation")
	b.typeInto("#erase-confirm", spub)
	b.typeInto("#erase-reason", "Art. 17 request #12")
	b.click(`form[action$="/erase"] button[type=submit]`)
	if body := b.body(); !strings.Contains(body, "The applicant is erased") || !strings.Contains(body, "Erasure receipt") || strings.Contains(body, "Lovelace") {
		t.Fatalf("erased: %s", body)
	}
	b.check("applicant-erased")

	b.open(base, lPath+"/erase")
	if !strings.Contains(b.body(), "Retention keeps this data until 2032-06-30") {
		t.Errorf("deferred erase page: %s", b.body())
	}
	b.check("erase-deferred")
	b.typeInto("#erase-confirm", strings.ToUpper(eval[string](b, `document.querySelector('label[for=erase-confirm] code').textContent`)))
	b.click(`form[action$="/erase"] button[type=submit]`)
	if body := b.body(); !strings.Contains(body, "the erasure is recorded and runs on the date shown below") || !strings.Contains(body, "2032-06-30") {
		t.Fatalf("scheduled: %s", body)
	}
	b.check("applicant-scheduled")

	b.open(base, "/console/settings#retention")
	clear := func(ids ...string) {
		for _, id := range ids {
			eval[any](b, `document.getElementById('`+id+`').value = ''; 0`)
		}
	}
	clear("ret-decidedYears", "ret-amlYears")
	b.typeInto("#ret-decidedYears", "7")
	b.typeInto("#ret-amlYears", "60")
	// The browser's own check (max=50) would stop the form; the server's
	// refusal is what is shown here.
	eval[any](b, `document.querySelector('form[action="/console/settings/retention"]').noValidate = true; 0`)
	b.click(`form[action="/console/settings/retention"] button[type=submit]`)
	if !strings.Contains(b.body(), "must be a whole number from 1 to 50") {
		t.Fatalf("refused retention: %s", b.body())
	}
	b.check("settings-retention-refused")
	clear("ret-amlYears")
	b.typeInto("#ret-amlYears", "10")
	b.click(`form[action="/console/settings/retention"] button[type=submit]`)
	if !strings.Contains(b.body(), "The retention periods are saved") {
		t.Fatalf("retention: %s", b.body())
	}
	b.check("settings-retention")

	b.resize(390)
	for _, p := range []struct{ name, path string }{
		{"applicant-erased", sPath}, {"applicant-scheduled", lPath}, {"erase-deferred", lPath + "/erase"}, {"settings", "/console/settings"},
	} {
		b.open(base, p.path)
		b.check(p.name)
	}
	// An applicant with the admin's actions, held, at 390 px.
	oid, _ := mk(e.org.SandboxKey, map[string]any{"firstName": "Alan", "lastName": "Turing"})
	b.open(base, "/console/sandbox/applicants/"+oid)
	b.check("applicant-admin")
	b.typeInto("#hold-reason", "Litigation hold")
	b.click(`form[action$="/legal-hold"] button[type=submit]`)
	b.check("applicant-held")
	b.open(base, "/console/sandbox/applicants/"+oid+"/erase")
	b.check("erase-held")
	// The confirmation page when retention allows it, and its refusal of a
	// wrong confirmation, at 390 px.
	nid, _ := mk(e.org.SandboxKey, map[string]any{"firstName": "Katherine", "lastName": "Johnson"})
	b.open(base, "/console/sandbox/applicants/"+nid+"/erase")
	b.check("erase-now")
	b.typeInto("#erase-confirm", "app_wrong")
	b.click(`form[action$="/erase"] button[type=submit]`)
	b.check("erase-wrong-confirmation")
	b.open(base, "/console/settings#retention")
	eval[any](b, `document.getElementById('ret-sandboxDays').value = '0'; document.querySelector('form[action="/console/settings/retention"]').noValidate = true; 0`)
	b.click(`form[action="/console/settings/retention"] button[type=submit]`)
	b.check("settings-retention-refused")
}
