package console

import (
	"net/http"
	"strconv"
	"time"

	"kycd/kyc"
	"kycd/store"
)

// riskText is a risk score as the API defines it: 0 to 100, shown
// without the trailing zeros of a fixed format ("10 of 100", not
// "10.00").
func riskText(f *float64) string {
	if f == nil {
		return "—"
	}
	return strconv.FormatFloat(float64(int(*f*10+0.5))/10, 'f', -1, 64) + "\u00a0of\u00a0100" // kept on one line
}

// dueOf is when a request submitted at submitted is due under sla (nil:
// no SLA, or not submitted).
func dueOf(submitted *time.Time, sla time.Duration) *time.Time {
	if submitted == nil || sla <= 0 {
		return nil
	}
	t := submitted.Add(sla)
	return &t
}

// dueText says when a case is due, or by how much it is overdue.
func dueText(now time.Time, due *time.Time) string {
	switch {
	case due == nil:
		return "no due time"
	case now.After(*due):
		return "overdue by " + ago(now, due)
	}
	back := now.Add(-due.Sub(now))
	return "due in " + ago(now, &back)
}

// queueRow is a queue item with its due time.
type queueRow struct {
	store.QueueItem
	Due     *time.Time
	Overdue bool
}

// deskView is the case page's assignment and due time.
type deskView struct {
	Assignment *store.Assignment
	Mine       bool
	Deciders   []*kyc.User // whom the case can be assigned to
	Due        *time.Time
	Overdue    bool
	SLA        time.Duration
}

// desk fills the case page's assignment and due time.
func (c *console) desk(r *http.Request, org string, e kyc.Environment, req *kyc.KYCRequest, sla time.Duration, now time.Time) (*deskView, error) {
	a, err := c.store.FindAssignment(r.Context(), req.ID)
	if err != nil {
		return nil, err
	}
	d := &deskView{Assignment: a, Mine: a != nil && a.UserID == sessionFrom(r).User.ID, SLA: sla}
	if req.Status == kyc.KYCAwaitingReview {
		d.Due = dueOf(req.SubmittedAt, sla)
		d.Overdue = d.Due != nil && now.After(*d.Due)
	}
	if sessionFrom(r).User.Can(kyc.PermDecide) {
		if d.Deciders, err = c.deciders(r, org); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// deciders are the organization's active users who may decide cases.
func (c *console) deciders(r *http.Request, org string) ([]*kyc.User, error) {
	users, err := c.store.FindUsers(r.Context(), org)
	if err != nil {
		return nil, err
	}
	out := users[:0:0]
	for _, u := range users {
		if u.DisabledAt == nil && u.Can(kyc.PermDecide) {
			out = append(out, u)
		}
	}
	return out, nil
}

// handleAssign handles "POST /console/{env}/cases/{id}/assign": assignee
// is a user id, "me", or empty to unassign.
func (c *console) handleAssign(w http.ResponseWriter, r *http.Request) error {
	sess := sessionFrom(r)
	to := r.PostFormValue("assignee")
	if to == "me" {
		to = sess.User.ID
	}
	if len(to) > 64 {
		return kyc.Invalid(kyc.FieldError{Field: "assignee", Message: "is not a user of this organization"})
	}
	var req *kyc.KYCRequest
	err := c.store.InTx(r.Context(), func(tx *store.Tx) (err error) {
		if req, err = tx.FindKYCRequest(sess.User.OrganizationID, env(r), r.PathValue("id")); err != nil {
			return err
		}
		_, err = c.kyc.Assign(tx, sess.User.OrganizationID, env(r), req.ID, to, sess.User)
		return err
	})
	if err != nil {
		return err
	}
	notice := "assigned"
	if to == "" {
		notice = "unassigned"
	}
	return redirect(w, r, caseURL(env(r), req.ID), notice)
}

// handleSLASettings handles "POST /console/settings/sla": how many hours
// a submitted case may wait for review, per environment (empty: none).
func (c *console) handleSLASettings(w http.ResponseWriter, r *http.Request) error {
	org := sessionFrom(r).User.OrganizationID
	hours := map[kyc.Environment]int{}
	var errs []kyc.FieldError
	for _, f := range []struct {
		e     kyc.Environment
		field string
	}{{kyc.Live, "liveHours"}, {kyc.Sandbox, "sandboxHours"}} {
		e, field := f.e, f.field
		v := r.PostFormValue(field)
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > store.MaxSLAHours {
			errs = append(errs, kyc.FieldError{Field: field, Message: "must be a whole number of hours from 1 to 8760, or empty for no due time"})
			continue
		}
		hours[e] = n
	}
	if len(errs) > 0 {
		return kyc.Invalid(errs...)
	}
	set, err := c.store.FindOrgSettings(r.Context(), org)
	if err != nil {
		return err
	}
	if err := c.store.InTx(r.Context(), func(tx *store.Tx) error {
		for _, e := range []kyc.Environment{kyc.Live, kyc.Sandbox} {
			if set.SLAHours[e] != hours[e] {
				if err := tx.SetReviewSLA(org, e, hours[e]); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return redirect(w, r, "/console/settings#review", "sla-saved")
}
