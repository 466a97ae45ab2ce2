package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kycd/kyc"
	"kycd/store"
)

const auditPageSize = 50

type auditPage struct {
	Rows          []auditView
	Query         url.Values
	Env           string
	Category      string // "", change or access
	Actor, Action string
	Resource      string
	From, To      string
	Installation  bool   // the installation's own rows are shown (installation admins)
	Next          string // the next page's query ("" on the last page)
	Verified      *store.AuditVerification
	Actors        map[string]string // user id → name
}

type auditView struct {
	store.AuditRow
	Link      string // the resource's console page ("" when it has none)
	ActorName string
	Category  string // change or access
	// Gap is the note for the rows between this one and the newer one
	// above it that the page does not show ("" when none are missing).
	Gap string
}

// readAuditFilter reads the page's filters: env, category, actor, action,
// resource, from/to (UTC datetime-local) and before (paging). An
// installation admin also sees the installation's own rows.
func readAuditFilter(u *kyc.User, q url.Values) (store.AuditFilter, auditPage, error) {
	d := auditPage{Query: q, Env: q.Get("env"), Category: q.Get("category"), Actor: strings.TrimSpace(q.Get("actor")),
		Action: strings.TrimSpace(q.Get("action")), Resource: strings.TrimSpace(q.Get("resource")), From: q.Get("from"), To: q.Get("to"),
		Installation: u.Can(kyc.PermInstallation)}
	f := store.AuditFilter{OrganizationID: u.OrganizationID, Environment: kyc.Environment(d.Env), Actor: d.Actor, Action: d.Action,
		Resource: d.Resource, Category: d.Category, Installation: d.Installation}
	var errs []kyc.FieldError
	if d.Env != "" && !f.Environment.Valid() {
		errs = append(errs, kyc.FieldError{Field: "env", Message: "must be live or sandbox"})
	}
	if d.Category != "" && d.Category != store.AuditChange && d.Category != store.AuditAccess {
		errs = append(errs, kyc.FieldError{Field: "category", Message: "must be change or access"})
	}
	for _, b := range []struct {
		name, v string
		t       *time.Time
	}{{"from", d.From, &f.From}, {"to", d.To, &f.To}} {
		if b.v == "" {
			continue
		}
		t, err := time.ParseInLocation("2006-01-02T15:04", b.v, time.UTC)
		if err != nil {
			errs = append(errs, kyc.FieldError{Field: b.name, Message: "must be a date and time"})
			continue
		}
		*b.t = t
	}
	if v := q.Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			errs = append(errs, kyc.FieldError{Field: "before", Message: "must be a row number"})
		}
		f.BeforeID = n
	}
	for _, v := range []string{d.Actor, d.Action, d.Resource} {
		if len(v) > 200 {
			errs = append(errs, kyc.FieldError{Field: "filter", Message: "is too long"})
			break
		}
	}
	if len(errs) > 0 {
		return f, d, kyc.Invalid(errs...)
	}
	return f, d, nil
}

// handleAudit handles "GET /console/audit": the organization's rows of
// the audit chain, newest first, with filters; each row links to its
// resource.
func (c *console) handleAudit(w http.ResponseWriter, r *http.Request) error {
	return c.renderAudit(w, r, nil)
}

