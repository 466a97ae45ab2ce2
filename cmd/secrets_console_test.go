package cmd_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
)

// consoleSecrets walks the back office's secrets through a running serve,
// as a new admin does: the one-time set-password link printed by
// `kycd users create`, the password, the session cookies before and after
// the second factor, and the TOTP secret. It returns them for the
// at-rest scan of TestNoSecretAtRest.
func consoleSecrets(t *testing.T, db, addr, org string) map[string]string {
	t.Helper()
	out := map[string]string{}
	code, link, errOut := run(t, "users", "create", "--db", db, "--org", org, "--email", "ada@acme.example",
		"--name", "Ada Admin", "--role", "admin", "--base-url", "http://"+addr)
	if code != 0 {
		t.Fatalf("users create: %s", errOut)
	}
	u, err := url.Parse(strings.TrimSpace(link))
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("users create printed %q", link)
	}
	out["set-password token"] = u.Query().Get("token")
	const password = "plover quartz meadow 7391 A"
	out["console password"] = password

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path, cookie string, form url.Values) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+addr+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST %s: %d", path, res.StatusCode)
		}
		return res
	}
	session := func(res *http.Response) string {
		t.Helper()
		for _, c := range res.Cookies() {
			if strings.HasSuffix(c.Name, "kycd_console") && c.Value != "" {
				return c.Name + "=" + c.Value
			}
		}
		t.Fatalf("no session cookie in %v", res.Header["Set-Cookie"])
		return ""
	}
	post("/console/set-password", "", url.Values{"token": {out["set-password token"]}, "password": {password}, "confirm": {password}})
	first := session(post("/console/login", "", url.Values{"email": {"ada@acme.example"}, "password": {password}}))
	out["console session"] = first[strings.IndexByte(first, '=')+1:]

	key, err := totp.Generate(totp.GenerateOpts{Issuer: "kycd", AccountName: "ada@acme.example"})
	if err != nil {
		t.Fatal(err)
	}
	otp, err := totp.GenerateCode(key.Secret(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	out["TOTP secret"] = key.Secret()
	res := post("/console/account/totp", first, url.Values{"secret": {key.Secret()}, "code": {otp}})
	for _, c := range res.Cookies() {
		if strings.HasSuffix(c.Name, "kycd_console") && c.Value != "" {
			out["console session after the second factor"] = c.Value
		}
	}
	return out
}
