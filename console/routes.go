package console

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

// access is who may use a route.
type access int

const (
	// public: anyone (sign-in, set-password, static files).
	public access = iota
	// secondFactor: a session whose password was right and whose second
	// factor is due.
	secondFactor
	// enrolling: a session that must set up a second factor before
	// anything else (the organization requires one). Full sessions may use
	// these routes too.
	enrolling
	// signedIn: a full session whose role has the route's permission.
	signedIn
)

// route is one line of the table: the pattern, who may use it, the
// permission a signed-in user's role needs, and the handler.
type route struct {
	pattern string
	access  access
	perm    kyc.Permission
	h       handlerFunc
	// back re-renders the page a form came from, with the error, when a
	// POST fails with something the user can fix (nil: the error page).
	back handlerFunc
}

// register is the console's entire route table. The authorization test
// walks it: every route × every role.
func (c *console) register() {
	c.routes = c.table()
	c.mount()
}

// table is the route table.
func (c *console) table() []route {
	return []route{
		{pattern: "GET /console/assets/{hash}/{name}", access: public, h: c.handleAsset},
		{pattern: "GET /console/{$}", access: public, h: c.handleHome},
		// kycd's own front page, served by the console for its layout and
		// headers (server mounts this handler at "GET /{$}" too).
		{pattern: "GET /{$}", access: public, h: c.handleRoot},
		{pattern: "GET /console/login", access: public, h: c.handleLoginPage},
		{pattern: "POST /console/login", access: public, h: c.handleLogin, back: c.handleLoginPage},
		{pattern: "GET /console/login/code", access: secondFactor, h: c.handleCodePage},
		{pattern: "POST /console/login/code", access: secondFactor, h: c.handleCode, back: c.handleCodePage},
		{pattern: "GET /console/set-password", access: public, h: c.handleSetPasswordPage},
		{pattern: "POST /console/set-password", access: public, h: c.handleSetPassword, back: c.handleSetPasswordPage},
		{pattern: "POST /console/logout", access: enrolling, h: c.handleLogout},

		{pattern: "GET /console/account", access: enrolling, h: c.handleAccount},
		{pattern: "POST /console/account/password", access: signedIn, perm: kyc.PermRead, h: c.handleAccountPassword, back: c.handleAccount},
		{pattern: "POST /console/account/totp", access: enrolling, h: c.handleTOTPEnable, back: c.handleAccount},
		// A reviewer's own "in / out" for round-robin assignment.
		{pattern: "POST /console/account/availability", access: signedIn, perm: kyc.PermDecide, h: c.handleAvailability},
		{pattern: "POST /console/account/totp/disable", access: signedIn, perm: kyc.PermRead, h: c.handleTOTPDisable, back: c.handleAccount},

		{pattern: "GET /console/users", access: signedIn, perm: kyc.PermAdmin, h: c.handleUsers},
		{pattern: "POST /console/users", access: signedIn, perm: kyc.PermAdmin, h: c.handleUserInvite, back: c.handleUsers},
		{pattern: "POST /console/users/{id}", access: signedIn, perm: kyc.PermAdmin, h: c.handleUserUpdate, back: c.handleUsers},
		{pattern: "POST /console/users/{id}/link", access: signedIn, perm: kyc.PermAdmin, h: c.handleUserLink, back: c.handleUsers},

		{pattern: "GET /console/{env}/queue", access: signedIn, perm: kyc.PermRead, h: c.handleQueue},
		{pattern: "GET /console/{env}/cases/{id}", access: signedIn, perm: kyc.PermRead, h: c.handleCase},
		{pattern: "POST /console/{env}/cases/{id}/claim", access: signedIn, perm: kyc.PermDecide, h: c.handleClaim, back: c.handleCase},
		{pattern: "POST /console/{env}/cases/{id}/release", access: signedIn, perm: kyc.PermDecide, h: c.handleRelease, back: c.handleCase},
		{pattern: "POST /console/{env}/cases/{id}/assign", access: signedIn, perm: kyc.PermDecide, h: c.handleAssign, back: c.handleCase},
		{pattern: "POST /console/{env}/cases/{id}/tags", access: signedIn, perm: kyc.PermDecide, h: c.handleTagAdd, back: c.handleCase},
		{pattern: "POST /console/{env}/cases/{id}/tags/remove", access: signedIn, perm: kyc.PermDecide, h: c.handleTagRemove, back: c.handleCase},
		{pattern: "POST /console/{env}/cases/{id}/comments", access: signedIn, perm: kyc.PermDecide, h: c.handleComment, back: c.handleCase},
		// Escalation: a reviewer hands a case to a senior; seniors
		// (admins, and reviewers with the senior flag) work the senior
		// queue and return cases.
		{pattern: "POST /console/{env}/cases/{id}/escalate", access: signedIn, perm: kyc.PermDecide, h: c.handleEscalate, back: c.handleCase},
		{pattern: "POST /console/{env}/cases/{id}/deescalate", access: signedIn, perm: kyc.PermSenior, h: c.handleDeescalate, back: c.handleCase},
		{pattern: "GET /console/{env}/senior-queue", access: signedIn, perm: kyc.PermSenior, h: c.handleSeniorQueue},
		{pattern: "GET /console/{env}/verifications", access: signedIn, perm: kyc.PermRead, h: c.handleVerifications},
		// Counts only: every role; per-reviewer counts of others for admins.
		{pattern: "GET /console/{env}/dashboard", access: signedIn, perm: kyc.PermRead, h: c.handleDashboard},
		// Within the role's rights: contact details are columns only for
		// roles with personal data.
		{pattern: "GET /console/{env}/verifications/export.csv", access: signedIn, perm: kyc.PermRead, h: c.handleVerificationsExport},
		{pattern: "POST /console/{env}/cases/{id}/decision", access: signedIn, perm: kyc.PermDecide, h: c.handleDecision, back: c.handleCase},
		{pattern: "POST /console/{env}/cases/{id}/resubmission", access: signedIn, perm: kyc.PermDecide, h: c.handleResubmission, back: c.handleCase},
		{pattern: "GET /console/{env}/cases/{id}/images/{capture}", access: signedIn, perm: kyc.PermPersonalData, h: c.handleImage},
		{pattern: "GET /console/{env}/cases/{id}/faces/{side}", access: signedIn, perm: kyc.PermPersonalData, h: c.handleFaceCrop},
		{pattern: "GET /console/{env}/cases/{id}/report.pdf", access: signedIn, perm: kyc.PermPersonalData, h: c.handleCaseReportPDF},
		{pattern: "GET /console/{env}/cases/{id}/report.json", access: signedIn, perm: kyc.PermPersonalData, h: c.handleCaseReportJSON},

		{pattern: "GET /console/{env}/alerts", access: signedIn, perm: kyc.PermRead, h: c.handleAlerts},
		{pattern: "GET /console/{env}/alerts/{id}", access: signedIn, perm: kyc.PermRead, h: c.handleAlert},
		{pattern: "POST /console/{env}/alerts/{id}/matches/{match}", access: signedIn, perm: kyc.PermDecide, h: c.handleMatchDecision, back: c.handleAlert},
		{pattern: "POST /console/{env}/alerts/{id}/suppressions/{sup}/lift", access: signedIn, perm: kyc.PermDecide, h: c.handleLiftSuppression, back: c.handleAlert},
		{pattern: "GET /console/{env}/alerts/{id}/report.pdf", access: signedIn, perm: kyc.PermPersonalData, h: c.handleAlertReportPDF},

		// AML cases: everyone reads them; those who decide work them;
		// the filed report's copy is personal data.
		{pattern: "GET /console/{env}/aml-cases", access: signedIn, perm: kyc.PermRead, h: c.handleAMLCases},
		{pattern: "GET /console/{env}/aml-cases/{id}", access: signedIn, perm: kyc.PermRead, h: c.handleAMLCase},
		{pattern: "POST /console/{env}/aml-cases/{id}", access: signedIn, perm: kyc.PermDecide, h: c.handleAMLCaseUpdate, back: c.handleAMLCase},
		{pattern: "POST /console/{env}/aml-cases/{id}/comments", access: signedIn, perm: kyc.PermDecide, h: c.handleAMLCaseComment, back: c.handleAMLCase},
		{pattern: "POST /console/{env}/aml-cases/{id}/sar", access: signedIn, perm: kyc.PermDecide, h: c.handleAMLCaseSAR, back: c.handleAMLCase},
		{pattern: "GET /console/{env}/aml-cases/{id}/sar/file", access: signedIn, perm: kyc.PermPersonalData, h: c.handleAMLCaseSARFile},

		// Batch screening: everyone sees the batches; uploading one
		// screens (and creates checks), which is deciding work. The
		// export leaves out dates of birth and countries for roles
		// without personal data.
		{pattern: "GET /console/{env}/aml-batches", access: signedIn, perm: kyc.PermRead, h: c.handleAMLBatches},
		{pattern: "POST /console/{env}/aml-batches", access: signedIn, perm: kyc.PermDecide, h: c.handleAMLBatchCreate, back: c.handleAMLBatches},
		{pattern: "GET /console/{env}/aml-batches/{id}", access: signedIn, perm: kyc.PermRead, h: c.handleAMLBatch},
		{pattern: "GET /console/{env}/aml-batches/{id}/export.csv", access: signedIn, perm: kyc.PermRead, h: c.handleAMLBatchExport},

		{pattern: "GET /console/{env}/applicants", access: signedIn, perm: kyc.PermRead, h: c.handleApplicants},
		{pattern: "GET /console/{env}/applicants/{id}", access: signedIn, perm: kyc.PermRead, h: c.handleApplicant},
		// The personal data lifecycle: admins only (lifecycle.go).
		{pattern: "GET /console/{env}/applicants/{id}/erase", access: signedIn, perm: kyc.PermAdmin, h: c.handleErasePage},
		{pattern: "POST /console/{env}/applicants/{id}/erase", access: signedIn, perm: kyc.PermAdmin, h: c.handleErase, back: c.handleErasePage},
		{pattern: "POST /console/{env}/applicants/{id}/legal-hold", access: signedIn, perm: kyc.PermAdmin, h: c.handleLegalHoldSet, back: c.handleApplicant},
		{pattern: "POST /console/{env}/applicants/{id}/legal-hold/lift", access: signedIn, perm: kyc.PermAdmin, h: c.handleLegalHoldLift, back: c.handleApplicant},
		{pattern: "GET /console/{env}/applicants/{id}/export.zip", access: signedIn, perm: kyc.PermAdmin, h: c.handleApplicantExport},

		// Part 2: usage, integrations, settings, audit.
		{pattern: "GET /console/usage", access: signedIn, perm: kyc.PermRead, h: c.handleUsage},

		{pattern: "GET /console/{env}/webhooks", access: signedIn, perm: kyc.PermAdmin, h: c.handleWebhooks},
		{pattern: "POST /console/{env}/webhooks", access: signedIn, perm: kyc.PermAdmin, h: c.handleWebhookCreate, back: c.handleWebhooks},
		{pattern: "GET /console/{env}/webhooks/{id}", access: signedIn, perm: kyc.PermAdmin, h: c.handleWebhook},
		{pattern: "POST /console/{env}/webhooks/{id}", access: signedIn, perm: kyc.PermAdmin, h: c.handleWebhookUpdate, back: c.handleWebhook},
		{pattern: "POST /console/{env}/webhooks/{id}/enabled", access: signedIn, perm: kyc.PermAdmin, h: c.handleWebhookEnabled, back: c.handleWebhook},
		{pattern: "POST /console/{env}/webhooks/{id}/rotate", access: signedIn, perm: kyc.PermAdmin, h: c.handleWebhookRotate, back: c.handleWebhook},
		{pattern: "POST /console/{env}/webhooks/{id}/test", access: signedIn, perm: kyc.PermAdmin, h: c.handleWebhookTest, back: c.handleWebhook},
		{pattern: "POST /console/{env}/webhooks/{id}/delete", access: signedIn, perm: kyc.PermAdmin, h: c.handleWebhookDelete, back: c.handleWebhook},
		{pattern: "POST /console/{env}/callback-secret/rotate", access: signedIn, perm: kyc.PermAdmin, h: c.handleCallbackRotate, back: c.handleWebhooks},
		{pattern: "GET /console/{env}/deliveries/{id}", access: signedIn, perm: kyc.PermAdmin, h: c.handleDelivery},
		{pattern: "POST /console/{env}/deliveries/{id}/replay", access: signedIn, perm: kyc.PermAdmin, h: c.handleDeliveryReplay, back: c.handleDelivery},
		{pattern: "POST /console/{env}/deliveries/replay", access: signedIn, perm: kyc.PermAdmin, h: c.handleDeliveryReplayBatch},
		{pattern: "GET /console/audit", access: signedIn, perm: kyc.PermPersonalData, h: c.handleAudit},
		{pattern: "GET /console/audit/export", access: signedIn, perm: kyc.PermPersonalData, h: c.handleAuditExport},
		{pattern: "POST /console/audit/verify", access: signedIn, perm: kyc.PermAdmin, h: c.handleAuditVerify, back: c.handleAudit},
		{pattern: "GET /console/settings", access: signedIn, perm: kyc.PermAdmin, h: c.handleSettings},
		{pattern: "POST /console/settings/branding", access: signedIn, perm: kyc.PermAdmin, h: c.handleBrandingSettings, back: c.handleSettings},
		{pattern: "POST /console/settings/contact", access: signedIn, perm: kyc.PermAdmin, h: c.handleContactSettings, back: c.handleSettings},
		{pattern: "POST /console/settings/screening", access: signedIn, perm: kyc.PermAdmin, h: c.handleScreeningSettings, back: c.handleSettings},
		{pattern: "POST /console/settings/review", access: signedIn, perm: kyc.PermAdmin, h: c.handleReviewSettings, back: c.handleSettings},
		{pattern: "POST /console/settings/sla", access: signedIn, perm: kyc.PermAdmin, h: c.handleSLASettings, back: c.handleSettings},
		{pattern: "POST /console/settings/round-robin", access: signedIn, perm: kyc.PermAdmin, h: c.handleRoundRobinSettings, back: c.handleSettings},
		{pattern: "POST /console/settings/reports", access: signedIn, perm: kyc.PermAdmin, h: c.handleReportSettings, back: c.handleSettings},
		{pattern: "POST /console/settings/retention", access: signedIn, perm: kyc.PermAdmin, h: c.handleRetentionSettings, back: c.handleSettings},
		{pattern: "POST /console/settings/require-totp", access: signedIn, perm: kyc.PermAdmin, h: c.handleRequireTOTP, back: c.handleSettings},
		{pattern: "POST /console/settings/reason-codes", access: signedIn, perm: kyc.PermAdmin, h: c.handleReasonCodeAdd, back: c.handleSettings},
		{pattern: "POST /console/settings/reason-codes/remove", access: signedIn, perm: kyc.PermAdmin, h: c.handleReasonCodeRemove, back: c.handleSettings},
		{pattern: "GET /console/settings/policy", access: signedIn, perm: kyc.PermAdmin, h: c.handlePolicy},
		{pattern: "POST /console/settings/policy/preview", access: signedIn, perm: kyc.PermAdmin, h: c.handlePolicyPreview, back: c.handlePolicy},
		{pattern: "POST /console/settings/policy", access: signedIn, perm: kyc.PermAdmin, h: c.handlePolicySave, back: c.handlePolicy},
		{pattern: "GET /console/{env}/keys", access: signedIn, perm: kyc.PermAdmin, h: c.handleKeys},
		{pattern: "POST /console/{env}/keys", access: signedIn, perm: kyc.PermAdmin, h: c.handleKeyCreate, back: c.handleKeys},
		{pattern: "POST /console/{env}/keys/{id}/revoke", access: signedIn, perm: kyc.PermAdmin, h: c.handleKeyRevoke, back: c.handleKeys},

		// The installation's watch lists: shared by every organization, so
		// installation admins only (kycd users installation-admin).
		{pattern: "GET /console/lists", access: signedIn, perm: kyc.PermInstallation, h: c.handleLists},
		{pattern: "POST /console/lists/imports", access: signedIn, perm: kyc.PermInstallation, h: c.handleListImport, back: c.handleLists},
		{pattern: "GET /console/lists/imports/{id}", access: signedIn, perm: kyc.PermInstallation, h: c.handleListImportPage},
		{pattern: "GET /console/lists/imports/{id}/progress.json", access: signedIn, perm: kyc.PermInstallation, h: c.handleListImportJSON},
		{pattern: "POST /console/lists/update", access: signedIn, perm: kyc.PermInstallation, h: c.handleListsUpdate, back: c.handleLists},
	}
}

