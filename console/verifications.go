package console

import (
	"encoding/csv"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"kycd/decision"
	"kycd/internal/csvsafe"
	"kycd/kyc"
	"kycd/store"
)

// verificationsPageSize is how many requests a page of the list shows.
const verificationsPageSize = 50

type verificationsPage struct {
	Items       []store.VerificationItem
	Total       int
	Page, Pages int
	Filter      store.VerificationFilter
	Query       url.Values
	Statuses    []kyc.KYCStatus
	ReasonCodes []string
	Tags        []string // the tags the environment's cases carry
	Deciders    []*kyc.User
	MyID        string
	Now         time.Time
}

// verificationFilter reads the list's filters from a query. A value the
// form cannot produce is a validation error naming the field, never a
// silently ignored filter.
func verificationFilter(q url.Values, me string) (store.VerificationFilter, error) {
	f := store.VerificationFilter{Page: 1, Size: verificationsPageSize, Reason: q.Get("reason"), Sort: q.Get("sort"), DecidedBy: q.Get("decidedBy")}
	var errs []kyc.FieldError
	bad := func(field, msg string) { errs = append(errs, kyc.FieldError{Field: field, Message: msg}) }
	if s := q.Get("status"); s != "" {
		if f.Status = kyc.KYCStatus(s); !f.Status.Valid() {
			bad("status", "is not a KYC status")
		}
	}
	switch d := kyc.KYCDecision(q.Get("decision")); d {
	case "", kyc.KYCDecision("pending"), kyc.KYCDecision("approved"), kyc.KYCDecision("rejected"), kyc.KYCDecision("none"):
		f.Decision = d
	default:
		bad("decision", "must be pending, approved, rejected or none")
	}
	if len(f.Reason) > 64 || strings.ContainsAny(f.Reason, " \t") {
		bad("reason", "is not a reason code")
	}
	if t := q.Get("tag"); t != "" {
		var err error
		if f.Tag, err = kyc.NormalizeTag(t); err != nil {
			bad("tag", "is not a tag")
		}
	}
	switch f.Sort {
	case "", store.SortNewest, store.SortOldest, store.SortDecided, store.SortRisk:
	default:
		bad("sort", "must be newest, oldest, decided or risk")
	}
	switch f.DecidedBy {
	case "", store.DecidedByEngine, store.DecidedByPerson, store.DecidedByAPI:
	default:
		bad("decidedBy", "must be engine, person or api")
	}
	switch a := q.Get("assignee"); {
	case a == "me":
		f.Assignee = me
	case len(a) > 64:
		bad("assignee", "is not a user")
	default:
		f.Assignee = a
	}
	risk := func(field string) *float64 {
		s := q.Get(field)
		if s == "" {
			return nil
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v >= 0 && v <= 100) {
			bad(field, "must be a number from 0 to 100")
			return nil
		}
		return &v
	}
	f.RiskMin, f.RiskMax = risk("riskMin"), risk("riskMax")
	day := func(field string, end bool) time.Time {
		s := q.Get(field)
		if s == "" {
			return time.Time{}
		}
		t, err := time.Parse(time.DateOnly, s)
		if err != nil {
			bad(field, "must be a date such as 2026-11-27")
			return time.Time{}
		}
		if end { // the day given is included
			t = t.AddDate(0, 0, 1)
		}
		return t
	}
	f.CreatedFrom, f.CreatedTo = day("createdFrom", false), day("createdTo", true)
	f.DecidedFrom, f.DecidedTo = day("decidedFrom", false), day("decidedTo", true)
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 && n < 100000 {
		f.Page = n
	}
	if len(errs) > 0 {
		return f, kyc.Invalid(errs...)
	}
	return f, nil
}

// handleVerifications handles "GET /console/{env}/verifications": every
// KYC request of the environment, filtered and sorted.
func (c *console) handleVerifications(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	q := r.URL.Query()
	f, err := verificationFilter(q, sess.User.ID)
	if err != nil {
		return err
	}
	org := sess.User.OrganizationID
	items, total, err := c.store.ListVerifications(r.Context(), org, env(r), f)
	if err != nil {
		return err
	}
	for i := range items {
		// The engine gives a code once per check that raised it: the list
		// says each once, as the queue does (the export keeps them all).
		items[i].Reasons = uniqueCodes(items[i].Reasons)
	}
	deciders, err := c.deciders(r, org)
	if err != nil {
		return err
	}
	codes, tags, err := c.listFilterChoices(r, org, env(r))
	if err != nil {
		return err
	}
	d := verificationsPage{Items: items, Total: total, Page: f.Page, Pages: max(1, (total+verificationsPageSize-1)/verificationsPageSize),
		Filter: f, Query: q, Statuses: kyc.KYCStatuses, ReasonCodes: codes, Tags: tags, Deciders: deciders, MyID: sess.User.ID, Now: c.now()}
	return c.render(w, r, http.StatusOK, "verifications.html", &page{Title: "All verifications", Section: "verifications", Data: d})
}

