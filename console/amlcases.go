package console

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kycd/aml"
	"kycd/kyc"
	"kycd/store"
)

const amlCasesPageSize = 50

type amlCasesPage struct {
	Cases       []*kyc.AMLCase
	Total       int
	Page, Pages int
	View        string // open, mine, overdue, closed, all
	Query       url.Values
	Now         time.Time
}

// handleAMLCases handles "GET /console/{env}/aml-cases": the
// investigations confirmed matches opened; open ones by due time first.
func (c *console) handleAMLCases(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	q := r.URL.Query()
	f := store.AMLCaseFilter{Status: kyc.AMLCaseOpen, Page: 1, Size: amlCasesPageSize, Now: c.store.Now()}
	view := q.Get("view")
	switch view {
	case "mine":
		f.AssigneeID = sess.User.ID
	case "overdue":
		f.Overdue = true
	case "closed":
		f.Status = kyc.AMLCaseClosed
	case "all":
		f.Status = ""
	default:
		view = "open"
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 && n < 100000 {
		f.Page = n
	}
	list, total, err := c.store.FindAMLCases(r.Context(), sess.User.OrganizationID, env(r), f)
	if err != nil {
		return err
	}
	d := amlCasesPage{Cases: list, Total: total, Page: f.Page, Pages: max(1, (total+amlCasesPageSize-1)/amlCasesPageSize), View: view,
		Query: q, Now: f.Now}
	return c.render(w, r, http.StatusOK, "aml_cases.html", &page{Title: "AML cases", Section: "aml-cases", Data: d})
}

type amlCasePage struct {
	Case      *kyc.AMLCase
	Now       time.Time
	CanDecide bool
	Personal  bool
	Assignees []*kyc.User // who may be assigned: enabled users who may decide
	Outcomes  []kyc.AMLCaseOutcome
	Today     string
	Notes     *notesView // the comment thread (AML cases have no tags)
}

// handleAMLCase handles "GET /console/{env}/aml-cases/{id}": the case,
// its timeline and, for those who may decide, the forms that change it.
func (c *console) handleAMLCase(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	cs, err := c.store.FindAMLCase(r.Context(), sess.User.OrganizationID, env(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := c.store.RecordAccess(r.Context(), sess.User.OrganizationID, env(r), "aml_case", cs.ID, store.AccessAMLCaseViewed, ""); err != nil {
		return err
	}
	d := &amlCasePage{Case: cs, Now: c.store.Now(), CanDecide: sess.User.Can(kyc.PermDecide), Personal: sess.User.Can(kyc.PermPersonalData),
		Outcomes: kyc.AMLCaseOutcomes, Today: c.store.Now().UTC().Format("2006-01-02")}
	names, err := c.userNames(r, sess.User.OrganizationID)
	if err != nil {
		return err
	}
	if d.Notes, err = c.notes(r, cs.OrganizationID, cs.Environment, kyc.SubjectAMLCase, cs.ID, amlCaseURL(cs.Environment, cs.ID)+"/comments", names); err != nil {
		return err
	}
	if d.CanDecide {
		users, err := c.store.FindUsers(r.Context(), sess.User.OrganizationID)
		if err != nil {
			return err
		}
		for _, u := range users {
			if u.DisabledAt == nil && u.Can(kyc.PermDecide) {
				d.Assignees = append(d.Assignees, u)
			}
		}
	}
	return c.render(w, r, http.StatusOK, "aml_case.html", &page{Title: "AML case · " + cs.Subject, Section: "aml-cases", Data: d})
}

// handleAMLCaseUpdate handles "POST /console/{env}/aml-cases/{id}": one
// form per action (assign, due, note, close, reopen), each through the
// same use case as the API's PATCH.
func (c *console) handleAMLCaseUpdate(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	var u aml.CaseUpdate
	u.Note = strings.TrimSpace(r.PostFormValue("note"))
	switch r.PostFormValue("action") {
	case "assign":
		a := r.PostFormValue("assignee")
		if a == "me" {
			a = sess.User.ID
		}
		u.AssigneeID = &a
	case "due":
		if v := r.PostFormValue("due"); v == "" {
			u.ClearDue = true
		} else if t, err := time.Parse("2006-01-02", v); err == nil {
			t = t.Add(24*time.Hour - time.Second) // the end of the day chosen, UTC
			u.DueAt = &t
		} else {
			return kyc.Invalid(kyc.FieldError{Field: "due", Message: "must be a date"})
		}
	case "note":
		if u.Note == "" {
			return kyc.Invalid(kyc.FieldError{Field: "note", Message: "is required"})
		}
	case "close":
		st, oc := kyc.AMLCaseClosed, kyc.AMLCaseOutcome(r.PostFormValue("outcome"))
		u.Status = &st
		if oc != "" {
			u.Outcome = &oc
		}
	case "reopen":
		st := kyc.AMLCaseOpen
		u.Status = &st
	default:
		return kyc.Invalid(kyc.FieldError{Field: "action", Message: "must be assign, due, note, close or reopen"})
	}
	var cs *kyc.AMLCase
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		cs, err = c.aml.UpdateCase(tx, sess.User.OrganizationID, env(r), r.PathValue("id"), u, aml.Actor{Type: kyc.ActorUser, ID: sess.User.ID})
		return err
	})
	if err != nil {
		return err
	}
	return redirect(w, r, amlCaseURL(env(r), cs.ID), "aml-case")
}

func amlCaseURL(e kyc.Environment, id string) string {
	return "/console/" + string(e) + "/aml-cases/" + id
}

// handleAMLCaseComment handles "POST /console/{env}/aml-cases/{id}/comments":
// a comment on the case's thread, as on a KYC case's.
func (c *console) handleAMLCaseComment(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	id := r.PathValue("id")
	var cm *kyc.Comment
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		cm, err = c.aml.AddCaseComment(tx, sess.User.OrganizationID, env(r), id, aml.CaseComment{Body: r.PostFormValue("body"),
			By: userAuthor(sess.User), CaseURL: c.baseURL + amlCaseURL(env(r), id)})
		return err
	})
	if err != nil {
		return err
	}
	return redirect(w, r, amlCaseURL(env(r), id)+"#comments", mentionNotice(cm, sess.User.ID))
}

