package users_test

import (
	"testing"

	"kycd/kyc"
	"kycd/store"
	"kycd/users"
)

// TestResetLinkShownTo: who may see a set-password link (and so hold a
// credential of its user): the operator always; a console admin only for
// a user who is not an admin and has no password yet (issue 23 item 1).
// Every link is e-mailed to its user either way.
func TestResetLinkShownTo(t *testing.T) {
	f := newFixture(t)
	admin := f.user("ada@acme.example", kyc.RoleAdmin)
	other := f.user("bob@acme.example", kyc.RoleAdmin)
	rev := f.user("rob@acme.example", kyc.RoleReviewer)
	var pending *kyc.User
	if err := f.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		pending, _, err = f.svc.Invite(tx, f.org.ID, users.InviteInput{Email: "pat@acme.example", Name: "Pat Pending", Role: kyc.RoleAnalyst}, users.UserActor(admin))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	op := users.Actor{Type: kyc.ActorSystem, ID: "cli"}
	for _, tt := range []struct {
		name   string
		actor  users.Actor
		target *kyc.User
		shown  bool
	}{
		{"operator, admin", op, other, true},
		{"operator, reviewer", op, rev, true},
		{"admin, another admin", users.UserActor(admin), other, false},
		{"admin, themselves", users.UserActor(admin), admin, false},
		{"admin, reviewer with a password", users.UserActor(admin), rev, false},
		{"admin, invited analyst", users.UserActor(admin), pending, true},
		{"API key, invited analyst", users.Actor{Type: kyc.ActorAPIKey, ID: "key_x"}, pending, false},
	} {
		mails, _ := f.st.FindEmails(t.Context())
		var link string
		if err := f.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
			link, err = f.svc.ResetLink(tx, f.org.ID, tt.target.ID, tt.actor)
			return err
		}); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if (link != "") != tt.shown {
			t.Errorf("%s: link %q, want shown=%v", tt.name, link, tt.shown)
		}
		after, _ := f.st.FindEmails(t.Context())
		if len(after) != len(mails)+1 || after[len(after)-1].To != tt.target.Email {
			t.Errorf("%s: the link was not e-mailed to %s", tt.name, tt.target.Email)
		}
	}
}
