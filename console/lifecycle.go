package console

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kycd/kyc"
	"kycd/store"
)

// The personal data lifecycle in the back office (docs/personal-data.md):
// an admin erases an applicant (after a confirmation step), sets or lifts
// a legal hold with a reason, and downloads the applicant's export. They
// are the API's use cases (store.EraseApplicant, SetLegalHold, the
// server's ExportApplicant) with the signed-in admin as the actor, so the
// receipt, the audit rows and the svc.applicant.erased event are the same.

// maxLifecycleReason bounds a typed reason, as the API does.
const maxLifecycleReason = 500

type erasePage struct {
	Applicant *kyc.Applicant
	// Now: retention allows the erasure at once; else From is the date
	// from which it may run and Rule says what keeps the data until then.
	Now      bool
	From     time.Time
	Rule     string
	Requests int
	Reason   string // as sent, after an error
}

// handleErasePage handles "GET /console/{env}/applicants/{id}/erase": the
// confirmation step. It says what erasure removes and keeps, and whether
// retention lets it run now or from which date it will be carried out.
func (c *console) handleErasePage(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	org, e := sess.User.OrganizationID, env(r)
	a, err := c.store.FindApplicant(r.Context(), org, e, r.PathValue("id"))
	if err != nil {
		return err
	}
	if a.ErasedAt != nil {
		http.Redirect(w, r, "/console/"+string(e)+"/applicants/"+a.ID, http.StatusSeeOther)
		return nil
	}
	if err := c.store.RecordAccess(r.Context(), org, e, "applicant", a.ID, store.AccessApplicantViewed, "erasure confirmation"); err != nil {
		return err
	}
	from, policy, err := c.store.ErasableFrom(r.Context(), a)
	if err != nil {
		return err
	}
	reqs, err := c.store.FindKYCRequestsOfApplicant(r.Context(), org, e, a.ID)
	if err != nil {
		return err
	}
	d := erasePage{Applicant: a, From: from, Now: !from.After(c.now()), Requests: len(reqs), Reason: r.PostFormValue("reason")}
	if !d.Now {
		d.Rule = "A decided live request is kept " + strconv.Itoa(policy.DecidedYears) + " years after its decision"
		if a.RelationshipEnd != nil {
			d.Rule += " or after the relationship end (" + *a.RelationshipEnd + "), whichever is later"
		}
	}
	return c.render(w, r, http.StatusOK, "erase.html", &page{Title: "Erase " + a.PublicID, Section: "applicants", Data: d})
}

// handleErase handles "POST /console/{env}/applicants/{id}/erase": the
// admin typed the applicant's public id to confirm. Retention may defer
// it: then the request is recorded and the applicant page shows from when
// it runs. Under legal hold it is refused (409) on the confirmation page.
func (c *console) handleErase(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	org, e := sess.User.OrganizationID, env(r)
	a, err := c.store.FindApplicant(r.Context(), org, e, r.PathValue("id"))
	if err != nil {
		return err
	}
	var errs []kyc.FieldError
	if !strings.EqualFold(strings.TrimSpace(r.PostFormValue("confirm")), a.PublicID) {
		errs = append(errs, kyc.FieldError{Field: "confirm", Message: "type the applicant's id, " + a.PublicID + ", to confirm"})
	}
	reason, rerr := formReason(r, false)
	if rerr != nil {
		errs = append(errs, *rerr)
	}
	if len(errs) > 0 {
		return kyc.Invalid(errs...)
	}
	_, err = c.store.EraseApplicant(r.Context(), store.ErasureRequest{OrganizationID: org, Environment: e, ApplicantID: a.ID,
		Rule: kyc.ErasureOnRequest, Reason: reason})
	var deferred *kyc.ErasureDeferred
	switch {
	case errors.As(err, &deferred):
		return redirect(w, r, "/console/"+string(e)+"/applicants/"+a.ID, "erasure-scheduled")
	case err != nil:
		return err
	}
	return redirect(w, r, "/console/"+string(e)+"/applicants/"+a.ID, "erased")
}

// handleLegalHoldSet handles "POST /console/{env}/applicants/{id}/legal-hold".
func (c *console) handleLegalHoldSet(w http.ResponseWriter, r *http.Request) error {
	return c.setLegalHold(w, r, true)
}

// handleLegalHoldLift handles "POST /console/{env}/applicants/{id}/legal-hold/lift".
func (c *console) handleLegalHoldLift(w http.ResponseWriter, r *http.Request) error {
	return c.setLegalHold(w, r, false)
}

// setLegalHold sets or lifts the hold; the reason is required either way
// and kept in the audit log.
func (c *console) setLegalHold(w http.ResponseWriter, r *http.Request, hold bool) error {
	sess := sessionFrom(r)
	org, e := sess.User.OrganizationID, env(r)
	reason, ferr := formReason(r, true)
	if ferr != nil {
		return kyc.Invalid(*ferr)
	}
	var a *kyc.Applicant
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		a, err = tx.SetLegalHold(org, e, r.PathValue("id"), hold, *reason)
		return err
	}); err != nil {
		return err
	}
	return redirect(w, r, "/console/"+string(e)+"/applicants/"+a.ID, map[bool]string{true: "hold-set", false: "hold-lifted"}[hold])
}

// handleApplicantExport handles "GET /console/{env}/applicants/{id}/export.zip":
// the same archive as GET /v1/applicants/{id}/export, audited as
// applicant.exported with the admin as actor before it is sent. An erased
// applicant has nothing left to export (422).
func (c *console) handleApplicantExport(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	a, err := c.store.FindApplicant(r.Context(), sess.User.OrganizationID, env(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	if a.ErasedAt != nil {
		return &kyc.Error{Code: kyc.EUnprocessable, Reason: "applicant_erased",
			Message: "This applicant was erased on " + fmtTime(*a.ErasedAt) + ": kycd holds no personal data of theirs to export. The erasure receipt is on the applicant's page."}
	}
	if c.export == nil {
		return kyc.Errorf(kyc.EUnavailable, "Exports are not available on this server.")
	}
	archive, err := c.export(r.Context(), a)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("Content-Disposition", `attachment; filename="`+a.PublicID+`-export-`+c.now().UTC().Format(time.DateOnly)+`.zip"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(archive)))
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(archive); err != nil {
		c.log.Info("export download interrupted", "applicant", a.ID, "err", err)
	}
	return nil
}

// formReason reads the form's reason: trimmed, at most 500 characters,
// required when required is set (nil when empty and optional).
func formReason(r *http.Request, required bool) (*string, *kyc.FieldError) {
	v := strings.TrimSpace(r.PostFormValue("reason"))
	switch {
	case v == "" && required:
		return nil, &kyc.FieldError{Field: "reason", Message: "is required: it is kept in the audit log"}
	case v == "":
		return nil, nil
	case utf8.RuneCountInString(v) > maxLifecycleReason:
		return nil, &kyc.FieldError{Field: "reason", Message: "must be at most 500 characters"}
	}
	return &v, nil
}