// maxSARForm bounds the SAR form: the copy and the small fields.
const maxSARForm = kyc.MaxSARFileBytes + 64<<10

// handleAMLCaseSAR handles "POST /console/{env}/aml-cases/{id}/sar": the
// record of a filed suspicious-activity report, with its copy.
func (c *console) handleAMLCaseSAR(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	u := aml.SARUpload{}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		r.Body = http.MaxBytesReader(w, r.Body, maxSARForm)
		if err := r.ParseMultipartForm(maxSARForm); err != nil {
			return kyc.Invalid(kyc.FieldError{Field: "file", Message: "must be at most 10 MB"})
		}
		defer func() { _ = r.MultipartForm.RemoveAll() }()
		if f, h, err := r.FormFile("file"); err == nil {
			defer f.Close()
			b, err := io.ReadAll(io.LimitReader(f, kyc.MaxSARFileBytes+1))
			if err != nil {
				return kyc.Invalid(kyc.FieldError{Field: "file", Message: "could not be read"})
			}
			// A browser sends an empty part with no name when no file
			// was chosen: that is "no copy", not an empty copy.
			if len(b) > 0 || h.Filename != "" {
				u.File, u.FileName = append([]byte{}, b...), h.Filename
			}
		} else if !errors.Is(err, http.ErrMissingFile) {
			return kyc.Invalid(kyc.FieldError{Field: "file", Message: "could not be read"})
		}
	}
	u.Reference, u.FiledOn = r.FormValue("reference"), r.FormValue("filedOn")
	var cs *kyc.AMLCase
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		cs, err = c.aml.RecordSAR(tx, sess.User.OrganizationID, env(r), r.PathValue("id"), u, aml.Actor{Type: kyc.ActorUser, ID: sess.User.ID})
		return err
	})
	if err != nil {
		return err
	}
	return redirect(w, r, "/console/"+string(env(r))+"/aml-cases/"+cs.ID, "sar")
}

// handleAMLCaseSARFile handles "GET /console/{env}/aml-cases/{id}/sar/file":
// the filed copy, as an attachment (never shown inline: it came from
// outside). Audited as a read of personal data.
func (c *console) handleAMLCaseSARFile(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	cs, err := c.store.FindAMLCase(r.Context(), sess.User.OrganizationID, env(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	if cs.SAR == nil || cs.SAR.File == nil {
		return kyc.Errorf(kyc.ENotFound, "This case has no report file.")
	}
	b, err := c.store.AMLCaseSARFile(r.Context(), cs)
	if err != nil {
		return err
	}
	if err := c.store.RecordAccess(r.Context(), sess.User.OrganizationID, env(r), "aml_case", cs.ID, store.AccessSARFile, ""); err != nil {
		return err
	}
	w.Header().Set("Content-Type", cs.SAR.File.ContentType)
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": cs.SAR.File.Name}))
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
	return nil
}
