package console

import (
	"net/http"

	"kycd/kyc"
	"kycd/store"
	"kycd/users"
)

type usersPage struct {
	Users       []*kyc.User
	Roles       []kyc.Role
	RequireTOTP bool
	// Link is the one-time set-password link just made, shown once so the
	// admin can pass it on when e-mail is not set up; "" with LinkFor set
	// when it went by e-mail only (an admin's, or a reset: see
	// users.ResetLink).
	Link, LinkFor, LinkUserID string
	Invite                    users.InviteInput // the form's values after an error
}

// handleUsers handles "GET /console/users": the organization's people.
func (c *console) handleUsers(w http.ResponseWriter, r *http.Request) error {
	return c.renderUsers(w, r, "", nil)
}

func (c *console) renderUsers(w http.ResponseWriter, r *http.Request, link string, linkFor *kyc.User) error {
	sess := sessionFrom(r)
	list, err := c.store.FindUsers(r.Context(), sess.User.OrganizationID)
	if err != nil {
		return err
	}
	req, err := c.store.RequireTOTP(r.Context(), sess.User.OrganizationID)
	if err != nil {
		return err
	}
	d := usersPage{Users: list, Roles: kyc.Roles, RequireTOTP: req, Link: link}
	if linkFor != nil {
		d.LinkFor, d.LinkUserID = linkFor.Name, linkFor.ID
	}
	if formError(r) != nil {
		d.Invite = users.InviteInput{Email: r.PostFormValue("email"), Name: r.PostFormValue("name"), Role: kyc.Role(r.PostFormValue("role"))}
	}
	return c.render(w, r, http.StatusOK, "users.html", &page{Title: "Users", Section: "users", Data: d})
}

func actor(r *http.Request) users.Actor { return users.UserActor(sessionFrom(r).User) }

// handleUserInvite handles "POST /console/users": invite a new user, who
// gets a one-time set-password link by e-mail (shown here too, once,
// unless the new user is an admin).
func (c *console) handleUserInvite(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	in := users.InviteInput{Email: r.PostFormValue("email"), Name: r.PostFormValue("name"), Role: kyc.Role(r.PostFormValue("role"))}
	var link string
	var u *kyc.User
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		u, link, err = c.users.Invite(tx, sess.User.OrganizationID, in, actor(r))
		return err
	})
	if err != nil {
		return err
	}
	return c.renderUsers(w, r, link, u)
}

// handleUserUpdate handles "POST /console/users/{id}": change the role, or
// disable (sessions end at once) or enable the user.
func (c *console) handleUserUpdate(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	var in users.UpdateInput
	if v := r.PostFormValue("role"); v != "" {
		role := kyc.Role(v)
		in.Role = &role
	}
	switch r.PostFormValue("disabled") {
	case "true":
		t := true
		in.Disabled = &t
	case "false":
		f := false
		in.Disabled = &f
	}
	switch r.PostFormValue("senior") {
	case "true", "false":
		v := r.PostFormValue("senior") == "true"
		in.Senior = &v
	}
	err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := c.users.Update(tx, sess.User.OrganizationID, r.PathValue("id"), in, actor(r))
		return err
	})
	if err != nil {
		return err
	}
	return redirect(w, r, "/console/users", "user-updated")
}

// handleUserLink handles "POST /console/users/{id}/link": a new one-time
// set-password link, e-mailed; shown once only for a user who is not an
// admin and has no password yet (users.ResetLink).
func (c *console) handleUserLink(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	var link string
	var u *kyc.User
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		if u, err = tx.FindUser(sess.User.OrganizationID, r.PathValue("id")); err != nil {
			return err
		}
		link, err = c.users.ResetLink(tx, sess.User.OrganizationID, u.ID, actor(r))
		return err
	})
	if err != nil {
		return err
	}
	return c.renderUsers(w, r, link, u)
}