func (c *console) renderAudit(w http.ResponseWriter, r *http.Request, v *store.AuditVerification) error {
	sess := sessionFrom(r)
	f, d, err := readAuditFilter(sess.User, r.URL.Query())
	if err != nil {
		return err
	}
	rows, err := c.store.FindAuditRows(r.Context(), f, auditPageSize+1)
	if err != nil {
		return err
	}
	if len(rows) > auditPageSize {
		rows = rows[:auditPageSize]
		d.Next = withQuery(d.Query, "before", strconv.FormatInt(rows[len(rows)-1].ID, 10))
	}
	users, err := c.store.FindUsers(r.Context(), sess.User.OrganizationID)
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, u := range users {
		names[u.ID] = u.Name
	}
	// Row numbers are the installation's chain: a page without filters
	// says what it leaves out between two rows instead of skipping
	// numbers silently.
	filtered := d.Env != "" || d.Category != "" || d.Actor != "" || d.Action != "" || d.Resource != "" || d.From != "" || d.To != ""
	newer := f.BeforeID // the row above the first one, if this is a later page
	for _, row := range rows {
		av := auditView{AuditRow: row, Link: auditLink(row), Category: store.AuditCategory(row.Action)}
		if row.ActorID != nil {
			av.ActorName = names[*row.ActorID]
		}
		if !filtered && newer > 0 && newer-row.ID > 1 {
			if av.Gap, err = c.auditGap(r, row.ID, newer, d.Installation); err != nil {
				return err
			}
		}
		newer = row.ID
		d.Rows = append(d.Rows, av)
	}
	d.Verified = v
	return c.render(w, r, http.StatusOK, "audit.html", &page{Title: "Audit log", Section: "audit", Data: d})
}

// auditGap says which rows between after and before (exclusive) the page
// does not show: the installation's own (unless the user may see them)
// and other organizations'.
func (c *console) auditGap(r *http.Request, after, before int64, installationShown bool) (string, error) {
	missing := before - after - 1
	var inst int64
	if !installationShown {
		var err error
		if inst, err = c.store.CountInstallationAudit(r.Context(), after, before); err != nil {
			return "", err
		}
	}
	var parts []string
	if inst > 0 {
		parts = append(parts, entries(inst)+" of the installation not shown (watch lists, master key: installation admins see them)")
	}
	if other := missing - inst; other > 0 {
		parts = append(parts, entries(other)+" of other organizations not shown")
	}
	return strings.Join(parts, "; "), nil
}

func entries(n int64) string {
	if n == 1 {
		return "1 entry"
	}
	return strconv.FormatInt(n, 10) + " entries"
}

// auditLink is the console page of a row's resource.
func auditLink(r store.AuditRow) string {
	env := r.Environment
	if env != string(kyc.Live) && env != string(kyc.Sandbox) {
		env = ""
	}
	id := url.PathEscape(r.ResourceID)
	switch {
	case r.ResourceType == "user":
		return "/console/users"
	case r.ResourceType == "organization":
		return "/console/users"
	case r.ResourceType == "list_version" || r.ResourceType == "list_import":
		return "/console/lists" // installation rows: only installation admins see them
	case env == "":
		return ""
	case r.ResourceType == "kyc_request":
		return "/console/" + env + "/cases/" + id
	case r.ResourceType == "aml_check":
		return "/console/" + env + "/alerts/" + id
	case r.ResourceType == "applicant":
		return "/console/" + env + "/applicants/" + id
	case r.ResourceType == "webhook_endpoint" && !strings.HasSuffix(r.Action, ".deleted"):
		return "/console/" + env + "/webhooks/" + id
	case r.ResourceType == "api_key":
		return "/console/" + env + "/keys"
	}
	return ""
}

// handleAuditVerify handles "POST /console/audit/verify": the check of
// kycd audit verify (every hash and MAC of the whole installation's
// chain, and its signed head), shown with the head.
func (c *console) handleAuditVerify(w http.ResponseWriter, r *http.Request) error {
	v, err := c.store.VerifyAudit(r.Context(), nil)
	if err != nil {
		return err
	}
	r.Method = http.MethodGet
	return c.renderAudit(w, r, &v)
}

// handleAuditExport handles "GET /console/audit/export": the filtered rows
// (all pages), oldest first, as JSON lines with their hashes.
func (c *console) handleAuditExport(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	f, _, err := readAuditFilter(sess.User, r.URL.Query())
	if err != nil {
		return err
	}
	f.BeforeID = 0
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="audit-`+c.now().UTC().Format("20060102T150405Z")+`.jsonl"`)
	w.Header().Set("Cache-Control", "no-store")
	return c.store.ExportAuditRows(r.Context(), f, w)
}