// mount puts every route of the table on the mux, behind its guard.
func (c *console) mount() {
	// Forms are refused when the browser says they come from another
	// site (Sec-Fetch-Site, Origin), as the portal's are; SameSite=Strict
	// on the cookie already keeps it off such requests.
	csrf := http.NewCrossOriginProtection()
	csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.renderError(w, r, nil, errCrossOrigin)
	}))
	for _, rt := range c.routes {
		for _, p := range expand(rt.pattern) {
			h := c.guard(rt, p.env)
			if strings.HasPrefix(rt.pattern, "POST ") {
				h = csrf.Handler(h)
			}
			c.mux.Handle(p.pattern, h)
		}
	}
	c.mux.Handle("/console/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.renderError(w, r, c.optionalSession(r), errNoPage)
	}))
}

// envPattern is a route pattern for one environment.
type envPattern struct {
	pattern string
	env     kyc.Environment // "" for routes outside the environments
}

// expand writes a pattern's {env} as each environment: literal segments
// keep the environments' pages from overlapping the others (a wildcard
// first segment would overlap /console/users/{id} and the assets).
func expand(pattern string) []envPattern {
	if !strings.Contains(pattern, "{env}") {
		return []envPattern{{pattern: pattern}}
	}
	return []envPattern{
		{strings.Replace(pattern, "{env}", string(kyc.Live), 1), kyc.Live},
		{strings.Replace(pattern, "{env}", string(kyc.Sandbox), 1), kyc.Sandbox},
	}
}

