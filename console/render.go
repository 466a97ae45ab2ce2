package console

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"net/url"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"kycd/decision"
	"kycd/kyc"
	"kycd/store"
	"kycd/webasset"
)

//go:embed templates/*.html
var templateFiles embed.FS

// mustParsePages parses every page once, each with the shared layout and
// partials (common_*.html) as its own set, so that every page can define
// "content". A parse error is a build mistake and panics at start-up.
func mustParsePages(a *webasset.Set) map[string]*template.Template {
	funcs := template.FuncMap{
		"asset":      a.URL,
		"time":       fmtTime,
		"timePtr":    fmtTimePtr,
		"ago":        ago,
		"score":      func(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) },
		"scorePtr":   scorePtr,
		"pct":        func(f float64) string { return strconv.Itoa(int(math.Round(f * 100))) },
		"human":      human,
		"str":        deref,
		"join":       strings.Join,
		"can":        func(s *store.Session, p kyc.Permission) bool { return s != nil && s.User.Can(p) },
		"perm":       permByName,
		"query":      withQuery,
		"add":        func(a, b int) int { return a + b },
		"sub":        func(a, b int) int { return a - b },
		"hasKind":    func(ks []string, k string) bool { return slices.Contains(ks, k) },
		"fieldErr":   fieldError,
		"val":        val,
		"dict":       dict,
		"list":       func(xs ...string) []string { return xs },
		"agoTime":    func(now, t time.Time) string { return ago(now, &t) },
		"thousands":  thousands,
		"size":       size,
		"prefix":     func(s string, n int) string { return s[:min(n, len(s))] },
		"codeLabel":  decision.CodeLabel,
		"risk":       riskText,
		"due":        dueText,
		"duration":   durationText,
		"percent":    percent,
		"bar":        barWidth,
		"maxRedo":    func() int { return kyc.MaxResubmissions },
		"codeCounts": codeCounts,
	}
	common, err := fs.Glob(templateFiles, "templates/common_*.html")
	if err != nil || len(common) == 0 {
		panic(fmt.Sprintf("console: no layout templates: %v", err))
	}
	all, err := fs.Glob(templateFiles, "templates/*.html")
	if err != nil {
		panic(err)
	}
	pages := map[string]*template.Template{}
	for _, p := range all {
		name := path.Base(p)
		if strings.HasPrefix(name, "common_") {
			continue
		}
		t := template.New(name).Funcs(funcs)
		pages[name] = template.Must(t.ParseFS(templateFiles, append(common, p)...))
	}
	return pages
}

// page is what every template gets: the layout's parts and the screen's
// own data.
type page struct {
	Title   string
	Session *store.Session
	OrgName string
	Env     kyc.Environment // "" for pages outside the environments
	Section string          // nav item: queue, alerts, applicants, users, account
	Path    string          // this page's path, for the environment switch
	Notice  string          // a confirmation after a redirect
	Error   *kyc.Error      // the error a form came back with
	// Refresh reloads the page every 2 s without JavaScript (a running
	// import); with it, console.js polls instead.
	Refresh bool
	Data    any
}

// Sandbox reports whether the page shows sandbox data (the banner).
func (p *page) Sandbox() bool { return p.Env == kyc.Sandbox }

// SwitchURL is this screen in the other environment (its list page: a
// resource of one environment does not exist in the other).
func (p *page) SwitchURL(to kyc.Environment) string {
	sec := p.Section
	if sec != "queue" && sec != "alerts" && sec != "aml-cases" && sec != "aml-batches" && sec != "senior-queue" && sec != "applicants" && sec != "webhooks" && sec != "keys" && sec != "dashboard" {
		sec = "queue"
	}
	return "/console/" + string(to) + "/" + sec
}

