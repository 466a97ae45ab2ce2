package console

import (
	"net/http"

	"kycd/kyc"
	"kycd/store"
	"kycd/users"
)

// setCookie sends the session cookie: HttpOnly (no script reads it),
// SameSite=Strict (no other site's page or link carries it), Secure except
// on a loopback development address, for the session's absolute lifetime
// at most (the server ends it earlier when idle).
func (c *console) setCookie(w http.ResponseWriter, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: c.cookie, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		Secure: c.secure, SameSite: http.SameSiteStrictMode})
}

func (c *console) clearCookie(w http.ResponseWriter) { c.setCookie(w, "", -1) }

type loginPage struct {
	Email, Next string
}

// handleLoginPage handles "GET /console/login".
func (c *console) handleLoginPage(w http.ResponseWriter, r *http.Request) error {
	if sessionFrom(r) != nil && formError(r) == nil {
		http.Redirect(w, r, "/console/", http.StatusSeeOther)
		return nil
	}
	d := loginPage{Next: safeNext(r.FormValue("next")), Email: r.PostFormValue("email")}
	return c.render(w, r, http.StatusOK, "login.html", &page{Title: "Sign in", Session: nil, Data: d})
}

// handleLogin handles "POST /console/login": the password step.
func (c *console) handleLogin(w http.ResponseWriter, r *http.Request) error {
	in, err := c.users.Login(r.Context(), r.PostFormValue("email"), r.PostFormValue("password"), c.clientIP(r), r.UserAgent())
	if err != nil {
		return err
	}
	// The browser's previous session, if any, ends: a sign-in always
	// starts a new session id.
	if old, err := c.session(r); err == nil && old != nil {
		if err := c.store.InTx(r.Context(), func(tx *store.Tx) error { return tx.DeleteSession(old.IDHash) }); err != nil {
			return err
		}
	}
	maxAge := int(users.SessionAbsolute.Seconds())
	if in.Stage != store.StageFull {
		maxAge = int(users.SecondFactorTime.Seconds())
	}
	c.setCookie(w, in.Token, maxAge)
	switch in.Stage {
	case store.StageTOTP:
		return redirect(w, r, "/console/login/code?next="+urlEscape(safeNext(r.PostFormValue("next"))), "")
	case store.StageEnrol:
		return redirect(w, r, "/console/account", "")
	}
	return redirect(w, r, safeNext(r.PostFormValue("next")), "")
}

// handleCodePage handles "GET /console/login/code": the second factor.
func (c *console) handleCodePage(w http.ResponseWriter, r *http.Request) error {
	return c.render(w, r, http.StatusOK, "code.html", &page{Title: "Two-step sign-in", Session: nil,
		Data: loginPage{Next: safeNext(r.FormValue("next"))}})
}

// handleCode handles "POST /console/login/code".
func (c *console) handleCode(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	token, err := c.users.SecondFactor(r.Context(), sess, r.PostFormValue("code"), c.clientIP(r), r.UserAgent())
	if err != nil {
		return err
	}
	c.setCookie(w, token, int(users.SessionAbsolute.Seconds()))
	return redirect(w, r, safeNext(r.PostFormValue("next")), "")
}

// handleLogout handles "POST /console/logout".
func (c *console) handleLogout(w http.ResponseWriter, r *http.Request) error {
	if err := c.users.Logout(r.Context(), sessionFrom(r)); err != nil {
		return err
	}
	c.clearCookie(w)
	return redirect(w, r, "/console/login", "signed-out")
}

type setPasswordPage struct {
	Token string
	User  *kyc.User
}

// handleSetPasswordPage handles "GET /console/set-password?token=…", the
// one-time link of an invitation or a reset.
func (c *console) handleSetPasswordPage(w http.ResponseWriter, r *http.Request) error {
	token := r.FormValue("token")
	u, err := c.users.TokenUser(r.Context(), token)
	if err != nil {
		return err
	}
	return c.render(w, r, http.StatusOK, "set_password.html", &page{Title: "Set your password", Session: nil,
		Data: setPasswordPage{Token: token, User: u}})
}

// handleSetPassword handles "POST /console/set-password".
func (c *console) handleSetPassword(w http.ResponseWriter, r *http.Request) error {
	if _, err := c.users.SetPassword(r.Context(), r.PostFormValue("token"), r.PostFormValue("password"), r.PostFormValue("confirm")); err != nil {
		return err
	}
	// Any session this browser had belonged to someone else or is over.
	c.clearCookie(w)
	return redirect(w, r, "/console/login", "password-set")
}