// handlerFunc is a console handler; it returns its error for the adapter
// to show.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

type ctxKey int

const (
	sessionKey ctxKey = iota
	formErrorKey
	envKey
)

// sessionFrom is the request's session (nil on public routes without one).
func sessionFrom(r *http.Request) *store.Session {
	s, _ := r.Context().Value(sessionKey).(*store.Session)
	return s
}

// formError is the error a failed POST re-renders its page with.
func formError(r *http.Request) *kyc.Error {
	e, _ := r.Context().Value(formErrorKey).(*kyc.Error)
	return e
}

// guard checks the session, the stage and the role a route needs, and the
// environment in the path, then runs the handler and shows its error.
func (c *console) guard(rt route, e kyc.Environment) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var sess *store.Session
		if rt.access != public {
			var err error
			sess, err = c.session(r)
			if err != nil {
				c.fail(w, r, nil, rt, err)
				return
			}
			if sess == nil || !stageAllows(rt.access, sess.Stage) {
				c.toLogin(w, r, sess)
				return
			}
			if rt.access == signedIn && !sess.User.Can(rt.perm) {
				msg := "Your role (" + string(sess.User.Role) + ") does not allow this page or action."
				if rt.perm == kyc.PermSenior {
					msg = "Only senior reviewers and admins work escalated cases; an admin can make a reviewer a senior reviewer on the users page."
				}
				if rt.perm == kyc.PermInstallation {
					msg = "Only installation admins may change what every organization of this installation shares. " +
						"Whoever runs kycd on the server makes an admin one: kycd users installation-admin."
				}
				c.renderError(w, r, sess, &kyc.Error{Code: kyc.EForbidden, Reason: "role", Message: msg})
				return
			}
		} else {
			sess = c.optionalSession(r)
		}
		ctx := context.WithValue(r.Context(), sessionKey, sess)
		if sess != nil && sess.Stage == store.StageFull {
			// Operator actions the store audits (keys, endpoints) name the
			// user, as the API's name its key.
			ctx = store.WithActor(ctx, kyc.Principal{Type: kyc.ActorUser, ID: sess.User.ID})
		}
		r = r.WithContext(context.WithValue(ctx, envKey, e))
		if err := rt.h(w, r); err != nil {
			c.fail(w, r, sess, rt, err)
		}
	})
}

