package console_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"kycd/console"
	"kycd/internal/reviewdata"
	"kycd/kyc"
	"kycd/store"
)

// resources are real ids for a route's path parameters, per environment,
// so that every allowed request reaches its handler's real work.
type resources struct {
	caseID, captureID, checkID, matchID, applicantID string
	webhookID, deliveryID, keyID                     string
	listImportID                                     string
	amlCaseID, batchID                               string
}

func (s *reviewStack) resources(e kyc.Environment, last string) resources {
	s.t.Helper()
	req := s.awaiting(e, reviewdata.Person{FirstName: "Viktor", LastName: last, DOB: "1961-04-12", Country: "DE", DocNumber: "T22000129"})
	caps, err := s.st.FindCaptures(s.t.Context(), req.ID, "")
	if err != nil || len(caps) == 0 {
		s.t.Fatalf("captures: %v", err)
	}
	key := s.org.LiveKey
	if e == kyc.Sandbox {
		key = s.org.SandboxKey
	}
	body := map[kyc.Environment]map[string]any{kyc.Live: {"firstName": "Viktor", "lastName": "Petrenko"},
		kyc.Sandbox: {"firstName": "Sandbox", "lastName": "Everything"}}[e]
	c := s.api(key, "POST", "/v1/aml-checks", body, http.StatusCreated)
	m := c["results"].([]any)[0].(map[string]any)["matches"].([]any)[0].(map[string]any)
	// A confirmed match opens an AML case; its SAR carries a copy, so that
	// the download route has a file to serve.
	s.api(key, "POST", "/v1/aml-checks/"+c["id"].(string)+"/matches/"+m["id"].(string)+"/decision",
		map[string]any{"decision": "confirmed", "note": "The same person."}, http.StatusOK)
	cases, err := s.st.FindAMLCasesOfCheck(s.t.Context(), s.org.ID, e, c["id"].(string))
	if err != nil || len(cases) != 1 {
		s.t.Fatalf("AML case of %s: %v %d", c["id"], err, len(cases))
	}
	if err := s.st.InTx(s.t.Context(), func(tx *store.Tx) error {
		return tx.SetAMLCaseSAR(cases[0], &kyc.SARRecord{Reference: "FIU-1", FiledOn: "2026-01-02", ActorType: kyc.ActorUser, ActorID: "authz",
			File: &kyc.SARFile{Name: "sar.pdf", ContentType: "application/pdf"}}, []byte("%PDF-1.4 authz"))
	}); err != nil {
		s.t.Fatal(err)
	}
	batch := s.api(key, "POST", "/v1/aml-checks/batch", []map[string]any{{"firstName": "Anna", "lastName": "Example"}, {"firstName": "x"}}, http.StatusAccepted)
	ep := s.api(key, "POST", "/v1/webhook-endpoints", map[string]any{"url": "https://93.184.216.34/hook"}, http.StatusCreated)
	test := s.api(key, "POST", "/v1/webhook-endpoints/"+ep["id"].(string)+"/test", nil, http.StatusAccepted)
	var apiKey *kyc.APIKey
	if err := s.st.InTx(s.t.Context(), func(tx *store.Tx) (err error) {
		apiKey, _, err = tx.CreateAPIKey(store.NewAPIKeyParams{OrganizationID: s.org.ID, Environment: e, Name: "authz"})
		return err
	}); err != nil {
		s.t.Fatal(err)
	}
	return resources{caseID: req.ID, captureID: caps[0].ID, checkID: c["id"].(string), matchID: m["id"].(string), applicantID: req.ApplicantID,
		webhookID: ep["id"].(string), deliveryID: test["deliveryId"].(string), keyID: apiKey.ID, listImportID: s.finishedImport(e),
		amlCaseID: cases[0].ID, batchID: batch["id"].(string)}
}

