package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"kycd/aml"
	"kycd/kyc"
	"kycd/store"
)

const alertsPageSize = 50

type alertsPage struct {
	Checks      []*kyc.AMLCheck
	Total       int
	Page, Pages int
	Review      string
	Query       url.Values
}

// handleAlerts handles "GET /console/{env}/alerts": AML checks with
// potential matches, by review state (pending first, oldest first).
func (c *console) handleAlerts(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	q := r.URL.Query()
	f := kyc.AMLCheckFilter{ReviewStatus: kyc.AMLReviewPending, OldestFirst: true, Page: 1, Size: alertsPageSize}
	review := q.Get("review")
	switch review {
	case "resolved":
		f.ReviewStatus, f.OldestFirst = kyc.AMLReviewResolved, false
	case "all":
		f.ReviewStatus, f.Status, f.OldestFirst = "", kyc.AMLPotentialMatch, false
	default:
		review = "pending"
	}
	if n, err := strconv.Atoi(q.Get("page")); err == nil && n > 1 && n < 100000 {
		f.Page = n
	}
	list, total, err := c.store.FindAMLChecks(r.Context(), sess.User.OrganizationID, env(r), f)
	if err != nil {
		return err
	}
	d := alertsPage{Checks: list, Total: total, Page: f.Page, Pages: max(1, (total+alertsPageSize-1)/alertsPageSize), Review: review, Query: q}
	return c.render(w, r, http.StatusOK, "alerts.html", &page{Title: "AML alerts", Section: "alerts", Data: d})
}

type alertPage struct {
	Check     *kyc.AMLCheck
	Personal  bool
	CanDecide bool
	Names     map[string]string
	// Cases are the AML cases the check's confirmed matches opened.
	Cases []*kyc.AMLCase
	// Form is what a failed decision sent, to show it again.
	Form struct{ Match, Decision, Note string }
}

// ActorName names a decision's actor: the user's name, or the key.
func (p *alertPage) ActorName(rv *kyc.MatchReview) string {
	if rv == nil {
		return ""
	}
	if n, ok := p.Names[rv.ActorID]; ok {
		return n
	}
	return rv.ActorID
}

// handleAlert handles "GET /console/{env}/alerts/{id}": one check, every
// match with its features and its decision, the decision forms, and the
// monitoring history.
func (c *console) handleAlert(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	ch, err := c.aml.Load(r.Context(), sess.User.OrganizationID, env(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := c.store.RecordAccess(r.Context(), sess.User.OrganizationID, env(r), "aml_check", ch.ID, store.AccessAlertViewed, ""); err != nil {
		return err
	}
	names, err := c.userNames(r, sess.User.OrganizationID)
	if err != nil {
		return err
	}
	d := &alertPage{Check: ch, Personal: sess.User.Can(kyc.PermPersonalData), CanDecide: sess.User.Can(kyc.PermDecide), Names: names}
	if d.Cases, err = c.store.FindAMLCasesOfCheck(r.Context(), sess.User.OrganizationID, env(r), ch.ID); err != nil {
		return err
	}
	if formError(r) != nil {
		d.Form.Match, d.Form.Decision, d.Form.Note = r.PathValue("match"), r.PostFormValue("decision"), r.PostFormValue("note")
	}
	return c.render(w, r, http.StatusOK, "alert.html", &page{Title: ch.FirstName + " " + ch.LastName + " · " + ch.PublicID, Section: "alerts", Data: d})
}

// handleMatchDecision handles "POST /console/{env}/alerts/{id}/matches/{match}":
// false_positive or confirmed, with a note.
func (c *console) handleMatchDecision(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	d, note := kyc.MatchDecision(r.PostFormValue("decision")), strings.TrimSpace(r.PostFormValue("note"))
	var errs []kyc.FieldError
	if !d.Valid() {
		errs = append(errs, kyc.FieldError{Field: "decision", Message: "choose false positive or confirmed"})
	}
	switch {
	case note == "":
		errs = append(errs, kyc.FieldError{Field: "note", Message: "is required: say why"})
	case utf8.RuneCountInString(note) > aml.MaxNoteLen:
		errs = append(errs, kyc.FieldError{Field: "note", Message: "must be at most 2000 characters"})
	}
	if len(errs) > 0 {
		return kyc.Invalid(errs...)
	}
	var ch *kyc.AMLCheck
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		ch, err = c.aml.DecideMatch(tx, sess.User.OrganizationID, env(r), r.PathValue("id"), r.PathValue("match"), d, note,
			aml.Actor{Type: kyc.ActorUser, ID: sess.User.ID})
		return err
	})
	if err != nil {
		return err
	}
	notice := "match"
	if d == kyc.MatchConfirmed {
		notice = "match-case"
	}
	return redirect(w, r, "/console/"+string(env(r))+"/alerts/"+ch.ID+"#"+r.PathValue("match"), notice)
}

// handleLiftSuppression handles "POST /console/{env}/alerts/{id}/suppressions/{sup}/lift":
// a reviewer ends a suppression (a false positive carried over from an
// earlier check of the subject), with a note; later screenings show the
// match again. The check is re-read with the lift on record.
func (c *console) handleLiftSuppression(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	note := strings.TrimSpace(r.PostFormValue("note"))
	switch {
	case note == "":
		return kyc.Invalid(kyc.FieldError{Field: "note", Message: "is required: say why"})
	case utf8.RuneCountInString(note) > aml.MaxNoteLen:
		return kyc.Invalid(kyc.FieldError{Field: "note", Message: "must be at most 2000 characters"})
	}
	ch, err := c.aml.Load(r.Context(), sess.User.OrganizationID, env(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	err = c.store.InTx(r.Context(), func(tx *store.Tx) error {
		_, err := c.aml.LiftSuppression(tx, sess.User.OrganizationID, env(r), r.PathValue("sup"), note,
			aml.Actor{Type: kyc.ActorUser, ID: sess.User.ID})
		return err
	})
	if err != nil {
		return err
	}
	return redirect(w, r, "/console/"+string(env(r))+"/alerts/"+ch.ID, "suppression")
}