func stageAllows(a access, st store.SessionStage) bool {
	switch a {
	case secondFactor:
		return st == store.StageTOTP
	case enrolling:
		return st == store.StageEnrol || st == store.StageFull
	}
	return st == store.StageFull
}

// fail shows a handler's error: a POST's fixable error on the page the form
// came from, anything else on the error page.
func (c *console) fail(w http.ResponseWriter, r *http.Request, sess *store.Session, rt route, err error) {
	if r.Context().Err() != nil && errors.Is(err, context.Canceled) {
		return // the browser went away
	}
	var ke *kyc.Error
	if rt.back != nil && errors.As(err, &ke) && ke.Code != kyc.EInternal {
		r = r.WithContext(context.WithValue(r.Context(), formErrorKey, ke))
		r.Method = http.MethodGet
		if berr := rt.back(&statusWriter{ResponseWriter: w, status: statusOf(ke)}, r); berr != nil {
			c.renderError(w, r, sess, berr)
		}
		return
	}
	c.renderError(w, r, sess, err)
}

// statusWriter replaces the status of a re-rendered page with the
// error's.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(int) { w.ResponseWriter.WriteHeader(w.status) }

// session reads the cookie's session; nil when there is none or it ended.
func (c *console) session(r *http.Request) (*store.Session, error) {
	ck, err := r.Cookie(c.cookie)
	if err != nil {
		return nil, nil
	}
	sess, err := c.users.Session(r.Context(), ck.Value)
	if kyc.ErrorCode(err) == kyc.EForbidden {
		return nil, nil
	}
	return sess, err
}

