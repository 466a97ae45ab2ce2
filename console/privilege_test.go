package console_test

import (
	"net/http"
	"strings"
	"testing"

	"kycd/kyc"
	"kycd/store"
)

// TestNoCredentialForEqualOrHigher is the attack of issue 23 item 1: an
// organization admin without the installation flag walks the console
// trying to get any credential of the installation admin or of another
// admin (a set-password link, by "send a new link", by an invitation, by
// demoting them first, by disabling and enabling them). Every attempt
// fails; the links went by e-mail to their owners only; a link used by its
// owner keeps two-step sign-in and tells them by e-mail.
func TestNoCredentialForEqualOrHigher(t *testing.T) {
	s := newReviewStack(t)
	mallory := s.mustUser("mallory@acme.example", "Mallory Admin", kyc.RoleAdmin)
	ian := s.mustInstallationAdmin("ian@acme.example", "Ian Installation")
	ian.Secret = s.enableTOTP(ian)
	ada := s.mustUser("ada@acme.example", "Ada Admin", kyc.RoleAdmin)
	rob := s.mustUser("rob@acme.example", "Rob Reviewer", kyc.RoleReviewer)
	b := s.browser()
	b.login(mallory)

	// leaks fails when a page carries a set-password link or any token
	// kycd has queued in an e-mail so far.
	leaks := func(what string, p *page) {
		t.Helper()
		if strings.Contains(p.body, "set-password?token=") {
			t.Errorf("%s: the page shows a set-password link: %s", what, p.text())
		}
		mails, err := s.st.FindEmails(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mails {
			if i := strings.Index(m.Body, "token="); i >= 0 {
				tok := strings.Fields(m.Body[i+len("token="):])[0]
				if strings.Contains(p.body, tok) {
					t.Errorf("%s: the page shows the token e-mailed to %s", what, m.To)
				}
			}
		}
	}

	// 1. "Send a new link" for the installation admin and another admin:
	// e-mailed to them, never shown.
	for _, victim := range []*person{ian, ada} {
		p := b.post("/console/users/" + victim.User.ID + "/link")
		if p.status != http.StatusOK || !strings.Contains(p.text(), "e-mailed") {
			t.Errorf("link for %s: %d %s", victim.User.Email, p.status, p.text())
		}
		leaks("new link for "+victim.User.Email, p)
	}
	// 2. Demote the other admin first, then ask for a link: it is a reset
	// of a password they chose, so it is e-mailed only.
	if p := b.post("/console/users/"+ada.User.ID, "role", "reviewer"); p.status != http.StatusSeeOther {
		t.Fatalf("demote ada: %d %s", p.status, p.text())
	}
	leaks("link for a demoted admin", b.post("/console/users/"+ada.User.ID+"/link"))
	// Likewise for a reviewer who has a password: a reset is e-mailed only.
	leaks("reset link for a reviewer", b.post("/console/users/"+rob.User.ID+"/link"))
	// 3. An organization admin cannot demote or disable an installation
	// admin (the flag would go, and with it the way back).
	for _, form := range [][]string{{"role", "reviewer"}, {"disabled", "true"}} {
		if p := b.post("/console/users/"+ian.User.ID, form...); p.status == http.StatusSeeOther {
			t.Errorf("%v on the installation admin: accepted", form)
		}
	}
	if u, err := s.st.FindUser(t.Context(), s.org.ID, ian.User.ID); err != nil || !u.InstallationAdmin || u.Role != kyc.RoleAdmin || u.DisabledAt != nil {
		t.Fatalf("installation admin after the attempts: %+v %v", u, err)
	}
	// 4. Inviting an admin: the link goes by e-mail only.
	p := b.post("/console/users", "email", "eve@acme.example", "name", "Eve Admin", "role", "admin")
	if p.status != http.StatusOK {
		t.Fatalf("invite an admin: %d %s", p.status, p.text())
	}
	leaks("invitation of an admin", p)
	// An invitation of a reviewer still shows the link (no password yet,
	// less privileged than the admin inviting).
	if p := b.post("/console/users", "email", "nia@acme.example", "name", "Nia Analyst", "role", "analyst"); !strings.Contains(p.body, "set-password?token=") {
		t.Errorf("invitation of an analyst shows no link: %s", p.text())
	}
	// 5. The users page and the lists page give nothing either.
	leaks("users page", b.get("/console/users"))
	if p := b.get("/console/lists"); p.status != http.StatusForbidden {
		t.Errorf("/console/lists for an organization admin: %d", p.status)
	}

	// The installation admin's own link (from their e-mail) sets the
	// password; two-step sign-in stays on; they are told by e-mail; the
	// link and its use are audited.
	var link string
	mails, err := s.st.FindEmails(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mails {
		if m.To == ian.User.Email && strings.Contains(m.Body, "token=") {
			link = strings.Fields(m.Body[strings.Index(m.Body, "http"):])[0]
		}
	}
	if link == "" {
		t.Fatal("no link e-mailed to the installation admin")
	}
	ian.Password = "new harbour lantern 5521 Q"
	if _, err := s.users.SetPassword(t.Context(), tokenOf(t, link), ian.Password, ian.Password); err != nil {
		t.Fatal(err)
	}
	bi := s.browser()
	if p := bi.post("/console/login", "email", ian.User.Email, "password", ian.Password); p.status != http.StatusSeeOther ||
		!strings.HasPrefix(p.header.Get("Location"), "/console/login/code") {
		t.Fatalf("sign-in after the reset skips the second factor: %d %v", p.status, p.header.Get("Location"))
	}
	mails, _ = s.st.FindEmails(t.Context())
	told := false
	for _, m := range mails {
		told = told || m.To == ian.User.Email && strings.Contains(strings.ToLower(m.Subject), "password was reset")
	}
	if !told {
		t.Error("the installation admin was not told by e-mail that their password was reset")
	}
	rows, err := s.st.FindAuditRows(t.Context(), store.AuditFilter{OrganizationID: s.org.ID}, 200)
	if err != nil {
		t.Fatal(err)
	}
	var linked, set bool
	for _, r := range rows {
		linked = linked || r.Action == "user.password_link" && r.ResourceID == ian.User.ID && r.ActorID != nil && *r.ActorID == mallory.User.ID
		set = set || r.Action == "user.password_set" && r.ResourceID == ian.User.ID
	}
	if !linked || !set {
		t.Errorf("audit: link by mallory %v, password set %v", linked, set)
	}
}