// exportChunk is how many rows the export reads at a time.
var exportChunk = 1000 // a variable for the tests, which page with less

// handleVerificationsExport handles "GET
// /console/{env}/verifications/export.csv": the filtered list as CSV,
// every page. Contact details are columns only for roles that may see
// personal data; every cell that a spreadsheet would read as a formula is
// quoted with a leading apostrophe. The export is audited with its
// filter.
func (c *console) handleVerificationsExport(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	f, err := verificationFilter(r.URL.Query(), sess.User.ID)
	if err != nil {
		return err
	}
	org, e := sess.User.OrganizationID, env(r)
	contact := sess.User.Can(kyc.PermPersonalData)
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		id, reason := sess.User.ID, "filter: "+r.URL.RawQuery
		return tx.AppendAudit(store.AuditEntry{OrganizationID: org, Environment: e, ResourceType: "organization", ResourceID: org,
			Action: "kyc.verifications_exported", ActorType: kyc.ActorUser, ActorID: &id, Reason: &reason})
	}); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="verifications-`+string(e)+`.csv"`)
	cw := csv.NewWriter(w)
	head := []string{"id", "publicId", "applicantId", "firstName", "lastName"}
	if contact {
		head = append(head, "email", "phone")
	}
	// reasonCodes are the engine's; decisionReasonCodes the reviewer's
	// (main code first); lists within a cell are space-separated.
	head = append(head, "externalRef", "applicantExternalRef", "status", "decision", "decidedBy", "reasonCodes", "decisionReasonCodes", "decisionReason",
		"riskScore", "assignee", "tags", "createdAt", "submittedAt", "decidedAt")
	if err := cw.Write(head); err != nil {
		return err
	}
	f.Size, f.Page = exportChunk, 1
	// Newest and oldest orders page by id (rows created meanwhile do not
	// shift the export); decision-time and risk orders by offset.
	keyset := (f.Sort == "" || f.Sort == store.SortNewest || f.Sort == store.SortOldest) && f.CreatedFrom.IsZero() && f.CreatedTo.IsZero()
	for ; ; f.Page++ {
		items, _, err := c.store.ListVerifications(r.Context(), org, e, f)
		if err != nil {
			// Headers are sent: the error can only end the file early, so
			// it is logged and the download is cut (the client sees a
			// truncated transfer, not a complete-looking file).
			c.log.ErrorContext(r.Context(), "verifications export", "err", err)
			panic(http.ErrAbortHandler)
		}
		for _, it := range items {
			row := []string{it.ID, it.PublicID, it.ApplicantID, it.FirstName, it.LastName}
			if contact {
				row = append(row, it.Email, it.Phone)
			}
			risk := ""
			if it.RiskScore != nil {
				risk = strconv.FormatFloat(*it.RiskScore, 'f', -1, 64)
			}
			row = append(row, it.ExternalRef, it.ApplicantRef, string(it.Status), string(it.Decision), it.DecidedBy, strings.Join(it.Reasons, " "),
				strings.Join(it.ReviewReasonCodes, " "), it.DecisionReason, risk, it.AssigneeName, strings.Join(it.Tags, " "),
				kyc.FormatTime(it.CreatedAt), csvTime(it.SubmittedAt), csvTime(it.DecidedAt))
			for i := range row {
				row[i] = csvsafe.Cell(row[i])
			}
			if err := cw.Write(row); err != nil {
				return nil // the client went away
			}
		}
		if len(items) < f.Size {
			break
		}
		if keyset {
			f.After = items[len(items)-1].ID
		}
	}
	cw.Flush()
	return nil
}

func csvTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return kyc.FormatTime(*t)
}

// listFilterChoices are the reason codes (the engine's, then the
// decisions' built in and the organization's) and the tags in use, for
// the lists' filters.
func (c *console) listFilterChoices(r *http.Request, org string, e kyc.Environment) ([]string, []string, error) {
	codes := append([]string{}, decision.AllCodes...)
	catalog, err := c.reasonCatalog(r, org, e)
	if err != nil {
		return nil, nil, err
	}
	for _, rc := range catalog {
		if !slices.Contains(codes, rc.Code) {
			codes = append(codes, rc.Code)
		}
	}
	tags, err := c.store.FindUsedTags(r.Context(), org, e, kyc.SubjectKYCRequest)
	return codes, tags, err
}