// finishedImport records a console list import that failed, for the
// routes with an import id (one that ended, so that the upload route is
// not refused for a running one).
func (s *reviewStack) finishedImport(e kyc.Environment) string {
	s.t.Helper()
	li := &store.ListImport{Source: "authz-" + string(e), Kind: "sanctions", Format: "csv", Total: 1, Files: []store.ListImportFile{{Name: "x.csv", Size: 1}}}
	if err := s.st.InTx(s.t.Context(), func(tx *store.Tx) error { return tx.CreateListImport(li) }); err != nil {
		s.t.Fatal(err)
	}
	if err := s.st.FinishListImport(s.t.Context(), li.ID, store.ListImportFailed, "", "no entities", store.ListImportProgress{Phase: "done"}); err != nil {
		s.t.Fatal(err)
	}
	return li.ID
}

// path fills a route's pattern with ids.
func (r resources) path(pattern, userID string) string {
	p := pattern[strings.Index(pattern, " ")+1:]
	p = strings.NewReplacer("{id}", "ID", "{capture}", r.captureID, "{match}", r.matchID, "{hash}", "0", "{name}", "console.css", "{side}", "document", "{$}", "").Replace(p)
	switch {
	case strings.Contains(p, "/cases/"):
		p = strings.Replace(p, "ID", r.caseID, 1)
	case strings.Contains(p, "/aml-batches/"):
		p = strings.Replace(p, "ID", r.batchID, 1)
	case strings.Contains(p, "/aml-cases/"):
		p = strings.Replace(p, "ID", r.amlCaseID, 1)
	case strings.Contains(p, "/alerts/"):
		p = strings.Replace(p, "ID", r.checkID, 1)
	case strings.Contains(p, "/applicants/"):
		p = strings.Replace(p, "ID", r.applicantID, 1)
	case strings.Contains(p, "/users/"):
		p = strings.Replace(p, "ID", userID, 1)
	case strings.Contains(p, "/webhooks/"):
		p = strings.Replace(p, "ID", r.webhookID, 1)
	case strings.Contains(p, "/deliveries/"):
		p = strings.Replace(p, "ID", r.deliveryID, 1)
	case strings.Contains(p, "/keys/"):
		p = strings.Replace(p, "ID", r.keyID, 1)
	case strings.Contains(p, "/lists/imports/"):
		p = strings.Replace(p, "ID", r.listImportID, 1)
	}
	return p
}