// optionalSession is the full session of a public page's visitor, if any
// (the layout shows who is signed in).
func (c *console) optionalSession(r *http.Request) *store.Session {
	s, err := c.session(r)
	if err != nil || s == nil || s.Stage != store.StageFull {
		return nil
	}
	return s
}

// toLogin sends a visitor without the right session where they can get
// one: the code page, the second-factor set-up, or the sign-in page (which
// returns them here afterwards).
func (c *console) toLogin(w http.ResponseWriter, r *http.Request, sess *store.Session) {
	if sess != nil {
		switch sess.Stage {
		case store.StageTOTP:
			http.Redirect(w, r, "/console/login/code", http.StatusSeeOther)
			return
		case store.StageEnrol:
			http.Redirect(w, r, "/console/account", http.StatusSeeOther)
			return
		}
	}
	next := ""
	if r.Method == http.MethodGet {
		next = "?next=" + url.QueryEscape(r.URL.RequestURI())
	}
	http.Redirect(w, r, "/console/login"+next, http.StatusSeeOther)
}

// safeNext keeps a post-login redirect inside the console.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/console/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/console/"
	}
	return next
}

// env is the environment of the request's path ("" outside them).
func env(r *http.Request) kyc.Environment {
	e, _ := r.Context().Value(envKey).(kyc.Environment)
	return e
}