// notices are the confirmations a redirect may ask for (by code, so that
// no text comes from the URL).
var notices = map[string]string{
	"claimed":               "You have claimed this case for 30 minutes.",
	"assigned":              "The case is assigned.",
	"unassigned":            "The case is no longer assigned to anyone.",
	"sla-saved":             "The review due times are saved.",
	"in":                    "You are in: cases are assigned to you in turn when your organization assigns so.",
	"out":                   "You are out: no case is assigned to you in turn until you are in again.",
	"round-robin-on":        "New cases are now assigned in turn to the reviewers who are in.",
	"round-robin-off":       "New cases are no longer assigned in turn.",
	"released":              "The claim is released.",
	"decided":               "Your decision is recorded.",
	"first":                 "Your decision is recorded. Four-eyes review: a second, different reviewer must confirm it.",
	"match":                 "Your decision on the match is recorded.",
	"suppression":           "The suppression is lifted: later screenings of this person show the match for review again.",
	"password":              "Your password is changed. Your other sessions have ended.",
	"password-set":          "Your password is set. Sign in with it now.",
	"totp-on":               "Two-step sign-in is on. Next time you sign in, you will need a code from your app.",
	"totp-off":              "Two-step sign-in is off.",
	"user-updated":          "The user is updated.",
	"require-on":            "Every user must now use two-step sign-in. Users without it set it up at their next sign-in.",
	"require-off":           "Two-step sign-in is now optional.",
	"signed-out":            "You are signed out.",
	"session-ended":         "Your session ended. Please sign in again.",
	"invite-sent":           "The invitation is sent.",
	"link-sent":             "A new set-password link is sent.",
	"resubmission":          "The applicant has been sent a link to redo that step. The case returns to the queue when they send it, or when the link expires.",
	"resubmission-no-email": "The applicant has no e-mail address, so kycd sent no link: your integration must give them the request's new portalUrl. The case returns to the queue when they send the step, or when the link expires.",
	"match-case":            "Your decision on the match is recorded. A confirmed match is investigated in an AML case, linked on this page.",
	"aml-case":              "The AML case is updated.",
	"sar":                   "The suspicious-activity report is recorded.",
	"batch":                 "The batch is uploaded: its subjects are being screened.",
	"escalated":             "The case is escalated: it has left the review queue and waits in the senior queue.",
	"deescalated":           "The case is back in the review queue.",
	"tagged":                "The tag is added.",
	"untagged":              "The tag is removed.",
	"commented":             "Your comment is added.",
	"mentioned":             "Your comment is added. The colleagues you mentioned are e-mailed a link to this case.",
	"code-added":            "The reason code is added. Reviewers can choose it now.",
	"code-removed":          "The reason code is removed. Decisions that carry it keep it.",

	"endpoint-saved":    "The endpoint is saved.",
	"endpoint-enabled":  "The endpoint is enabled: deliveries resume.",
	"endpoint-disabled": "The endpoint is disabled: nothing is sent to it until you enable it.",
	"endpoint-deleted":  "The endpoint is deleted. Its deliveries stay in the log.",
	"test-sent":         "A svc.webhook.test event is queued for delivery now.",
	"replayed":          "The delivery is queued for one new attempt now.",
	"batch-replayed":    "The selected deliveries are queued for one new attempt each.",
	"key-revoked":       "The key is revoked: requests with it now get 401.",

	"branding-saved":     "The branding is saved. The portal and new e-mails show it now.",
	"branding-saved-svg": "The branding is saved. Parts of the SVG logo that may not be in a logo (scripts, links, external references) were removed.",
	"contact-saved":      "The contact e-mail is saved. Notices such as a disabled webhook endpoint go there.",
	"screening-saved":    "The screening settings are saved. They apply to new AML checks; monitored checks keep the threshold they were created with.",
	"four-eyes-on":       "Four-eyes review is on: live manual decisions need two different reviewers.",
	"four-eyes-off":      "Four-eyes review is off: one reviewer decides.",
	"reports-full":       "Compliance reports print personal data in full.",
	"reports-masked":     "Compliance reports mask personal data: document numbers show their last four characters; the MRZ and document images are left out.",
	"policy-saved":       "The decision policy is saved. Requests submitted from now on are decided with it.",
	"policy-unchanged":   "That is already the policy in force: nothing was changed.",
	"update-queued":      "A list update is queued to run now. Its outcome shows here when it ends (reload the page).",

	"erased":            "The applicant is erased. The receipt below is kept; integrators get svc.applicant.erased.",
	"erasure-scheduled": "Retention still requires this applicant's data: the erasure is recorded and runs on the date shown below.",
	"hold-set":          "The legal hold is set: nothing about this applicant is erased until an admin lifts it.",
	"hold-lifted":       "The legal hold is lifted. A scheduled erasure that fell due meanwhile runs with the next daily retention run.",
	"retention-saved":   "The retention periods are saved. The daily retention run erases what they no longer allow to keep.",
}

