package console

import (
	"net/http"
	"net/url"

	"kycd/users"
)

type accountPage struct {
	Enrolment *users.Enrolment // the set-up of a second factor, when not on
	MustEnrol bool             // the organization requires it before anything else
}

// handleAccount handles "GET /console/account": the user's password and
// second factor. A session that must set up a second factor lands here.
func (c *console) handleAccount(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	d := accountPage{MustEnrol: sess.Stage != "full"}
	if !sess.User.TOTPEnabled {
		var err error
		// After a wrong code, the same secret again: the app already has it.
		if secret := r.PostFormValue("secret"); secret != "" {
			d.Enrolment, err = c.users.EnrolmentFor(sess.User, secret)
		} else {
			d.Enrolment, err = c.users.NewEnrolment(sess.User)
		}
		if err != nil {
			return err
		}
	}
	return c.render(w, r, http.StatusOK, "account.html", &page{Title: "Your account", Section: "account", Data: d})
}

// handleAccountPassword handles "POST /console/account/password".
func (c *console) handleAccountPassword(w http.ResponseWriter, r *http.Request) error {
	if err := c.users.ChangePassword(r.Context(), sessionFrom(r), r.PostFormValue("current"), r.PostFormValue("password"),
		r.PostFormValue("confirm")); err != nil {
		return err
	}
	return redirect(w, r, "/console/account", "password")
}

// handleTOTPEnable handles "POST /console/account/totp": the code that
// proves the app holds the new secret.
func (c *console) handleTOTPEnable(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	token, err := c.users.EnableTOTP(r.Context(), sess, r.PostFormValue("secret"), r.PostFormValue("code"), c.clientIP(r), r.UserAgent())
	if err != nil {
		return err
	}
	if token != "" {
		c.setCookie(w, token, int(users.SessionAbsolute.Seconds()))
		return redirect(w, r, "/console/", "")
	}
	return redirect(w, r, "/console/account", "totp-on")
}

// handleTOTPDisable handles "POST /console/account/totp/disable".
func (c *console) handleTOTPDisable(w http.ResponseWriter, r *http.Request) error {
	if err := c.users.DisableTOTP(r.Context(), sessionFrom(r), r.PostFormValue("code")); err != nil {
		return err
	}
	return redirect(w, r, "/console/account", "totp-off")
}

func urlEscape(s string) string { return url.QueryEscape(s) }