// TestAuthorization walks every console route × every role, and an
// installation admin (no session, and a session still waiting for its
// second factor too): a route answers a user who has its permission with
// its page or its own validation (never 403, a redirect to sign-in or a
// 5xx), a user without it with 403, and a visitor without a session with
// a redirect to sign-in. An admin without the installation-admin flag is
// refused the watch lists; a reviewer without the senior flag is refused
// the senior queue, one with it is let in. A new route cannot be added without a
// permission this test checks.
func TestAuthorization(t *testing.T) {
	s := newReviewStack(t)
	res := map[kyc.Environment]resources{kyc.Live: s.resources(kyc.Live, "Petrenko"), kyc.Sandbox: s.resources(kyc.Sandbox, "Review")}
	users := map[string]*kyc.User{} // who each signed-in session is
	for _, r := range kyc.Roles {
		users[string(r)] = s.mustUser(string(r)+"@acme.example", "Test "+string(r), r).User
	}
	inst := s.mustInstallationAdmin("inst@acme.example", "Test Installation")
	users["installation-admin"] = inst.User
	// A reviewer with the senior flag: the senior queue and returning
	// escalated cases (kyc.PermSenior), nothing of an admin's.
	senior := s.mustUser("senior@acme.example", "Test Senior", kyc.RoleReviewer)
	yes := true
	if err := s.st.InTx(t.Context(), func(tx *store.Tx) (err error) {
		senior.User, err = tx.UpdateUser(s.org.ID, senior.User.ID, store.UserUpdate{Senior: &yes})
		return err
	}); err != nil || !senior.User.Senior {
		t.Fatalf("senior flag: %v", err)
	}
	users["senior-reviewer"] = senior.User
	target := s.mustUser("target@acme.example", "Target Person", kyc.RoleViewer)
	sessions := map[string]*browser{"anonymous": s.browser()}
	for who, u := range users {
		b := s.browser()
		b.login(&person{User: u, Password: passwordOf(u.Email)})
		sessions[who] = b
	}
	// A session whose second factor is due.
	half := s.mustUser("half@acme.example", "Half Signed", kyc.RoleAdmin)
	half.Secret = s.enableTOTP(half)
	hb := s.browser()
	if r := hb.post("/console/login", "email", half.User.Email, "password", half.Password); !strings.HasPrefix(r.header.Get("Location"), "/console/login/code") {
		t.Fatalf("second-factor session: %d %v", r.status, r.header)
	}
	sessions["second-factor"] = hb

	routes := console.Routes()
	if len(routes) < 30 {
		t.Fatalf("only %d routes", len(routes))
	}
	checked := 0
	for _, rt := range routes {
		if rt.Pattern == "POST /console/logout" {
			continue // ends the session; TestLogout covers it
		}
		envs := []kyc.Environment{""}
		if strings.Contains(rt.Pattern, "{env}") {
			envs = []kyc.Environment{kyc.Live, kyc.Sandbox}
		}
		for _, e := range envs {
			r := res[kyc.Live]
			pattern := rt.Pattern
			if e != "" {
				r, pattern = res[e], strings.Replace(rt.Pattern, "{env}", string(e), 1)
			}
			path := r.path(pattern, target.User.ID)
			method := pattern[:strings.Index(pattern, " ")]
			for who, b := range sessions {
				var pg *page
				if method == "GET" {
					pg = b.get(path)
				} else {
					pg = b.post(path)
				}
				checked++
				loc := pg.header.Get("Location")
				toLogin := pg.status == http.StatusSeeOther && strings.HasPrefix(loc, "/console/login")
				where := method + " " + path + " as " + who
				if pg.status >= 500 {
					t.Errorf("%s: %d %s", where, pg.status, pg.text())
					continue
				}
				switch rt.Access {
				case "public":
					if pg.status == http.StatusForbidden {
						t.Errorf("%s: public route answered 403", where)
					}
				case "second-factor":
					if (who == "second-factor") == toLogin && loc != "/console/login/code" {
						t.Errorf("%s: %d %s", where, pg.status, loc)
					}
				default:
					u := users[who]
					allowed := u != nil && (rt.Access == "enrolling" || u.Can(rt.Perm))
					switch {
					case who == "anonymous" && !(toLogin && strings.HasPrefix(loc, "/console/login")):
						t.Errorf("%s: %d %s, want a redirect to sign-in", where, pg.status, loc)
					case who == "second-factor" && loc != "/console/login/code":
						t.Errorf("%s: %d %s, want a redirect to the code page", where, pg.status, loc)
					case u != nil && allowed && (pg.status == http.StatusForbidden || toLogin):
						t.Errorf("%s: %d %s %s, want allowed", where, pg.status, loc, pg.text())
					case u != nil && !allowed && pg.status != http.StatusForbidden:
						t.Errorf("%s: %d, want 403 (needs %s)", where, pg.status, rt.Perm)
					}
					if rt.Perm == kyc.PermInstallation && who == string(kyc.RoleAdmin) &&
						(pg.status != http.StatusForbidden || !strings.Contains(pg.text(), "Only installation admins")) {
						t.Errorf("%s: an admin without the installation-admin flag got %d", where, pg.status)
					}
				}
			}
		}
	}
	t.Logf("%d route × session combinations checked", checked)
}

// enableTOTP turns on p's second factor through the service and returns
// the secret.
func (s *reviewStack) enableTOTP(p *person) string {
	s.t.Helper()
	in, err := s.users.Login(s.t.Context(), p.User.Email, p.Password, "192.0.2.1", "test")
	if err != nil {
		s.t.Fatal(err)
	}
	sess, err := s.users.Session(s.t.Context(), in.Token)
	if err != nil {
		s.t.Fatal(err)
	}
	enr, err := s.users.NewEnrolment(sess.User)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.users.EnableTOTP(s.t.Context(), sess, enr.Secret, codeAt(s.t, enr.Secret, s.clock.Now()), "192.0.2.1", "test"); err != nil {
		s.t.Fatal(err)
	}
	if err := s.st.InTx(s.t.Context(), func(tx *store.Tx) error { return tx.UseTOTPStep(p.User.ID, 0) }); err != nil {
		s.t.Fatal(err) // let the same 30 s step sign in once more in tests
	}
	return enr.Secret
}

func codeAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	code, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return code
}