// render writes a page: executed into memory first, so that a template
// failure becomes the error page instead of half a page.
func (c *console) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) error {
	if p.Session == nil {
		p.Session = sessionFrom(r)
	}
	if p.Env == "" {
		p.Env = env(r)
	}
	if p.Path == "" {
		p.Path = r.URL.Path
	}
	if p.Error == nil {
		p.Error = formError(r)
	}
	if p.Notice == "" {
		p.Notice = notices[r.URL.Query().Get("notice")]
	}
	if p.Session != nil && p.OrgName == "" {
		if o, err := c.store.FindOrganization(r.Context(), p.Session.User.OrganizationID); err == nil {
			p.OrgName = o.Name
		}
	}
	t, ok := c.pages[name]
	if !ok {
		return fmt.Errorf("console: no page %s", name)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if _, err := w.Write(buf.Bytes()); err != nil {
		c.log.DebugContext(r.Context(), "console write page", "page", name, "err", err)
	}
	return nil
}

// The console's own errors.
var (
	errNoPage      = &kyc.Error{Code: kyc.ENotFound, Message: "There is no page at this address."}
	errCrossOrigin = &kyc.Error{Code: kyc.EForbidden, Reason: "cross_origin", Message: "This form came from another website and was refused."}
)

// statusOf maps an error's code to the page's status.
func statusOf(e *kyc.Error) int {
	if e.Reason == "invalid_credentials" || e.Reason == "invalid_code" {
		return http.StatusUnauthorized // a wrong password or code, not a missing permission
	}
	switch e.Code {
	case kyc.EValidation, kyc.EInvalidTransition:
		return http.StatusBadRequest
	case kyc.EForbidden, kyc.EWrongEnvironment:
		return http.StatusForbidden
	case kyc.ENotFound:
		return http.StatusNotFound
	case kyc.EConflict:
		return http.StatusConflict
	case kyc.EUnprocessable:
		return http.StatusUnprocessableEntity
	case kyc.ERateLimited:
		return http.StatusTooManyRequests
	case kyc.EUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// renderError shows the error page. An unexpected error is logged and
// shown as a generic failure: its text was not written for people.
func (c *console) renderError(w http.ResponseWriter, r *http.Request, sess *store.Session, err error) {
	var ke *kyc.Error
	if !errors.As(err, &ke) || ke.Code == kyc.EInternal {
		c.log.ErrorContext(r.Context(), "console request failed", "route", r.Pattern, "err", err)
		ke = &kyc.Error{Code: kyc.EInternal, Message: "Something went wrong on our side. Please try again in a moment."}
	}
	if ke.Code == kyc.EWrongEnvironment {
		// Never show one environment's record under the other's banner:
		// say where it is instead.
		ke = &kyc.Error{Code: ke.Code, Message: "This record is in the other environment. Switch environment at the top to see it."}
	}
	p := &page{Title: "Error", Session: sess, Error: ke}
	if sess == nil {
		p.Session = nil
	}
	if rerr := c.render(w, r, statusOf(ke), "error.html", p); rerr != nil {
		c.log.ErrorContext(r.Context(), "console render error page", "err", rerr)
		http.Error(w, "Something went wrong. Please try again in a moment.", http.StatusInternalServerError)
	}
}

// redirect answers a successful form with 303 to target and a notice.
func redirect(w http.ResponseWriter, r *http.Request, target, notice string) error {
	frag := ""
	if i := strings.IndexByte(target, '#'); i >= 0 {
		target, frag = target[:i], target[i:]
	}
	defer func() { http.Redirect(w, r, target+frag, http.StatusSeeOther) }()
	if notice != "" {
		sep := "?"
		if strings.Contains(target, "?") {
			sep = "&"
		}
		target += sep + "notice=" + url.QueryEscape(notice)
	}
	return nil
}

func fmtTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

func fmtTimePtr(t *time.Time) string {
	if t == nil {
		return "—"
	}
	return fmtTime(*t)
}

// ago says how long ago t was, in the largest sensible unit.
func ago(now time.Time, t *time.Time) string {
	if t == nil {
		return "—"
	}
	d := now.Sub(*t)
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return plural(int(d.Minutes()), "minute")
	case d < 48*time.Hour:
		return plural(int(d.Hours()), "hour")
	}
	return plural(int(d.Hours()/24), "day")
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}

func scorePtr(f *float64) string {
	if f == nil {
		return "—"
	}
	return strconv.FormatFloat(*f, 'f', 2, 64)
}

// human turns snake_case codes into words: awaiting_review → awaiting review.
func human(s any) string { return strings.ReplaceAll(fmt.Sprint(s), "_", " ") }

// val dereferences a pointer (a *RiskLevel, say) for display; nil is "".
func val(v any) any {
	r := reflect.ValueOf(v)
	if r.Kind() == reflect.Pointer {
		if r.IsNil() {
			return ""
		}
		return r.Elem().Interface()
	}
	return v
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func permByName(name string) kyc.Permission {
	return map[string]kyc.Permission{"read": kyc.PermRead, "personal": kyc.PermPersonalData, "decide": kyc.PermDecide, "admin": kyc.PermAdmin,
		"installation": kyc.PermInstallation, "senior": kyc.PermSenior}[name]
}

// withQuery returns base with one query parameter replaced.
func withQuery(base url.Values, key, value string) string {
	q := url.Values{}
	for k, v := range base {
		q[k] = v
	}
	if value == "" {
		q.Del(key)
	} else {
		q.Set(key, value)
	}
	return "?" + q.Encode()
}

// fieldError is the message of an error's detail for field, or "".
func fieldError(e *kyc.Error, field string) string {
	if e == nil {
		return ""
	}
	for _, d := range e.Details {
		if d.Field == field {
			return d.Message
		}
	}
	return ""
}

// dict builds a map for a partial template's arguments: key, value, ….
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, fmt.Errorf("dict: odd number of arguments")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}