// handleHome handles "GET /console/": the live queue for a signed-in
// user, the sign-in page otherwise.
func (c *console) handleHome(w http.ResponseWriter, r *http.Request) error {
	if sess := sessionFrom(r); sess != nil {
		http.Redirect(w, r, "/console/live/queue", http.StatusSeeOther)
		return nil
	}
	http.Redirect(w, r, "/console/login", http.StatusSeeOther)
	return nil
}

// handleRoot handles "GET /": what this server is and where its parts
// are, for whoever opens its address in a browser (the API's 404 told
// them nothing).
func (c *console) handleRoot(w http.ResponseWriter, r *http.Request) error {
	return c.render(w, r, http.StatusOK, "root.html", &page{Title: "kycd", Data: rootPage{SwaggerUI: c.swaggerUI}})
}

type rootPage struct {
	SwaggerUI bool // serve --dev serves the Swagger UI
}

// Route describes one console route for the authorization test and the
// documentation: its method and path (with {env} for each environment),
// whether it is public, and the permission it needs.
type Route struct {
	Pattern string
	// Access: "public", "second-factor" (a session between password and
	// code), "enrolling" (any signed-in session, also one that must set
	// up a second factor first) or "signed-in".
	Access string
	Perm   kyc.Permission // for signed-in routes
}

// Routes lists the console's route table.
func Routes() []Route {
	table := (&console{}).table()
	out := make([]Route, 0, len(table))
	for _, r := range table {
		out = append(out, Route{Pattern: r.pattern, Access: [...]string{"public", "second-factor", "enrolling", "signed-in"}[r.access], Perm: r.perm})
	}
	return out
}
