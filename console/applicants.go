package console

import (
	"net/http"
	"strconv"
	"strings"

	"kycd/kyc"
	"kycd/store"
)

const applicantsPageSize = 50

type applicantsPage struct {
	Q           string
	Applicants  []*kyc.Applicant
	Total       int
	Page, Pages int
	Personal    bool
}

// handleApplicants handles "GET /console/{env}/applicants?q=": search by
// name, external reference, id or public id, and by e-mail for roles that
// see personal data.
func (c *console) handleApplicants(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	d := applicantsPage{Q: strings.TrimSpace(r.URL.Query().Get("q")), Page: 1, Personal: sess.User.Can(kyc.PermPersonalData)}
	if n, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && n > 1 && n < 100000 {
		d.Page = n
	}
	if len(d.Q) > 200 {
		d.Q = d.Q[:200]
	}
	if d.Q != "" {
		var err error
		// By e-mail only for whoever may see it: a viewer would learn
		// whether an address belongs to an applicant.
		d.Applicants, d.Total, err = c.store.SearchApplicants(r.Context(), sess.User.OrganizationID, env(r), d.Q, d.Personal, d.Page, applicantsPageSize)
		if err != nil {
			return err
		}
	}
	d.Pages = max(1, (d.Total+applicantsPageSize-1)/applicantsPageSize)
	return c.render(w, r, http.StatusOK, "applicants.html", &page{Title: "Applicants", Section: "applicants", Data: d})
}

type applicantPage struct {
	Applicant *kyc.Applicant
	Requests  []*kyc.KYCRequest
	Checks    []*kyc.AMLCheck
	Personal  bool
	// Admin: the lifecycle actions (erase, legal hold, export) are shown.
	Admin bool
	// Receipt is the erasure receipt of an erased applicant.
	Receipt *kyc.ErasureReceipt
	Reason  string // the legal hold form's reason, as sent after an error
}

// handleApplicant handles "GET /console/{env}/applicants/{id}": the
// applicant with all their KYC requests and the AML checks run on the
// same person (same name, and date of birth when both have one).
func (c *console) handleApplicant(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	org, e := sess.User.OrganizationID, env(r)
	a, err := c.store.FindApplicant(r.Context(), org, e, r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := c.store.RecordAccess(r.Context(), org, e, "applicant", a.ID, store.AccessApplicantViewed, ""); err != nil {
		return err
	}
	reqs, err := c.store.FindKYCRequestsOfApplicant(r.Context(), org, e, a.ID)
	if err != nil {
		return err
	}
	d := applicantPage{Applicant: a, Requests: reqs, Personal: sess.User.Can(kyc.PermPersonalData), Admin: sess.User.Can(kyc.PermAdmin),
		Reason: r.PostFormValue("reason")}
	title := a.FirstName + " " + a.LastName
	if a.ErasedAt != nil {
		// No name is left to match AML checks on; the receipt says what went.
		title = "Erased applicant " + a.PublicID
		if d.Receipt, err = c.store.FindErasure(r.Context(), org, e, a.ID); err != nil {
			return err
		}
	} else if d.Checks, err = c.store.FindAMLChecksForPerson(r.Context(), org, e, a.FirstName, a.LastName, a.DOB); err != nil {
		return err
	}
	return c.render(w, r, http.StatusOK, "applicant.html", &page{Title: title, Section: "applicants", Data: d})
}
